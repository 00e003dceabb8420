/**
 * /v1/tenants/{tenant}/mcp: MCP over Streamable HTTP, with a tenant key (search scope).
 *
 * Sessions. `initialize` opens a tool-search session (a new one, or the existing one named by
 * the `X-Tool-Search-Session` header) and its id is the MCP session id (`Mcp-Session-Id`). Every
 * later request names it; the Worker checks it against the tenant object and serves the request
 * with a server built for that request alone. So an MCP session is exactly as durable as a
 * tool-search session: it survives Durable Object eviction and restarts, lasts `ttl_seconds`
 * after its last use, and its id works with the HTTP session routes too (tool list, resolve, turns).
 * DELETE ends it. GET (a stream for server-initiated messages) is 405: this server sends none.
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import * as streamableHttp from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Context } from "hono";
import { z } from "zod";
import { issueReasons } from "../../catalog/batch.ts";
import { renderDefinition } from "../../catalog/render.ts";
import type { ServiceConfig } from "../../config/env.ts";
import { fail, ok, type Result } from "../../errors.ts";
import { buildMcpServer, type McpBackend } from "../../mcp/server.ts";
import { TOOL_SEARCH_ARGS, type McpToolDefinition } from "../../mcp/tools.ts";
import { ALPHABET, randomString } from "../../tenancy/keys.ts";
import { SessionIdSchema } from "../../sessions/session.ts";
import { API_VERSION } from "../version.ts";
import type { AppEnv } from "../context.ts";
import { expectOk } from "../errors.ts";
import { requires, errorResponses } from "../openapi.ts";
import { searchRequestSchema, TenantIdSchema } from "../../contract/schemas.ts";
import { startTurnSchema } from "../../contract/session-schemas.ts";

const SESSION_HEADER = "mcp-session-id";
/** On `initialize`: serve an existing tool-search session instead of opening a new one. */
const BIND_HEADER = "x-tool-search-session";

/** A JSON-RPC error answer, the shape MCP clients expect from this endpoint. */
function rpcError(
  status: 400 | 404 | 405,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status, headers });
}

function sessionGone(id: string): Response {
  return rpcError(
    404,
    -32001,
    `Session not found: '${id}' ended, expired or never existed. Start a new MCP session (initialize).`,
  );
}

const DescribeArgs = z.strictObject({ tool_id: z.string().min(1).max(260) });

/** The MCP tools' backend for one request: this tenant, this caller, this session. */
function backendFor(c: Context<AppEnv>, config: ServiceConfig, sessionId: string): McpBackend {
  const tenant = c.get("tenant");
  const caller = c.get("caller");
  const searchSchema = searchRequestSchema(config.limits);
  const turnSchema = startTurnSchema(config.limits);
  return {
    async toolSearchTool(): Promise<Result<McpToolDefinition>> {
      const list = await tenant.sessionToolList(caller, sessionId);
      if (!list.ok) return list;
      const entry = list.value.entries.find((e) => e.source === "tool_search")!;
      return ok(renderDefinition(entry.tool, "mcp", entry.name) as unknown as McpToolDefinition);
    },
    async search(args) {
      const unknown = Object.keys(args).filter((k) => !(TOOL_SEARCH_ARGS as readonly string[]).includes(k));
      if (unknown.length)
        return fail(
          "invalid-request",
          `Unknown argument(s) ${unknown.join(", ")}: tool_search takes ${TOOL_SEARCH_ARGS.join(", ")}.`,
        );
      const parsed = searchSchema.safeParse({ ...args, session_id: sessionId });
      if (!parsed.success)
        return fail(
          "invalid-request",
          `Invalid tool_search arguments: ${issueReasons(parsed.error.issues).join("; ")}`,
        );
      const found = await tenant.search(caller, parsed.data);
      if (!found.ok) return found;
      const { rows: _rows, ...answer } = found.value;
      return ok(answer as unknown as Record<string, unknown>);
    },
    async startTurn(announced) {
      if (typeof announced === "number") {
        const started = await tenant.startTurn(caller, sessionId, announced);
        return started.ok ? ok(undefined) : started;
      }
      const parsed = turnSchema.safeParse(announced);
      if (!parsed.success)
        return fail(
          "invalid-request",
          `Invalid _meta["tool-search/turn"]: ${issueReasons(parsed.error.issues).join("; ")}`,
        );
      const { turn, ...message } = parsed.data;
      const started = await tenant.startTurn(caller, sessionId, turn, message);
      if (!started.ok) return started;
      const { turn: now, suggested } = started.value;
      return ok({ turn: now, ...(suggested ? { suggested } : {}) });
    },
    async describe(args) {
      const parsed = DescribeArgs.safeParse(args);
      if (!parsed.success)
        return fail(
          "invalid-request",
          `Invalid tool_describe arguments: ${issueReasons(parsed.error.issues).join("; ")}`,
        );
      // Reading a tool's definition to call it is use: the session's searches this turn are credited to it.
      const row = await tenant.describeTool(caller, sessionId, parsed.data.tool_id);
      if (!row.ok) return row;
      const definition = renderDefinition(row.value, "mcp");
      return ok({
        tool_id: row.value.id,
        server: row.value.server,
        name: row.value.name,
        model_name: definition.name,
        definition,
      });
    },
  };
}

