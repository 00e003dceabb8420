/**
 * Tool input formats. A tool may arrive as an MCP tool, an Anthropic tool, an OpenAI Chat
 * Completions function tool or an OpenAI Responses function tool, each plus the service's own
 * fields (`server`, `keywords`, `defer`). All of them normalise to one ToolContent.
 *
 * Each format is a strict zod object: an unknown field is an error that names the field. The
 * vendor fields that do not affect search (`cache_control`, `strict`, MCP `_meta`...) are accepted
 * and dropped, so real exports upload as they are.
 */
import { z } from "zod";
import { limitNote, type Limits } from "../config/limits.ts";
import { boundedObject, utf8Bytes, type JsonObject } from "./json.ts";
import { DeferSchema, ServerNameSchema, TOOL_NAME, type ToolContent } from "./tool.ts";

const INPUT_FORMATS = ["mcp", "anthropic", "openai", "openai-responses"] as const;
export type InputFormat = (typeof INPUT_FORMATS)[number];

/** Which format an object claims to be, from its keys (used to explain errors in that format's terms). */
export function detectFormat(raw: unknown): InputFormat {
  if (typeof raw !== "object" || raw === null) return "mcp";
  if ("function" in raw) return "openai";
  if ("parameters" in raw || (raw as { type?: unknown }).type === "function") return "openai-responses";
  if ("input_schema" in raw) return "anthropic";
  return "mcp";
}

/** Builds the zod schemas for tool input under the deployment's limits. */
export function toolInputSchemas(limits: Limits) {
  const name = z
    .string()
    .regex(TOOL_NAME, "tool names are 1-128 characters of A-Z a-z 0-9 _ - . (the MCP rule)")
    .meta({ example: "read_file" });
  const description = z
    .string()
    .refine(
      (d) => utf8Bytes(d) <= limits.max_description_bytes,
      `descriptions are at most ${limits.max_description_bytes} bytes of UTF-8 ` +
        `${limitNote("max_description_bytes", limits)}`,
    );
  const schemaObject = (what: string) =>
    boundedObject(what, limits).refine(
      (s) => s.type === undefined || s.type === "object",
      `${what} must be a JSON Schema of "type": "object"`,
    );
  const service = {
    server: ServerNameSchema.optional().describe(
      "The server (source) the tool belongs to; taken from the path on PUT .../servers/{server}/tools",
    ),
    keywords: z
      .array(
        z
          .string()
          .min(1)
          .max(
            limits.max_keyword_chars,
            `keywords are at most ${limits.max_keyword_chars} characters ${limitNote("max_keyword_chars", limits)}`,
          ),
      )
      .max(limits.max_keywords, `at most ${limits.max_keywords} keywords ${limitNote("max_keywords", limits)}`)
      .optional()
      .describe("Extra words the tool should be found by"),
    defer: DeferSchema.optional(),
  };
  const dropped = z.unknown().optional();

  const mcp = z
    .strictObject({
      name,
      title: z
        .string()
        .max(
          limits.max_title_chars,
          `titles are at most ${limits.max_title_chars} characters ${limitNote("max_title_chars", limits)}`,
        )
        .optional(),
      description: description.optional(),
      inputSchema: schemaObject("inputSchema"),
      outputSchema: schemaObject("outputSchema").optional(),
      annotations: boundedObject("annotations", limits).optional(),
      _meta: dropped,
      icons: dropped,
      execution: dropped,
      ...service,
    })
    .meta({
      id: "McpToolInput",
      description: "An MCP tool (as in a tools/list result)",
      example: {
        server: "filesystem",
        name: "read_file",
        description: "Read the complete contents of a file",
        inputSchema: {
          type: "object",
          properties: { path: { type: "string", description: "Path of the file" } },
          required: ["path"],
        },
      },
    });

  const anthropic = z
    .strictObject({
      name,
      description: description.optional(),
      input_schema: schemaObject("input_schema"),
      type: z.literal("custom").optional(),
      cache_control: dropped,
      strict: dropped,
      defer_loading: z.boolean().optional().describe("false maps to defer: never"),
      input_examples: dropped,
      ...service,
    })
    .meta({ id: "AnthropicToolInput", description: "An Anthropic Messages API tool" });

  const openaiFunction = z.strictObject({
    name,
    description: description.optional(),
    parameters: schemaObject("parameters").optional(),
    strict: dropped,
  });
  const openai = z
    .strictObject({ type: z.literal("function"), function: openaiFunction, ...service })
    .meta({ id: "OpenAIChatToolInput", description: "An OpenAI Chat Completions function tool" });

  const openaiResponses = z
    .strictObject({
      type: z.literal("function"),
      name,
      description: description.optional(),
      parameters: schemaObject("parameters").optional(),
      strict: dropped,
      defer_loading: z.boolean().optional().describe("false maps to defer: never"),
      ...service,
    })
    .meta({ id: "OpenAIResponsesToolInput", description: "An OpenAI Responses API function tool" });

  const byFormat = { mcp, anthropic, openai, "openai-responses": openaiResponses } as const;
  const any = z.union([mcp, anthropic, openai, openaiResponses]).meta({ id: "ToolInput" });
  return { byFormat, any };
}

export type ToolInputSchemas = ReturnType<typeof toolInputSchemas>;
export type ToolInput = z.infer<ToolInputSchemas["any"]>;

const EMPTY_OBJECT_SCHEMA: JsonObject = { type: "object", properties: {} };

/** A validated input of any format as catalog content; `server` must be known by now. */
export function normalizeTool(input: ToolInput, server: string): ToolContent {
  const fn = "function" in input ? input.function : input;
  const inputSchema =
    "inputSchema" in input
      ? input.inputSchema
      : "input_schema" in input
        ? input.input_schema
        : "parameters" in fn
          ? fn.parameters
          : undefined;
  const deferLoading = "defer_loading" in input ? input.defer_loading : undefined;
  return {
    server,
    name: fn.name,
    title: "title" in input ? (input.title ?? null) : null,
    description: fn.description ?? "",
    inputSchema: inputSchema ?? EMPTY_OBJECT_SCHEMA,
    outputSchema: "outputSchema" in input ? (input.outputSchema ?? null) : null,
    annotations: "annotations" in input ? (input.annotations ?? null) : null,
    keywords: input.keywords ?? [],
    defer: input.defer ?? (deferLoading === false ? "never" : null),
  };
}
