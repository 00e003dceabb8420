/**
 * The vendors' own SDK types against ours, checked by the type checker (`npm run check`) and, for the inputs, at
 * run time: every field of Anthropic `Tool`, OpenAI Chat `ChatCompletionFunctionTool`, Responses `FunctionTool` and
 * `NamespaceTool`, and MCP `Tool` is a field our input schemas know, a value of the SDK's type passes them, and what
 * we give back (definitions, exports, search answers) is assignable to the SDK's type.
 */
import type { Tool as AnthropicTool, ToolResultBlockParam } from "@anthropic-ai/sdk/resources/messages/messages";
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import type { ChatCompletionFunctionTool } from "openai/resources/chat/completions";
import type {
  EasyInputMessage,
  FunctionTool,
  NamespaceTool,
  ResponseToolSearchOutputItemParam,
  ToolSearchTool,
} from "openai/resources/responses/responses";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { schemasFor } from "../../src/catalog/batch.ts";
import type {
  AnthropicDefinition,
  McpDefinition,
  OpenAIChatDefinition,
  OpenAIResponsesDefinition,
} from "../../src/catalog/render.ts";
import type {
  AnthropicToolResult,
  OpenAINamespace,
  OpenAIToolSearch,
  openaiSearchItems,
} from "../../src/catalog/vendor.ts";
import { DEFAULT_LIMITS } from "../../src/config/limits.ts";

/** Compiles only when A is assignable to B. */
function assignable<A, B>(..._proof: A extends B ? [] : [never]): void {}
/** Compiles only when T is `never`. */
function none<T extends never>(): T | undefined {
  return undefined;
}

const schemas = schemasFor(DEFAULT_LIMITS);
type Input<K extends keyof typeof schemas.byFormat> = z.input<(typeof schemas.byFormat)[K]>;
type NamespaceInput = z.input<typeof schemas.namespace>;
type NamespaceFunctionInput = z.input<typeof schemas.namespaceFunction>;

// ---- inputs: every SDK field is one our schemas take, and an SDK value is one of ours -----------------------------

none<Exclude<keyof AnthropicTool, keyof Input<"anthropic">>>();
none<Exclude<keyof ChatCompletionFunctionTool, keyof Input<"openai">>>();
none<Exclude<keyof ChatCompletionFunctionTool["function"], keyof Input<"openai">["function"]>>();
none<Exclude<keyof FunctionTool, keyof Input<"openai-responses">>>();
none<Exclude<keyof NamespaceTool, keyof NamespaceInput>>();
none<Exclude<keyof NamespaceTool.Function, keyof NamespaceFunctionInput>>();
none<Exclude<keyof McpTool, keyof Input<"mcp">>>();
assignable<AnthropicTool, Input<"anthropic">>();
assignable<ChatCompletionFunctionTool, Input<"openai">>();
assignable<FunctionTool, Input<"openai-responses">>();
assignable<McpTool, Input<"mcp">>();

// ---- outputs: what we give back is what the SDKs take ---------------------------------------------------------

assignable<McpDefinition, McpTool>();
assignable<AnthropicDefinition, AnthropicTool>();
assignable<OpenAIChatDefinition, ChatCompletionFunctionTool>();
assignable<OpenAIResponsesDefinition, FunctionTool>();
assignable<OpenAIResponsesDefinition, NamespaceTool.Function>();
assignable<OpenAINamespace, NamespaceTool>();
assignable<OpenAIToolSearch, ToolSearchTool>();
assignable<AnthropicToolResult, ToolResultBlockParam>();
type SearchItem = ReturnType<typeof openaiSearchItems>[number];
assignable<Extract<SearchItem, { type: "tool_search_output" }>, ResponseToolSearchOutputItemParam>();
assignable<Extract<SearchItem, { type: "message" }>, EasyInputMessage>();

describe("vendor SDK types", () => {
  it("a value of each SDK's tool type, every field set (null where the type allows it), passes our schemas", () => {
    const schema = { type: "object" as const, properties: { city: { type: "string" } }, required: ["city"] };
    const anthropic: Required<AnthropicTool> = {
      name: "get_weather",
      description: "Weather for a city",
      input_schema: schema,
      type: null,
      cache_control: null,
      defer_loading: true,
      eager_input_streaming: null,
      strict: true,
      input_examples: [{ city: "Paris" }],
      allowed_callers: ["direct", "code_execution_20250825"],
    };
    const chat: ChatCompletionFunctionTool = {
      type: "function",
      function: { name: "get_weather", description: "Weather", parameters: schema, strict: null },
    };
    const responses: Required<FunctionTool> = {
      type: "function",
      name: "get_weather",
      description: null,
      parameters: null,
      strict: null,
      allowed_callers: null,
      defer_loading: false,
      output_schema: null,
    };
    const namespace: NamespaceTool = {
      type: "namespace",
      name: "weather",
      description: "Weather tools",
      tools: [
        {
          type: "function",
          name: "get_weather",
          description: null,
          parameters: null,
          strict: true,
          allowed_callers: ["programmatic"],
          defer_loading: true,
          output_schema: { type: "object", properties: { celsius: { type: "number" } } },
        },
      ],
    };
    const mcp: Required<McpTool> = {
      name: "get_weather",
      title: "Weather",
      description: "Weather",
      inputSchema: schema,
      outputSchema: { type: "object", properties: { celsius: { type: "number" } } },
      annotations: { readOnlyHint: true },
      execution: { taskSupport: "optional" },
      _meta: { "example.com/x": 1 },
      icons: [{ src: "https://example.com/i.png", mimeType: "image/png" }],
    };
    for (const [format, value] of [
      ["anthropic", anthropic],
      ["openai", chat],
      ["openai-responses", responses],
      ["mcp", mcp],
    ] as const) {
      const parsed = schemas.byFormat[format].safeParse(value);
      expect(parsed.error?.issues ?? [], format).toEqual([]);
    }
    expect(schemas.namespace.safeParse(namespace).error?.issues ?? []).toEqual([]);
  });
});
