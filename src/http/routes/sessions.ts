/**
 * Sessions: create / read / end, turns, the tool list for the next model request, the session's
 * client tools (setTools) and resolve (the definition of a tool the model called, or the rescue).
 *
 * The two routes that take tools (create, setTools) validate them item by item (like catalog
 * uploads) so that a rejection names every bad tool; they are documented in the OpenAPI registry
 * with the same zod schemas.
 */
import { createRoute, type OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";
import type { Context } from "hono";
import { z } from "zod";
import type { ItemError } from "../../catalog/batch.ts";
import { OutputFormatSchema, renderDefinition } from "../../catalog/render.ts";
import type { ServiceConfig } from "../../config/env.ts";
import type { Limits } from "../../config/limits.ts";
import { parseSessionTools, type SessionTool } from "../../sessions/session-tools.ts";
import type { ListEntry } from "../../sessions/tool-list.ts";
import type { AppEnv } from "../context.ts";
import { expectOk, refuse, validationError } from "../errors.ts";
import { requires, errorResponses, jsonBody, jsonContent } from "../openapi.ts";
import { TenantIdSchema } from "../../contract/schemas.ts";
import {
  createSessionBodySchema,
  createSessionReadSchema,
  ResolveRequestSchema,
  ResolveResponseSchema,
  sessionParams,
  SessionSchema,
  setToolsBodySchema,
  SetToolsResultSchema,
  startTurnSchema,
  ToolListSchema,
} from "../../contract/session-schemas.ts";

const TAGS = ["sessions"];

/** Reads a JSON body (an absent body reads as `{}`), refusing anything that is not JSON. */
async function readJson(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === "") return {};
  const type = (c.req.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json")
    refuse("invalid-request", "Send the body as JSON with Content-Type: application/json.");
  try {
    return JSON.parse(text);
  } catch {
    refuse("invalid-request", "Malformed JSON in request body; nothing was changed.");
  }
}

function rejectTools(errors: ItemError[], total: number): never {
  const first = errors[0]!;
  const label = `tools[${first.index}]${first.name ? ` (${first.name})` : ""}`;
  refuse(
    "invalid-request",
    `${errors.length} of ${total} tools are invalid; nothing was changed. First: ${label}: ${first.reasons.join("; ")}`,
    { items: errors },
  );
}

function sessionTools(items: unknown[], config: ServiceConfig): SessionTool[] {
  const parsed = parseSessionTools(items, config.limits);
  if (!parsed.ok) rejectTools(parsed.errors, items.length);
  return parsed.tools;
}

function entryInfo(entry: ListEntry) {
  return { name: entry.name, source: entry.source, tool_id: entry.tool_id };
}

/** What a route on one session says besides what every such route shares. */
type SessionRouteSpec = Pick<RouteConfig, "summary" | "description" | "responses"> & {
  request?: Omit<NonNullable<RouteConfig["request"]>, "params">;
};

/**
 * A route on one session (`suffix` after its path): every one takes the search scope and names the session in its path.
 */
function sessionRoute<const M extends RouteConfig["method"], const S extends string, const R extends SessionRouteSpec>(
  method: M,
  suffix: S,
  spec: R,
) {
  return {
    ...spec,
    method,
    path: `/v1/tenants/{tenant}/sessions/{session_id}${suffix}` as `/v1/tenants/{tenant}/sessions/{session_id}${S}`,
    tags: TAGS,
    security: requires("search"),
    request: { ...(spec.request as NonNullable<R["request"]>), params: sessionParams },
  };
}

const getSession = createRoute(
  sessionRoute("get", "", {
    summary: "A session's state: turn, budget, always-loaded and activated tools, expiry (search scope)",
    responses: { 200: jsonContent(SessionSchema, "The session"), ...errorResponses("forbidden", "not-found") },
  }),
);

const deleteSession = createRoute(
  sessionRoute("delete", "", {
    summary: "End a session: its activated tools and client tools go with it (search scope)",
    responses: { 204: { description: "Ended" }, ...errorResponses("forbidden", "not-found") },
  }),
);

const startTurnRoute = (limits: Limits) =>
  createRoute(
    sessionRoute("post", "/turns", {
      summary: "Start the next agent turn: the search budget starts again; a message loads the tools it needs",
      description:
        'Call this when the user sends a new message (search scope). The body is optional; `{"turn": n}` makes a ' +
        "retried call harmless (asking for the current turn changes nothing; anything but current or current + 1 is " +
        "a 409). With `message` (the user's message) the session's deferred tools that clearly fit it are activated " +
        "in the same step, without spending the turn's search budget, and listed in `suggested` (the tenant's " +
        "suggest_max and suggest_threshold, or this request's `suggest`); a turn's message is ranked once, so a " +
        "retry suggests nothing more. See docs/suggestions.md.",
      request: { body: { content: { "application/json": { schema: startTurnSchema(limits) } }, required: false } },
      responses: {
        200: jsonContent(SessionSchema, "The session in its new turn"),
        ...errorResponses("forbidden", "not-found", "conflict"),
      },
    }),
  );

const toolList = createRoute(
  sessionRoute("get", "/tools", {
    summary: "The tool definitions to send with the session's next model request (search scope)",
    description:
      "In this order: tool_search, the always-loaded tools, the session's client tools, the activated tools in " +
      "activation order. Activation only appends, so the list's prefix stays stable for prompt caches. Names are " +
      "model-facing names: unique, 1-64 characters of A-Z a-z 0-9 _ -, valid for every format. Rebuild the list from " +
      "here after context compaction: activated tools persist for the life of the session.",
    request: { query: z.object({ format: OutputFormatSchema.default("mcp") }) },
    responses: { 200: jsonContent(ToolListSchema, "The tool list"), ...errorResponses("forbidden", "not-found") },
  }),
);

const resolve = createRoute(
  sessionRoute("post", "/resolve", {
    summary: "The definition of a tool the model called, if it is active in the session (search scope)",
    description:
      "Accepts the model-facing name, a tool id or a bare tool name. A tool that is not in the session's tool list " +
      "(or not in the catalog at all) gets 409 `tool-not-active` with the rescue message: `Tool 'X' not in active " +
      "set. Call tool_search(query='X') to discover it, or use one of: <always-loaded names>`; `in_catalog` says " +
      "whether it exists. A bare name shared by several active tools gets 409 `conflict` listing their ids.",
    request: { body: jsonBody(ResolveRequestSchema) },
    responses: {
      200: jsonContent(ResolveResponseSchema, "The tool is active"),
      ...errorResponses("forbidden", "not-found", "tool-not-active"),
    },
  }),
);

export function registerSessionRoutes(app: OpenAPIHono<AppEnv>, config: ServiceConfig): void {
  const readCreateSession = createSessionReadSchema(config.limits);
  app.openAPIRegistry.registerPath({
    method: "post",
    path: "/v1/tenants/{tenant}/sessions",
    tags: TAGS,
    summary: "Create a session (search scope); 201 when created, 200 when it already existed with the same options",
    description:
      "Every option is optional (an empty body is fine). `session_id` lets a client name its session (a retried " +
      "create then answers 200 with the existing session; the same id with other options is a 409). The session ends " +
      "after `ttl_seconds` without a call that names it. `message` (the user's first message) loads the deferred " +
      "tools that clearly fit it, as on POST .../turns, and lists them in `suggested`; it is not one of the options " +
      "a retry is compared on.",
    security: requires("search"),
    request: {
      params: z.object({ tenant: TenantIdSchema }),
      body: { required: false, content: { "application/json": { schema: createSessionBodySchema(config.limits) } } },
    },
    responses: {
      201: jsonContent(SessionSchema, "Created"),
      200: jsonContent(SessionSchema, "It already existed with the same options"),
      ...errorResponses("forbidden", "not-found", "conflict"),
    },
  });
  app.post("/v1/tenants/:tenant/sessions", async (c) => {
    const parsed = readCreateSession.safeParse(await readJson(c));
    if (!parsed.success) return validationError(c, "request body", parsed.error.issues);
    const { tools, message, suggest, ...options } = parsed.data;
    const validTools = tools === undefined ? null : sessionTools(tools, config);
    const turn = { ...(message === undefined ? {} : { message }), ...(suggest ? { suggest } : {}) };
    const { created, session } = expectOk(
      await c.get("tenant").createSession(c.get("caller"), options, validTools, turn),
    );
    return c.json({ ...session, created }, created ? 201 : 200);
  });

  app.openapi(getSession, async (c) => {
    return c.json(expectOk(await c.get("tenant").getSession(c.get("caller"), c.req.valid("param").session_id)), 200);
  });

  app.openapi(deleteSession, async (c) => {
    expectOk(await c.get("tenant").deleteSession(c.get("caller"), c.req.valid("param").session_id));
    return c.body(null, 204);
  });

  app.openapi(startTurnRoute(config.limits), async (c) => {
    const { turn, ...message } = c.req.valid("json");
    return c.json(
      expectOk(await c.get("tenant").startTurn(c.get("caller"), c.req.valid("param").session_id, turn, message)),
      200,
    );
  });

  app.openapi(toolList, async (c) => {
    const { format } = c.req.valid("query");
    const list = expectOk(await c.get("tenant").sessionToolList(c.get("caller"), c.req.valid("param").session_id));
    return c.json(
      {
        session_id: list.session_id,
        format,
        turn: list.turn,
        budget: list.budget,
        tools: list.entries.map((e) => renderDefinition(e.tool, format, e.name)),
        entries: list.entries.map(entryInfo),
      },
      200,
    );
  });

  app.openAPIRegistry.registerPath(
    sessionRoute("put", "/tools", {
      summary: "Replace the session's own client tools as one step (setTools) (search scope)",
      description:
        "The session then holds exactly these tools; `[]` removes them. Names must be 1-64 characters of A-Z a-z 0-9 " +
        "_ -, without `__` and not `tool_search`; a name that is a catalog tool's model-facing name is a 409. A " +
        "rejected call leaves the previous tools in place. Concurrent calls apply one at a time, in the order they " +
        "arrive; each answer carries the `tools_version` it produced.",
      request: {
        body: { required: true, content: { "application/json": { schema: setToolsBodySchema(config.limits) } } },
      },
      responses: {
        200: jsonContent(SetToolsResultSchema, "Replaced"),
        ...errorResponses("forbidden", "not-found", "conflict"),
      },
    }),
  );
  app.put("/v1/tenants/:tenant/sessions/:session_id/tools", async (c) => {
    const params = sessionParams.safeParse(c.req.param());
    if (!params.success) return validationError(c, "path parameters", params.error.issues);
    const body = await readJson(c);
    const parsed = z.strictObject({ tools: z.array(z.unknown()) }).safeParse(body);
    if (!parsed.success) return validationError(c, "request body", parsed.error.issues);
    const tools = sessionTools(parsed.data.tools, config);
    return c.json(expectOk(await c.get("tenant").setSessionTools(c.get("caller"), params.data.session_id, tools)), 200);
  });

  app.openapi(resolve, async (c) => {
    const { name, format } = c.req.valid("json");
    const entry = expectOk(await c.get("tenant").resolve(c.get("caller"), c.req.valid("param").session_id, name));
    return c.json({ ...entryInfo(entry), definition: renderDefinition(entry.tool, format ?? "mcp", entry.name) }, 200);
  });
}
