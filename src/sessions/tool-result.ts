/**
 * MCP `CallToolResult` -> the Copilot SDK's tool result object, so that a harness that calls MCP
 * servers can hand their answers to a model the way the SDK does:
 *
 * - text blocks, and the text of embedded text resources, join (one per line) into `textResultForLlm`;
 * - image and audio blocks, and embedded binary resources, go to `binaryResultsForLlm`
 *   (base64 `data`, `mimeType`, `type` "image" or "resource", a `description`);
 * - resource links become a line of text naming the link (the model can ask for it);
 * - with no text at all, `structuredContent` is given as JSON text;
 * - `isError: true` gives `resultType: "failure"`, anything else "success";
 * - `sessionLog` is a one-line summary of what was converted, for the harness's log.
 */
import { z } from "zod";

const TextBlock = z.looseObject({ type: z.literal("text"), text: z.string() });
const ImageBlock = z.looseObject({ type: z.literal("image"), data: z.string(), mimeType: z.string() });
const AudioBlock = z.looseObject({ type: z.literal("audio"), data: z.string(), mimeType: z.string() });
const ResourceBlock = z.looseObject({
  type: z.literal("resource"),
  resource: z.looseObject({
    uri: z.string(),
    mimeType: z.string().optional(),
    text: z.string().optional(),
    blob: z.string().optional(),
  }),
});
const ResourceLinkBlock = z.looseObject({
  type: z.literal("resource_link"),
  uri: z.string(),
  name: z.string().optional(),
  description: z.string().optional(),
  mimeType: z.string().optional(),
});

const KNOWN_BLOCKS = {
  text: TextBlock,
  image: ImageBlock,
  audio: AudioBlock,
  resource: ResourceBlock,
  resource_link: ResourceLinkBlock,
} as const;
type KnownBlock = z.infer<(typeof KNOWN_BLOCKS)[keyof typeof KNOWN_BLOCKS]>;

/** A block of a known type must be well formed; a block of a type this converter does not know is kept and skipped. */
const ContentBlock = z
  .looseObject({ type: z.string() })
  .superRefine((block, ctx) => {
    const schema = KNOWN_BLOCKS[block.type as keyof typeof KNOWN_BLOCKS];
    if (!schema) return;
    const parsed = schema.safeParse(block);
    if (!parsed.success)
      for (const issue of parsed.error.issues)
        ctx.addIssue({ ...issue, message: `${block.type} block: ${issue.message}` } as never);
  })
  .meta({ description: "A content block: text, image, audio, resource or resource_link (other types are skipped)" });

export const CallToolResultSchema = z
  .looseObject({
    content: z.array(ContentBlock).default([]),
    structuredContent: z.record(z.string(), z.unknown()).optional(),
    isError: z.boolean().optional(),
  })
  .meta({ id: "CallToolResult", description: "An MCP tools/call result" });
export type CallToolResult = z.input<typeof CallToolResultSchema>;

interface BinaryResult {
  data: string;
  mimeType: string;
  type: "image" | "resource";
  description?: string;
}

export interface ToolResultObject {
  textResultForLlm: string;
  resultType: "success" | "failure";
  sessionLog: string;
  binaryResultsForLlm: BinaryResult[];
}

export function toToolResult(input: CallToolResult): ToolResultObject {
  const result = CallToolResultSchema.parse(input);
  const text: string[] = [];
  const binary: BinaryResult[] = [];
  const counts = new Map<string, number>();
  for (const raw of result.content) {
    counts.set(raw.type, (counts.get(raw.type) ?? 0) + 1);
    const block = raw as KnownBlock;
    switch (block.type) {
      case "text":
        text.push(block.text);
        break;
      case "image":
        if (block.data) binary.push({ data: block.data, mimeType: block.mimeType, type: "image" });
        break;
      case "audio":
        if (block.data)
          binary.push({ data: block.data, mimeType: block.mimeType, type: "resource", description: "audio" });
        break;
      case "resource": {
        const { uri, mimeType, text: body, blob } = block.resource;
        if (body !== undefined) text.push(body);
        if (blob)
          binary.push({
            data: blob,
            mimeType: mimeType || "application/octet-stream",
            type: "resource",
            description: uri,
          });
        break;
      }
      case "resource_link":
        text.push(
          `Resource link: ` +
            `${block.uri}${block.name ? ` (${block.name})` : ""}${block.description ? ` - ${block.description}` : ""}`,
        );
        break;
      default:
        break; // a block type this converter does not know: counted in sessionLog, not shown to the model
    }
  }
  if (text.length === 0 && result.structuredContent !== undefined) text.push(JSON.stringify(result.structuredContent));
  const resultType = result.isError === true ? "failure" : "success";
  const blocks = [...counts].map(([type, n]) => `${n} ${type}`).join(", ") || "no content";
  const textResultForLlm = text.join("\n");
  return {
    textResultForLlm,
    resultType,
    sessionLog:
      `${resultType}: ${blocks}; ${textResultForLlm.length} characters of text, ` +
      `${binary.length} binary result${binary.length === 1 ? "" : "s"}`,
    binaryResultsForLlm: binary,
  };
}
