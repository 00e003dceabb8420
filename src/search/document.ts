/**
 * What of a tool is searched: the text of each field the index scores separately.
 *
 * Only search text is kept here, never the whole definition: the index stays small and the
 * catalog rows in storage remain the single source of a tool's definition.
 */

export const FIELDS = ["name", "server", "description", "params", "keywords"] as const;
export type Field = (typeof FIELDS)[number];

/** The parts of a tool row the search core reads (a catalog row satisfies it). */
export interface SearchableTool {
  id: string;
  server: string;
  name: string;
  title?: string | null;
  description: string;
  inputSchema?: unknown;
  keywords?: readonly string[];
  /** Other names the tool answers to exactly (for example its model-facing name). */
  aliases?: readonly string[];
}

/** Indexed fields plus what exact-name lookup needs (stored by Orama, not indexed). */
export type SearchDocument = { id: string; toolName: string; aliases: string[] } & Record<Field, string>;

/** How deep into nested parameter schemas names and descriptions are collected. */
const MAX_PARAM_DEPTH = 4;

export function toSearchDocument(tool: SearchableTool): SearchDocument {
  return {
    id: tool.id,
    toolName: tool.name,
    aliases: [...(tool.aliases ?? [])],
    name: tool.title ? `${tool.name} ${tool.title}` : tool.name,
    server: tool.server,
    description: tool.description,
    params: paramText(tool.inputSchema, 0).join(" "),
    keywords: (tool.keywords ?? []).join(" "),
  };
}

/**
 * Parameter names, titles and descriptions, walking nested objects and array items. Defaults and
 * examples are left out on purpose: they are values, not words about what the tool does.
 */
function paramText(schema: unknown, depth: number): string[] {
  if (depth > MAX_PARAM_DEPTH || !isObject(schema)) return [];
  const out: string[] = [];
  const properties = schema.properties;
  if (isObject(properties)) {
    for (const [name, sub] of Object.entries(properties)) {
      out.push(name);
      if (isObject(sub)) {
        if (typeof sub.title === "string") out.push(sub.title);
        if (typeof sub.description === "string") out.push(sub.description);
        out.push(...paramText(sub, depth + 1));
      }
    }
  }
  if (isObject(schema.items)) out.push(...paramText(schema.items, depth + 1));
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
