/**
 * Output formats and model-facing names. A definition is rendered for the API the client sends it
 * to; its `name` is the model-facing name, the one the model calls and `resolve` maps back.
 */
import { z } from "zod";
import type { JsonObject } from "./json.ts";
import type { ToolRow } from "./tool.ts";

export const OUTPUT_FORMATS = ["mcp", "anthropic", "openai", "openai-responses"] as const;
export const OutputFormatSchema = z
  .enum(OUTPUT_FORMATS)
  .describe("Shape of returned definitions: mcp (default), anthropic, openai (Chat Completions), openai-responses");
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** Model-facing names follow SERVER_NAME's rule (catalog/tool.ts): at most this long. */
const MODEL_NAME_MAX = 64;

/** FNV-1a, 32 bits, as 8 hex digits: a short stable suffix for names that must be shortened. */
function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, "0");
}

/**
 * `server__name` with every character outside A-Z a-z 0-9 _ - replaced by `_`; names longer than
 * 64 characters keep their first 55 and end in `_` plus a hash of the tool id, so they stay unique.
 */
export function modelName(tool: Pick<ToolRow, "server" | "name">): string {
  const full = `${tool.server}__${tool.name}`.replace(/[^A-Za-z0-9_-]/g, "_");
  if (full.length <= MODEL_NAME_MAX) return full;
  return `${full.slice(0, MODEL_NAME_MAX - 9)}_${fnv1a(`${tool.server}::${tool.name}`)}`;
}

/**
 * A row as the index takes it (search/'s SearchableTool): the model-facing name is one more name the tool answers
 * to exactly, so a model that searches for the name it was shown finds the tool.
 */
export function searchable(row: ToolRow): ToolRow & { aliases: string[] } {
  return { ...row, aliases: [modelName(row)] };
}

export type Definition = JsonObject;

export function renderDefinition(tool: ToolRow, format: OutputFormat, name: string = modelName(tool)): Definition {
  switch (format) {
    case "mcp":
      return {
        name,
        ...(tool.title ? { title: tool.title } : {}),
        description: tool.description,
        inputSchema: tool.inputSchema,
        ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
        ...(tool.annotations ? { annotations: tool.annotations } : {}),
      };
    case "anthropic":
      return { name, description: tool.description, input_schema: tool.inputSchema };
    case "openai":
      return { type: "function", function: { name, description: tool.description, parameters: tool.inputSchema } };
    case "openai-responses":
      return { type: "function", name, description: tool.description, parameters: tool.inputSchema };
  }
}