function isInitialize(message: unknown): boolean {
  return typeof message === "object" && message !== null && (message as { method?: unknown }).method === "initialize";
}

async function serve(c: Context<AppEnv>, config: ServiceConfig): Promise<Response> {
  const tenant = c.get("tenant");
  const caller = c.get("caller");
  expectOk(await tenant.access(caller, "search"));

  let body: unknown;
  try {
    body = JSON.parse(await c.req.text());
  } catch {
    return rpcError(400, -32700, "Parse error: the body must be a JSON-RPC message (JSON).");
  }
  const messages = Array.isArray(body) ? body : [body];

  let sessionId: string;
  // A new session is created only once the transport has accepted the initialize (below): an
  // initialize it refuses (bad JSON-RPC, Accept or version) must leave nothing behind.
  let openAfterwards = false;
  const initializing = messages.some(isInitialize);
  if (initializing) {
    const bind = c.req.header(BIND_HEADER) ?? null;
    if (bind !== null && !SessionIdSchema.safeParse(bind).success)
      return rpcError(400, -32000, `Bad Request: ${BIND_HEADER} is not a session id.`);
    if (bind !== null) {
      const bound = await tenant.getSession(caller, bind);
      if (!bound.ok && bound.error.error === "not-found") return sessionGone(bind);
      sessionId = expectOk(bound).session_id;
    } else {
      sessionId = `mcp_${randomString(32, ALPHABET)}`;
      openAfterwards = true;
    }
  } else {
    const named = c.req.header(SESSION_HEADER);
    if (!named) return rpcError(400, -32000, "Bad Request: Mcp-Session-Id header is required (initialize first).");
    const live = await tenant.getSession(caller, named);
    if (!live.ok && live.error.error === "not-found") return sessionGone(named);
    expectOk(live);
    sessionId = named;
  }

  const server = buildMcpServer(backendFor(c, config, sessionId), { name: "tool-search", version: API_VERSION });
  // Stateless transport: session ids are handled above, against the tenant object, not in memory.
  const transport = new streamableHttp.WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(c.req.raw, { parsedBody: body });
    if (openAfterwards && response.ok) expectOk(await tenant.openMcpSession(caller, sessionId));
    const headers = new Headers(response.headers);
    headers.set(SESSION_HEADER, sessionId);
    return new Response(response.body, { status: response.status, headers });
  } finally {
    await server.close();
  }
}

const mcpHeaders = z.object({
  "mcp-session-id": z
    .string()
    .optional()
    .describe("The MCP session id from initialize; required on every later request"),
  "mcp-protocol-version": z.string().optional().describe("The protocol version negotiated at initialize"),
  "x-tool-search-session": SessionIdSchema.optional().describe(
    "On initialize only: serve this existing tool-search session (created with POST " +
      ".../sessions) instead of opening a new one",
  ),
});

