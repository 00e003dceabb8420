/**
 * The compact deferred list: one `server::tool: description` line per deferred tool, the way a
 * model is told which tools exist without paying for their schemas. Descriptions become one
 * line (runs of whitespace, newlines included, become one space) and are cut to at most 1,024
 * bytes of UTF-8, never inside a character.
 */

const DESCRIPTION_MAX_BYTES = 1024;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The longest prefix of `text` that is at most `maxBytes` bytes of UTF-8 and ends on a character boundary. */
export function truncateUtf8(text: string, maxBytes: number): { text: string; truncated: boolean } {
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return { text, truncated: false };
  let end = maxBytes;
  // bytes[end] is the first byte left out; while it continues a character, that character straddles the cut.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return { text: decoder.decode(bytes.subarray(0, end)), truncated: true };
}

export interface DeferredLine {
  tool_id: string;
  line: string;
  /** Whether the description was cut to fit. */
  truncated: boolean;
}

export function deferredLine(toolId: string, description: string): DeferredLine {
  const oneLine = description.replace(/\s+/g, " ").trim();
  const cut = truncateUtf8(oneLine, DESCRIPTION_MAX_BYTES);
  return { tool_id: toolId, line: cut.text ? `${toolId}: ${cut.text}` : toolId, truncated: cut.truncated };
}
