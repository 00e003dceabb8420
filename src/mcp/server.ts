/**
 * The MCP server of one request. Workers give no isolate that lives from one request to the next,
 * so nothing of an MCP session is kept in memory: every request builds this small server around
 * a backend bound to the request's tool-search session (whose state lives in the tenant's Durable
 * Object), answers, and is dropped.
 *
 * It uses the SDK's low-level `Server` so that `tool_search` is listed with the exact JSON Schema
 * the HTTP API gives models, and the Workers-safe `@cfworker/json-schema` validator: the SDK's
 * default (ajv) compiles validators with `new Function`, which Workers forbid.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import type { Result } from "../errors.ts";
import { TOOL_SEARCH_NAME } from "../sessions/tool-list.ts";
import {
  announcedTurn,
  SERVER_INSTRUCTIONS,
  TOOL_DESCRIBE,
  TOOL_DESCRIBE_NAME,
  toolError,
  toolResult,
  withTurnMeta,
  type CallToolResult,
  type McpToolDefinition,
} from "./tools.ts";

/** What the MCP tools need, bound to one tenant, caller and session. */
export interface McpBackend {
  /** `tool_search` as this session shows it (its budget, the servers with deferred tools). */
  toolSearchTool(): Promise<Result<McpToolDefinition>>;
  /** A search in the session: budgeted, and activating what it finds. */
  search(args: Record<string, unknown>): Promise<Result<Record<string, unknown>>>;
  /**
   * The client announces its turn (`_meta["tool-search/turn"]`): a number, or `{turn?, message?, suggest?}`. Answers
   * what the result's `_meta` reports back: the turn, and with a message the tools it suggested.
   */
  startTurn(announced: number | Record<string, unknown>): Promise<Result<Record<string, unknown> | undefined>>;
  /** One tool's full definition. */
  describe(args: Record<string, unknown>): Promise<Result<Record<string, unknown>>>;
}

export interface ServerInfo {
  name: string;
  version: string;
}

function answer(result: Result<Record<string, unknown>>): CallToolResult {
  return result.ok ? toolResult(result.value) : toolError(result.error);
}

export function buildMcpServer(backend: McpBackend, info: ServerInfo): Server {
  const server = new Server(info, {
    capabilities: { tools: {} },
    instructions: SERVER_INSTRUCTIONS,
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
  });

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const search = await backend.toolSearchTool();
    if (!search.ok) throw new Error(search.error.message);
    return { tools: [search.value, TOOL_DESCRIBE] };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const { name, arguments: args = {}, _meta } = request.params;
    const announced = announcedTurn(_meta);
    if (announced.error) return toolError(announced.error);
    let turn: Record<string, unknown> | undefined;
    if (announced.announced !== undefined) {
      const started = await backend.startTurn(announced.announced);
      if (!started.ok) return toolError(started.error);
      turn = started.value;
    }
    // The tools a message suggested are active before the call runs: a search in the same call does not return them
    // as newly activated, and the result's _meta names them.
    if (name === TOOL_DESCRIBE_NAME) return withTurnMeta(answer(await backend.describe(args)), turn);
    if (name === TOOL_SEARCH_NAME) return withTurnMeta(answer(await backend.search(args)), turn);
    // The specification answers a call to a tool the server does not have with a protocol error, not a tool result.
    throw new McpError(
      ErrorCode.InvalidParams,
      `Unknown tool '${name}': this server has tool_search and tool_describe. Catalog tools are not called here: ` +
        `find one with tool_search, then call it on its own server.`,
    );
  });

  return server;
}