const JsonRpcMessageSchema = z
  .looseObject({
    jsonrpc: z.literal("2.0"),
    id: z.union([z.string(), z.number()]).optional(),
    method: z.string().optional(),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({
    id: "JsonRpcMessage",
    example: {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: {
        name: "tool_search",
        arguments: { query: "create a calendar event" },
        _meta: { "tool-search/turn": 1 },
      },
    },
  });

const JsonRpcResponseSchema = z
  .looseObject({
    jsonrpc: z.literal("2.0"),
    id: z.union([z.string(), z.number()]),
    result: z.record(z.string(), z.unknown()).optional(),
    error: z.object({ code: z.number().int(), message: z.string() }).optional(),
  })
  .meta({
    id: "JsonRpcResponse",
    example: {
      jsonrpc: "2.0",
      id: 2,
      result: {
        content: [
          {
            type: "text",
            text:
              '{"error":"search-budget-exhausted","budgetCap":3,"message":"This turn\'s 3 tool ' +
              'searches are spent, …"}',
          },
        ],
        structuredContent: {
          error: "search-budget-exhausted",
          budgetCap: 3,
          message: "This turn's 3 tool searches are spent, …",
        },
        isError: true,
      },
    },
  });

const JsonRpcErrorSchema = z
  .object({ jsonrpc: z.literal("2.0"), error: z.object({ code: z.number().int(), message: z.string() }), id: z.null() })
  .meta({
    id: "JsonRpcError",
    example: {
      jsonrpc: "2.0",
      error: {
        code: -32001,
        message: "Session not found: 'mcp_…' ended, expired or never existed. Start a new MCP session (initialize).",
      },
      id: null,
    },
  });

/** The protocol-level refusals of the MCP routes (JSON-RPC errors) next to the API's own (401, 403). */
function mcpErrors() {
  const { 401: unauthorized, 403: forbidden } = errorResponses("forbidden");
  return {
    400: {
      description: "No Mcp-Session-Id, malformed JSON-RPC, unsupported protocol version",
      content: { "application/json": { schema: JsonRpcErrorSchema } },
    },
    401: unauthorized!,
    403: forbidden!,
    404: {
      description: "Unknown or ended session (-32001): initialize again",
      content: { "application/json": { schema: JsonRpcErrorSchema } },
    },
  };
}

const mcpPost = createRoute({
  method: "post",
  path: "/v1/tenants/{tenant}/mcp",
  tags: ["mcp"],
  summary: "MCP over Streamable HTTP: tool_search and tool_describe (search scope)",
  description:
    "A Model Context Protocol server (Streamable HTTP, JSON responses). `initialize` opens a tool-search session " +
    "whose id comes back in `Mcp-Session-Id` (or serves the session named by `X-Tool-Search-Session`); send it on " +
    "every later request. Tools: `tool_search` (`query` or `tool_id`, `max_results`), budgeted per turn and " +
    "activating what it finds in the session, and `tool_describe` (`tool_id`): a tool's full definition. Refusals " +
    "are tool errors (`isError: true`) carrying the HTTP API's JSON, e.g. " +
    '`{"error":"search-budget-exhausted","budgetCap":3,...}`. A turn starts when a `tools/call` carries `_meta: ' +
    '{"tool-search/turn": n}` with the next number, when POST .../sessions/{id}/turns is called with the MCP session ' +
    "id, or (until the client does either) when a search comes `mcp_turn_idle_seconds` (default 30) after the " +
    'previous one. `_meta: {"tool-search/turn": {"turn": n, "message": "<the user\'s message>"}}` also carries the ' +
    "user's message, as on POST .../turns: the deferred tools that clearly fit it are activated at once and the " +
    'result\'s `_meta["tool-search/turn"]` lists them (`{turn, suggested: [...]}`). An unknown or ended session is ' +
    "404 (JSON-RPC error -32001): initialize again.",
  security: requires("search"),
  request: {
    params: z.object({ tenant: TenantIdSchema }),
    headers: mcpHeaders,
    body: { required: true, content: { "application/json": { schema: JsonRpcMessageSchema } } },
  },
  responses: {
    200: {
      description: "The JSON-RPC response (JSON, not an event stream)",
      content: { "application/json": { schema: JsonRpcResponseSchema } },
    },
    202: { description: "Accepted (the body held only notifications)" },
    ...mcpErrors(),
  },
});

export function registerMcpRoutes(app: OpenAPIHono<AppEnv>, config: ServiceConfig): void {
  app.openAPIRegistry.registerPath(mcpPost);
  app.post("/v1/tenants/:tenant/mcp", (c) => serve(c, config));

  app.openAPIRegistry.registerPath({
    method: "delete",
    path: "/v1/tenants/{tenant}/mcp",
    tags: ["mcp"],
    summary: "End the MCP session (and the tool-search session behind it) (search scope)",
    security: requires("search"),
    request: { params: z.object({ tenant: TenantIdSchema }), headers: mcpHeaders.pick({ "mcp-session-id": true }) },
    responses: { 204: { description: "Ended" }, ...mcpErrors() },
  });
  app.delete("/v1/tenants/:tenant/mcp", async (c) => {
    const named = c.req.header(SESSION_HEADER);
    if (!named) return rpcError(400, -32000, "Bad Request: Mcp-Session-Id header is required.");
    const ended = await c.get("tenant").deleteSession(c.get("caller"), named);
    if (!ended.ok && ended.error.error === "not-found") return sessionGone(named);
    expectOk(ended);
    return c.body(null, 204);
  });

  app.openAPIRegistry.registerPath({
    method: "get",
    path: "/v1/tenants/{tenant}/mcp",
    tags: ["mcp"],
    summary: "405: this MCP server sends no server-initiated messages, so it offers no GET stream",
    security: requires("search"),
    request: { params: z.object({ tenant: TenantIdSchema }) },
    responses: {
      405: { description: "Method not allowed", content: { "application/json": { schema: JsonRpcErrorSchema } } },
      ...errorResponses("forbidden"),
    },
  });
  app.get("/v1/tenants/:tenant/mcp", async (c) => {
    expectOk(await c.get("tenant").access(c.get("caller"), "search"));
    return rpcError(405, -32000, "Method not allowed: this server sends no server-initiated messages; use POST.", {
      allow: "POST, DELETE",
    });
  });
}
