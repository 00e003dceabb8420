/**
 * The MCP face of tool search: the two tools an MCP client sees (`tool_search`, `tool_describe`),
 * how their arguments map onto the HTTP API's requests, and how answers and refusals become
 * `CallToolResult`s. Plain data in, plain data out: no SDK, no storage.
 *
 * `tool_search`'s definition is the session's own (src/sessions/tool-list.ts), so an MCP client
 * and an HTTP harness show the model the same text: the budget and the servers with deferred tools.
 */
import type { JsonObject } from "../catalog/json.ts";
import type { ApiError } from "../errors.ts";

export const TOOL_DESCRIBE_NAME = "tool_describe";

/** The `_meta` key on a `tools/call` request that announces the client's turn (see docs/agents.md, Over MCP). */
const TURN_META_KEY = "tool-search/turn";

export const SERVER_INSTRUCTIONS =
  "Tool search for a large tool catalog. Call tool_search with `query` (keywords) or `tool_id` ('server::tool') to " +
  "find tools that are not loaded yet; the tools found are activated in this session at once. Call tool_describe " +
  "with a `tool_id` for a tool's full definition (input schema). A turn allows a few searches: when tool_search " +
  "answers search-budget-exhausted, use a tool you already have or ask the user.";

export interface McpToolDefinition {
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonObject;
  annotations?: JsonObject;
}

export const TOOL_DESCRIBE: McpToolDefinition = {
  name: TOOL_DESCRIBE_NAME,
  title: "Describe a tool",
  description:
    "The full definition of one catalog tool by its id ('server::tool', as tool_search returns it): description and " +
    "input schema, so you know how to call it. It does not search, activate the tool or count against the search " +
    "budget.",
  inputSchema: {
    type: "object",
    properties: { tool_id: { type: "string", description: "The exact id 'server::tool'." } },
    required: ["tool_id"],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
};

/** The arguments `tool_search` accepts; anything else is refused with a message that names them. */
export const TOOL_SEARCH_ARGS = ["query", "tool_id", "max_results"] as const;

export interface CallToolResult {
  [key: string]: unknown;
  content: { type: "text"; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** An answer: the JSON as text (for the model) and as structured content (for programs). */
export function toolResult(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value };
}

/**
 * A refusal as an MCP tool error: `isError: true` and the same JSON body the HTTP API answers
 * (`{"error":"search-budget-exhausted","budgetCap":3,"message":...}`), so the model reads the
 * same words whichever way its harness connects.
 */
export function toolError(error: ApiError): CallToolResult {
  return { ...toolResult(error), isError: true };
}

/**
 * What a `tools/call` announces in `_meta["tool-search/turn"]`: the number of the client's current turn, or an object
 * `{turn?, message?, suggest?}` that also carries the user's message (the turn's tools are then suggested, as on POST
 * .../turns; the backend validates the object). Nothing when absent; a value of neither form is an error.
 */
export function announcedTurn(meta: Record<string, unknown> | undefined): {
  announced?: number | Record<string, unknown>;
  error?: ApiError;
} {
  const value = meta?.[TURN_META_KEY];
  if (value === undefined) return {};
  if (typeof value === "number" && Number.isInteger(value) && value >= 1) return { announced: value };
  if (typeof value === "object" && value !== null && !Array.isArray(value) && ("turn" in value || "message" in value))
    return { announced: value as Record<string, unknown> };
  return {
    error: {
      error: "invalid-request",
      message:
        `_meta["${TURN_META_KEY}"] must be the number of the client's current turn (a positive integer), or ` +
        `{"turn": n, "message": "<the user's message>"} (either key may be left out).`,
    },
  };
}

/** A result with what the turn announced in its request's `_meta` led to (the tools the message suggested). */
export function withTurnMeta(result: CallToolResult, turn: Record<string, unknown> | undefined): CallToolResult {
  return turn === undefined ? result : { ...result, _meta: { [TURN_META_KEY]: turn } };
}
