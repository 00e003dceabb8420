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

/**
 * A row as the index takes it (search/'s SearchableTool): the model-facing name is one more name the tool answers
 * to exactly, so a model that searches for the name it was shown finds the tool.
 */
export function searchable(row: ToolRow): ToolRow & { aliases: string[] } {
  return { ...row, aliases: [row.modelName] };
}

export type Definition = JsonObject;

export function renderDefinition(tool: ToolRow, format: OutputFormat, name: string = tool.modelName): Definition {
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
