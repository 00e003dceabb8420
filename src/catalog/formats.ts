/**
 * Tool input formats. A tool may arrive as an MCP tool, an Anthropic tool, an OpenAI Chat
 * Completions function tool or an OpenAI Responses function tool, each plus the service's own
 * fields (`server`, `keywords`, `defer`); an OpenAI Responses `namespace` brings its functions as
 * the tools of a server of its name. All of them normalise to ToolContent.
 *
 * Each format is a strict zod object with every field of the vendor's current tool type (checked
 * against the SDKs' types in test/catalog/vendor-types.test.ts), `null` wherever that type allows
 * it; an unknown field is an error that names the field. What is kept: the tool's own properties
 * (name, title, description, input and output schema, annotations) and the vendor options that
 * change what the vendor does (`strict`, `input_examples`, `allowed_callers`: see VendorFields).
 * What only concerns one request or the owning server (`cache_control`, `eager_input_streaming`,
 * MCP `_meta`, `icons`, `execution`, a namespace's own description) is accepted and not kept.
 */
import { z } from "zod";
import { limitNote, type Limits } from "../config/limits.ts";
import { boundedObject, boundedObjects, utf8Bytes, type JsonObject } from "./json.ts";
import {
  ANTHROPIC_CALLERS,
  DeferSchema,
  OPENAI_CALLERS,
  ServerNameSchema,
  TOOL_NAME,
  type ToolContent,
  type VendorFields,
} from "./tool.ts";

const INPUT_FORMATS = ["mcp", "anthropic", "openai", "openai-responses", "openai-namespace"] as const;
export type InputFormat = (typeof INPUT_FORMATS)[number];

/** Which format an object claims to be, from its keys (used to explain errors in that format's terms). */
export function detectFormat(raw: unknown): InputFormat {
  if (typeof raw !== "object" || raw === null) return "mcp";
  const type = (raw as { type?: unknown }).type;
  if (type === "namespace") return "openai-namespace";
  if ("function" in raw) return "openai";
  if ("parameters" in raw || type === "function") return "openai-responses";
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
  const anthropicCallers = z.array(z.enum(ANTHROPIC_CALLERS)).max(ANTHROPIC_CALLERS.length);
  const openaiCallers = z.array(z.enum(OPENAI_CALLERS)).max(OPENAI_CALLERS.length);
  const strict = z.boolean().describe("Kept, and given back in this vendor's formats");
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
  const deferLoading = z.boolean().optional().describe("false maps to defer: never");

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
      type: z.literal("custom").nullable().optional(),
      cache_control: dropped,
      eager_input_streaming: dropped,
      strict: strict.optional(),
      defer_loading: deferLoading,
      input_examples: boundedObjects("input_examples", limits).optional().describe("Kept for Anthropic formats"),
      allowed_callers: anthropicCallers.optional().describe("Kept for Anthropic formats"),
      ...service,
    })
    .meta({ id: "AnthropicToolInput", description: "An Anthropic Messages API tool" });

  const openaiFunction = z.strictObject({
    name,
    description: description.optional(),
    parameters: schemaObject("parameters").optional(),
    strict: strict.nullable().optional(),
  });
  const openai = z
    .strictObject({ type: z.literal("function"), function: openaiFunction, ...service })
    .meta({ id: "OpenAIChatToolInput", description: "An OpenAI Chat Completions function tool" });

  /** The fields of a Responses function, top-level (`FunctionTool`) or in a namespace (`NamespaceTool.Function`). */
  const responsesFunction = {
    type: z.literal("function"),
    name,
    description: description.nullable().optional(),
    parameters: schemaObject("parameters").nullable().optional(),
    strict: strict.nullable().optional(),
    allowed_callers: openaiCallers.nullable().optional().describe("Kept for OpenAI Responses formats"),
    output_schema: boundedObject("output_schema", limits)
      .nullable()
      .optional()
      .describe("The tool's output schema (MCP outputSchema)"),
    defer_loading: deferLoading,
  };
  const openaiResponses = z
    .strictObject({ ...responsesFunction, ...service })
    .meta({ id: "OpenAIResponsesToolInput", description: "An OpenAI Responses API function tool" });

  const { server: _server, ...perTool } = service;
  const namespaceFunction = z.strictObject({ ...responsesFunction, ...perTool });
  const openaiNamespace = z
    .strictObject({
      type: z.literal("namespace"),
      name: ServerNameSchema.describe("The server its tools upload to"),
      description: z.string().optional().describe("Not kept: exports describe a namespace by its tools"),
      tools: z.array(
        z.unknown().superRefine((tool, ctx) => {
          if (typeof tool === "object" && tool !== null && (tool as { type?: unknown }).type === "custom") {
            ctx.addIssue({
              code: "custom",
              message:
                "custom tools (free-form text input, no JSON Schema) are not catalogued: tool search serves " +
                "function tools; keep custom tools in the request itself",
            });
            return;
          }
          const parsed = namespaceFunction.safeParse(tool);
          if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue({ ...issue } as never);
        }),
      ),
    })
    .meta({
      id: "OpenAINamespaceInput",
      description: "An OpenAI Responses API namespace: its functions upload as the tools of the server of its name",
    });

  const byFormat = { mcp, anthropic, openai, "openai-responses": openaiResponses } as const;
  const any = z.union([mcp, anthropic, openai, openaiResponses]).meta({ id: "ToolInput" });
  /** What a catalog upload takes: a tool in any format, or a namespace of them. */
  const item = z.union([any, openaiNamespace]).meta({ id: "ToolBatchItem" });
  return { byFormat, any, item, namespace: openaiNamespace, namespaceFunction };
}

