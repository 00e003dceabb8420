/**
 * A scripted stand-in for the OpenAI Responses API (POST /v1/responses) with client-executed tool
 * search, so the example runs offline. The model's side is a script; the API's rules are checked
 * as the real API applies them (docs: developers.openai.com/api/docs/guides/tools-tool-search,
 * "Client-executed tool search"; item shapes as in the official SDK's responses types):
 *
 * - `tools` holds one `tool_search` tool with `execution: "client"`, and namespaces of functions;
 * - a function with `defer_loading: true` is not loaded until a `tool_search_output` (answering
 *   the model's `tool_search_call` by `call_id`) carries it;
 * - every call item (`tool_search_call`, `function_call`) must be answered by its output item;
 * - the arguments of a call must match the function's parameters.
 */
import { checkArguments } from "./schema-check.ts";

interface FunctionTool {
  type: "function";
  name: string;
  description?: string;
  parameters: Record<string, unknown>;
  defer_loading?: boolean;
}
interface NamespaceTool {
  type: "namespace";
  name: string;
  description: string;
  tools: FunctionTool[];
}
interface ToolSearchTool {
  type: "tool_search";
  execution: "client" | "server";
  description?: string;
  parameters?: Record<string, unknown>;
}
export type Tool = FunctionTool | NamespaceTool | ToolSearchTool;

export type MessageItem = {
  type: "message";
  role: "user" | "assistant" | "developer";
  content: string | { type: "output_text"; text: string }[];
};
export type ToolSearchCallItem = {
  type: "tool_search_call";
  call_id: string;
  execution: "client";
  status: "completed";
  arguments: Record<string, unknown>;
};
export type ToolSearchOutputItem = {
  type: "tool_search_output";
  call_id: string;
  execution: "client";
  status: "completed";
  tools: Tool[];
};
export type FunctionCallItem = {
  type: "function_call";
  call_id: string;
  name: string;
  namespace?: string;
  arguments: string;
};
export type FunctionCallOutputItem = { type: "function_call_output"; call_id: string; output: string };
export type Item = MessageItem | ToolSearchCallItem | ToolSearchOutputItem | FunctionCallItem | FunctionCallOutputItem;

export interface ResponsesRequest {
  model: string;
  tools: Tool[];
  input: Item[];
}

type OutputItem = MessageItem | ToolSearchCallItem | FunctionCallItem;

export interface ResponsesResponse {
  id: string;
  object: "response";
  status: "completed";
  output: OutputItem[];
}

/** What the scripted model sees when it takes its next step. */
interface ModelView {
  /** The functions it can call now, as `namespace.name`. */
  loaded: ReadonlySet<string>;
  /** The items after its previous output (tool outputs, messages). */
  since: Item[];
}

export type ModelStep = (view: ModelView) => OutputItem[];

let ids = 0;
export const toolSearchCall = (args: Record<string, unknown>): ToolSearchCallItem => ({
  type: "tool_search_call",
  call_id: `call_ts_${++ids}`,
  execution: "client",
  status: "completed",
  arguments: args,
});
export const functionCall = (namespace: string, name: string, args: Record<string, unknown>): FunctionCallItem => ({
  type: "function_call",
  call_id: `call_fn_${++ids}`,
  namespace,
  name,
  arguments: JSON.stringify(args),
});
export const say = (text: string): MessageItem => ({
  type: "message",
  role: "assistant",
  content: [{ type: "output_text", text }],
});

/** The `namespace.name`s a tool_search_output loads. */
export function loadedBy(output: ToolSearchOutputItem | undefined): string[] {
  if (!output) return [];
  return output.tools.flatMap((t) =>
    t.type === "namespace" ? t.tools.map((f) => `${t.name}.${f.name}`) : t.type === "function" ? [t.name] : [],
  );
}

const CALLS: Record<string, string> = { tool_search_call: "tool_search_output", function_call: "function_call_output" };

export class ScriptedResponsesApi {
  private readonly steps: ModelStep[];

  constructor(steps: ModelStep[]) {
    this.steps = [...steps];
  }

  get remainingSteps(): number {
    return this.steps.length;
  }

  async create(request: ResponsesRequest): Promise<ResponsesResponse> {
    const searches = request.tools.filter((t) => t.type === "tool_search");
    if (searches.length !== 1 || searches[0]!.execution !== "client")
      throw new Error("script setup: expected one tool_search tool with execution: client");
    const functions = new Map<string, FunctionTool>();
    const loaded = new Set<string>();
    const add = (key: string, f: FunctionTool, load: boolean) => {
      functions.set(key, f);
      if (load) loaded.add(key);
    };
    for (const tool of request.tools) {
      if (tool.type === "namespace") for (const f of tool.tools) add(`${tool.name}.${f.name}`, f, !f.defer_loading);
      if (tool.type === "function") add(tool.name, tool, !tool.defer_loading);
    }
    request.input.forEach((item, i) => {
      const answer = CALLS[item.type];
      if (
        answer &&
        !request.input
          .slice(i + 1)
          .some(
            (later) =>
              later.type === answer && "call_id" in later && later.call_id === (item as { call_id: string }).call_id,
          )
      ) {
        throw new Error(
          `invalid_request_error: ${item.type} ${(item as { call_id: string }).call_id} has no ${answer}`,
        );
      }
      if (item.type === "tool_search_output") {
        if (
          !request.input
            .slice(0, i)
            .some((earlier) => earlier.type === "tool_search_call" && earlier.call_id === item.call_id)
        ) {
          throw new Error(`invalid_request_error: tool_search_output for unknown call_id ${item.call_id}`);
        }
        for (const tool of item.tools) {
          if (tool.type === "namespace") for (const f of tool.tools) add(`${tool.name}.${f.name}`, f, true);
          if (tool.type === "function") add(tool.name, tool, true);
        }
      }
    });

    const step = this.steps.shift();
    if (!step) throw new Error("script error: the model was asked for more steps than the script has");
    const lastOwn = request.input.findLastIndex(
      (item) =>
        item.type === "tool_search_call" ||
        item.type === "function_call" ||
        (item.type === "message" && item.role === "assistant"),
    );
    const output = step({ loaded, since: request.input.slice(lastOwn + 1) });
    for (const item of output) {
      if (item.type !== "function_call") continue;
      const key = item.namespace ? `${item.namespace}.${item.name}` : item.name;
      if (!loaded.has(key)) throw new Error(`script error: the model called '${key}', which is not loaded`);
      checkArguments(key, functions.get(key)!.parameters, JSON.parse(item.arguments));
    }
    return { id: `resp_${++ids}`, object: "response", status: "completed", output };
  }
}
