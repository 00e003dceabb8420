/**
 * A scripted stand-in for the Anthropic Messages API (POST /v1/messages) with client-side tool
 * search, so the example runs offline. The model's side is a script; the API's rules are checked
 * as the real API applies them (docs: platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool,
 * "Custom tool search implementation"):
 *
 * - tools with `defer_loading: true` are not loaded: the model can call only tools without it and
 *   tools a `tool_reference` block in an earlier `tool_result` named (the API expands each
 *   reference into the matching definition);
 * - every `tool_reference` must name a tool sent in `tools` with `defer_loading: true`;
 * - every `tool_use` must be answered by a `tool_result` in the next user message;
 * - the arguments of a call must match the tool's input schema.
 */
import { checkArguments } from "./schema-check.ts";

export interface AnthropicTool {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
  defer_loading?: boolean;
}

export type TextBlock = { type: "text"; text: string };
export type ToolUseBlock = { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };
type ToolReferenceBlock = { type: "tool_reference"; tool_name: string };
export type ToolResultBlock = {
  type: "tool_result";
  tool_use_id: string;
  content: string | (TextBlock | ToolReferenceBlock)[];
  is_error?: boolean;
};
type ContentBlock = TextBlock | ToolUseBlock | ToolResultBlock;

export interface Message {
  role: "user" | "assistant";
  content: string | ContentBlock[];
}

export interface MessagesRequest {
  model: string;
  max_tokens: number;
  tools: AnthropicTool[];
  messages: Message[];
}

export interface MessagesResponse {
  id: string;
  type: "message";
  role: "assistant";
  content: (TextBlock | ToolUseBlock)[];
  stop_reason: "tool_use" | "end_turn";
}

/** What the scripted model sees when it takes its next step. */
interface ModelView {
  /** The tools it can call now. */
  loaded: ReadonlySet<string>;
  /** The tool results of the last user message (empty after a plain user message). */
  results: ToolResultBlock[];
}

export type ModelStep = (view: ModelView) => (TextBlock | ToolUseBlock)[];

let ids = 0;
export const toolUse = (name: string, input: Record<string, unknown>): ToolUseBlock => ({
  type: "tool_use",
  id: `toolu_${String(++ids).padStart(4, "0")}`,
  name,
  input,
});
export const text = (value: string): TextBlock => ({ type: "text", text: value });

/** The tool names a tool_result references. */
export function references(result: ToolResultBlock | undefined): string[] {
  if (!result || typeof result.content === "string") return [];
  return result.content.flatMap((b) => (b.type === "tool_reference" ? [b.tool_name] : []));
}

function blocks(message: Message): ContentBlock[] {
  return typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
}

export class ScriptedMessagesApi {
  private readonly steps: ModelStep[];

  constructor(steps: ModelStep[]) {
    this.steps = [...steps];
  }

  get remainingSteps(): number {
    return this.steps.length;
  }

  async create(request: MessagesRequest): Promise<MessagesResponse> {
    const byName = new Map(request.tools.map((t) => [t.name, t]));
    if (byName.size !== request.tools.length) throw new Error("invalid_request_error: tool names must be unique");
    if (request.tools.every((t) => t.defer_loading))
      throw new Error("invalid_request_error: at least one tool must not be deferred");

    const loaded = new Set(request.tools.filter((t) => !t.defer_loading).map((t) => t.name));
    request.messages.forEach((message, i) => {
      for (const block of blocks(message)) {
        if (block.type === "tool_use") {
          const answered =
            request.messages[i + 1] &&
            blocks(request.messages[i + 1]!).some((b) => b.type === "tool_result" && b.tool_use_id === block.id);
          if (!answered)
            throw new Error(`invalid_request_error: tool_use ${block.id} has no tool_result in the next message`);
        }
        if (block.type !== "tool_result") continue;
        for (const name of references(block)) {
          if (!byName.get(name)?.defer_loading)
            throw new Error(
              `invalid_request_error: tool_reference '${name}' names no tool sent with defer_loading: true`,
            );
          loaded.add(name);
        }
      }
    });

    const step = this.steps.shift();
    if (!step) throw new Error("script error: the model was asked for more steps than the script has");
    const last = request.messages.at(-1);
    const results =
      last?.role === "user" ? blocks(last).filter((b): b is ToolResultBlock => b.type === "tool_result") : [];
    const content = step({ loaded, results });
    for (const block of content) {
      if (block.type !== "tool_use") continue;
      if (!loaded.has(block.name))
        throw new Error(`script error: the model called '${block.name}', which is not loaded`);
      checkArguments(block.name, byName.get(block.name)!.input_schema, block.input);
    }
    return {
      id: `msg_${++ids}`,
      type: "message",
      role: "assistant",
      content,
      stop_reason: content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn",
    };
  }
}
