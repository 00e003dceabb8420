/**
 * Output formats and model-facing names. A definition is rendered for the API the client sends it
 * to; its `name` is the model-facing name, the one the model calls and `resolve` maps back.
 */
import { z } from "zod";
import type { JsonObject } from "./json.ts";
import type { ToolRow, VendorFields } from "./tool.ts";

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

/** A JSON Schema at the top of a tool: every vendor (and MCP) requires `"type": "object"` there. */
export type ObjectSchema = { type: "object"; [key: string]: unknown };

/** The schema with `"type": "object"` first when it was uploaded without a type (input validation allows that). */
export function objectSchema(schema: JsonObject): ObjectSchema {
  return schema.type === "object" ? (schema as ObjectSchema) : { type: "object", ...schema };
}

// The shapes each format gives (test/catalog/vendor-types.test.ts checks them against the vendors' SDK types).

/** MCP `Tool` (a tools/list entry). */
export interface McpDefinition {
  name: string;
  title?: string;
  description: string;
  inputSchema: ObjectSchema;
  outputSchema?: ObjectSchema;
  annotations?: JsonObject;
}

/** Anthropic Messages API `Tool`. */
export interface AnthropicDefinition {
  name: string;
  description: string;
  input_schema: ObjectSchema;
  strict?: boolean;
  input_examples?: JsonObject[];
  allowed_callers?: NonNullable<NonNullable<VendorFields["anthropic"]>["allowed_callers"]>;
  defer_loading?: boolean;
}

/** OpenAI Chat Completions `ChatCompletionFunctionTool`. */
export interface OpenAIChatDefinition {
  type: "function";
  function: { name: string; description: string; parameters: ObjectSchema; strict?: boolean };
}

/** OpenAI Responses `FunctionTool` (also a `NamespaceTool.Function`): `strict` is always there, null by default. */
export interface OpenAIResponsesDefinition {
  type: "function";
  name: string;
  description: string;
  parameters: ObjectSchema;
  strict: boolean | null;
  allowed_callers?: NonNullable<NonNullable<VendorFields["openai"]>["allowed_callers"]>;
  output_schema?: JsonObject;
  defer_loading?: boolean;
}

function mcpDefinition(tool: ToolRow, name: string = tool.modelName): McpDefinition {
  // MCP's outputSchema is an object schema; an OpenAI output_schema of another type has no place here.
  const output = tool.outputSchema && (tool.outputSchema.type ?? "object") === "object" ? tool.outputSchema : null;
  return {
    name,
    ...(tool.title ? { title: tool.title } : {}),
    description: tool.description,
    inputSchema: objectSchema(tool.inputSchema),
    ...(output ? { outputSchema: objectSchema(output) } : {}),
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
  };
}

export function anthropicDefinition(tool: ToolRow, name: string = tool.modelName): AnthropicDefinition {
  return {
    name,
    description: tool.description,
    input_schema: objectSchema(tool.inputSchema),
    ...tool.vendor?.anthropic,
  };
}

function openaiChatDefinition(tool: ToolRow, name: string = tool.modelName): OpenAIChatDefinition {
  const strict = tool.vendor?.openai?.strict;
  return {
    type: "function",
    function: {
      name,
      description: tool.description,
      parameters: objectSchema(tool.inputSchema),
      ...(strict !== undefined ? { strict } : {}),
    },
  };
}

export function openaiResponsesDefinition(tool: ToolRow, name: string = tool.modelName): OpenAIResponsesDefinition {
  const openai = tool.vendor?.openai;
  return {
    type: "function",
    name,
    description: tool.description,
    parameters: objectSchema(tool.inputSchema),
    strict: openai?.strict ?? null,
    ...(openai?.allowed_callers ? { allowed_callers: openai.allowed_callers } : {}),
    ...(tool.outputSchema ? { output_schema: tool.outputSchema } : {}),
  };
}

export function renderDefinition(tool: ToolRow, format: OutputFormat, name: string = tool.modelName): Definition {
  switch (format) {
    case "mcp":
      return { ...mcpDefinition(tool, name) };
    case "anthropic":
      return { ...anthropicDefinition(tool, name) };
    case "openai":
      return { ...openaiChatDefinition(tool, name) };
    case "openai-responses":
      return { ...openaiResponsesDefinition(tool, name) };
  }
}