export type ToolInputSchemas = ReturnType<typeof toolInputSchemas>;
export type ToolInput = z.infer<ToolInputSchemas["any"]>;
type NamespaceFunction = z.infer<ToolInputSchemas["namespaceFunction"]>;

const EMPTY_OBJECT_SCHEMA: JsonObject = { type: "object", properties: {} };

/** A validated input of any format as catalog content; `server` must be known by now. */
export function normalizeTool(input: ToolInput | NamespaceFunction, server: string): ToolContent {
  const fn = "function" in input ? input.function : input;
  const inputSchema =
    "inputSchema" in input
      ? input.inputSchema
      : "input_schema" in input
        ? input.input_schema
        : "parameters" in fn
          ? fn.parameters
          : undefined;
  const outputSchema =
    "outputSchema" in input ? input.outputSchema : "output_schema" in input ? input.output_schema : undefined;
  const deferLoading = "defer_loading" in input ? input.defer_loading : undefined;
  return {
    server,
    name: fn.name,
    title: "title" in input ? (input.title ?? null) : null,
    description: fn.description ?? "",
    inputSchema: inputSchema ?? EMPTY_OBJECT_SCHEMA,
    outputSchema: outputSchema ?? null,
    annotations: "annotations" in input ? (input.annotations ?? null) : null,
    keywords: input.keywords ?? [],
    defer: input.defer ?? (deferLoading === false ? "never" : null),
    vendor: vendorFields(input),
  };
}

/** The vendor options an input carries (nulls mean the vendor's default, so they are not kept); null for none. */
function vendorFields(input: ToolInput | NamespaceFunction): VendorFields | null {
  const kept = (fields: Record<string, unknown>) => {
    const present = Object.entries(fields).filter(([, v]) => v !== undefined && v !== null);
    return present.length > 0 ? Object.fromEntries(present) : null;
  };
  const raw = input as Record<string, unknown>;
  if ("input_schema" in input) {
    const anthropic = kept({
      strict: raw.strict,
      input_examples: raw.input_examples,
      allowed_callers: raw.allowed_callers,
    });
    return anthropic ? { anthropic } : null;
  }
  if ("function" in input) {
    const openai = kept({ strict: input.function.strict });
    return openai ? { openai } : null;
  }
  if (raw.type === "function") {
    const openai = kept({ strict: raw.strict, allowed_callers: raw.allowed_callers });
    return openai ? { openai } : null;
  }
  return null;
}

/** The functions of a validated namespace, as tools of the server of its name. */
export function namespaceTools(namespace: z.infer<ToolInputSchemas["namespace"]>): NamespaceFunction[] {
  return namespace.tools as NamespaceFunction[];
}
