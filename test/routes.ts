/**
 * Every route of the API, as the tests that must cover all of them (fuzz, access matrix) see it:
 * the route list and each route's required scope come from /openapi.json (one declaration per
 * route, `requires(...)` in src/http), and EXAMPLES gives one valid request per route. A route
 * that is served but has no example fails the coverage tests, so a new route cannot be forgotten.
 */
import { env, exports } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { createApp } from "../src/http/app.ts";
import { loadConfig } from "../src/config/env.ts";
import { call, createKey, mcpTool, OPERATOR, tenantWithKey, uniqueTenant, upsert } from "./helpers.ts";

export type Access = "none" | "operator" | "search" | "write" | "admin";

export interface Route {
  /** `METHOD /path/{param}` as in /openapi.json, method in capitals. */
  id: string;
  method: string;
  path: string;
  access: Access;
}

/** The documented routes with the scope each requires, read from /openapi.json. */
export async function documentedRoutes(): Promise<Route[]> {
  const doc = (await call("GET", "/openapi.json")).body as {
    paths: Record<string, Record<string, { security?: { bearer?: string[] }[] }>>;
  };
  const routes: Route[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const roles = (op.security ?? []).flatMap((s) => s.bearer ?? []);
      if (roles.length > 1) throw new Error(`${method} ${path} declares more than one scope`);
      routes.push({
        id: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        access: (roles[0] as Access | undefined) ?? "none",
      });
    }
  }
  return routes.sort((a, b) => a.id.localeCompare(b.id));
}

/**
 * The documentation and the console's page, served but not API routes of their own (test/http/pages.test.ts checks
 * the pages).
 */
const DOCUMENTATION = new Set(["GET /openapi.json", "GET /docs", "GET /console", "POST /console"]);

/** Every API route the app serves (documented or not), in the same `METHOD /path/{param}` form. */
export function servedRoutes(): string[] {
  const app = createApp(loadConfig(env));
  const ids = app.routes
    .filter((r) => r.method !== "ALL")
    .map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, "{$1}")}`);
  return [...new Set(ids)].filter((id) => !DOCUMENTATION.has(id)).sort();
}

/** A tenant with a small catalog, a session that has activated a tool, and the operator for setup. */
export interface Fixture {
  tenant: string;
  /** A key with every scope. */
  key: string;
  /** A key with the search scope alone, which owns the fixture's sessions (sessions belong to their key). */
  searchKey: string;
  session: string;
}

export const FIXTURE_TOOLS = [
  {
    server: "alpha",
    ...mcpTool("read_file", "Read the contents of a file", { path: { type: "string", description: "File path" } }),
  },
  { server: "alpha", ...mcpTool("write_file", "Write text to a file", { path: { type: "string" } }) },
  { server: "beta", ...mcpTool("list_issues", "List issues in a repository", { repo: { type: "string" } }) },
  { server: "core", ...mcpTool("ask_user", "Ask the user a question", {}, { defer: "never" }) },
];

export async function fixture(): Promise<Fixture> {
  const { tenant, key } = await tenantWithKey();
  const up = await upsert(tenant, key, FIXTURE_TOOLS);
  if (up.status !== 200) throw new Error(`fixture upsert: ${up.status} ${up.text}`);
  const searchKey = await createKey(tenant, ["search"]);
  const session = "s1";
  await call("POST", `/v1/tenants/${tenant}/sessions`, { token: searchKey, body: { session_id: session } });
  await call("POST", `/v1/tenants/${tenant}/search`, {
    token: searchKey,
    body: { query: "read file", max_results: 1, session_id: session },
  });
  return { tenant, key, searchKey, session };
}

let serial = 0;
const fresh = (prefix: string) => `${prefix}${++serial}x${Math.random().toString(36).slice(2, 7)}`;

/**
 * One valid request for a route, against a fixture; routes that consume something create it first (as the operator).
 */
export interface Example {
  params: Record<string, string>;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: unknown;
  /** A body that is not JSON (a backup's NDJSON), sent as it is. */
  raw?: { contentType: string; text: string };
  /** Statuses a valid request succeeds with. */
  ok: number[];
}

type ExampleFn = (f: Fixture) => Promise<Example> | Example;

const op = (f: Fixture, method: string, path: string, body?: unknown) =>
  call(method, `/v1/tenants/${f.tenant}${path}`, { token: OPERATOR, ...(body === undefined ? {} : { body }) });
/** A session of the fixture's search key (which owns it; admin keys and the operator may act on it too). */
const ownSession = (f: Fixture, id: string) =>
  call("POST", `/v1/tenants/${f.tenant}/sessions`, { token: f.searchKey, body: { session_id: id } });

export const EXAMPLES: Record<string, ExampleFn> = {
  "GET /healthz": () => ({ params: {}, ok: [200] }),
  "POST /v1/tenants": () => ({ params: {}, body: { id: uniqueTenant("new") }, ok: [201] }),
  "POST /v1/tenants/{tenant}/keys": (f) => ({
    params: { tenant: f.tenant },
    body: { scopes: ["search"], label: "example" },
    ok: [201],
  }),
  "GET /v1/tenants/{tenant}/keys": (f) => ({ params: { tenant: f.tenant }, ok: [200] }),
  "DELETE /v1/tenants/{tenant}/keys/{keyId}": async (f) => {
    // A long fuzz run leaves keys behind (mutated key ids revoke nothing): make room when the tenant is full.
    let created = await op(f, "POST", "/keys", { scopes: ["search"] });
    if (created.status === 409) {
      const keys = (await op(f, "GET", "/keys")).body.keys as { id: string; revoked_at: string | null }[];
      const mine = new Set([f.key, f.searchKey].map((k) => k.split("_")[2]));
      for (const k of keys) if (k.revoked_at === null && !mine.has(k.id)) await op(f, "DELETE", `/keys/${k.id}`);
      created = await op(f, "POST", "/keys", { scopes: ["search"] });
    }
    return { params: { tenant: f.tenant, keyId: created.body.id as string }, ok: [204] };
  },
  "DELETE /v1/tenants/{tenant}/keys/{keyId}/sessions": (f) => ({
    params: { tenant: f.tenant, keyId: f.searchKey.split("_")[2]! },
    ok: [200],
  }),
  "GET /v1/tenants/{tenant}/settings": (f) => ({ params: { tenant: f.tenant }, ok: [200] }),
  "PATCH /v1/tenants/{tenant}/settings": (f) => ({
    params: { tenant: f.tenant },
    body: { default_max_results: 6 },
    ok: [200],
  }),
  "GET /v1/tenants/{tenant}/audit": (f) => ({ params: { tenant: f.tenant }, query: { limit: "5" }, ok: [200] }),
  "GET /v1/tenants/{tenant}/synonyms": (f) => ({ params: { tenant: f.tenant }, ok: [200] }),
  "GET /v1/tenants/{tenant}/learned": (f) => ({
    params: { tenant: f.tenant },
    query: { tool_id: "alpha::read_file" },
    ok: [200],
  }),
  "DELETE /v1/tenants/{tenant}/learned": (f) => ({ params: { tenant: f.tenant }, ok: [200] }),
  "PUT /v1/tenants/{tenant}/synonyms": (f) => ({
    params: { tenant: f.tenant },
    body: { synonyms: { repo: ["repository"], pr: ["pull request"] } },
    ok: [200],
  }),
  "POST /v1/tenants/{tenant}/tools": (f) => ({
    params: { tenant: f.tenant },
    body: { tools: [{ server: "gamma", ...mcpTool(fresh("tool_"), "Translate a document") }] },
    ok: [200],
  }),
  "PUT /v1/tenants/{tenant}/servers/{server}/tools": (f) => ({
    params: { tenant: f.tenant, server: fresh("srv") },
    body: { tools: [mcpTool("convert_units", "Convert between units")], defer_tools: "auto" },
    ok: [200],
  }),
  "DELETE /v1/tenants/{tenant}/servers/{server}": async (f) => {
    const server = fresh("gone");
    await op(f, "POST", "/tools", { tools: [{ server, ...mcpTool("doomed", "Removed soon") }] });
    return { params: { tenant: f.tenant, server }, ok: [200] };
  },
  "GET /v1/tenants/{tenant}/tools": (f) => ({
    params: { tenant: f.tenant },
    query: { limit: "2", server: "alpha" },
    ok: [200],
  }),
  "GET /v1/tenants/{tenant}/tools/{tool_id}": (f) => ({
    params: { tenant: f.tenant, tool_id: "alpha::read_file" },
    query: { format: "anthropic" },
    ok: [200],
  }),
  "DELETE /v1/tenants/{tenant}/tools/{tool_id}": async (f) => {
    const name = fresh("doomed_");
    await op(f, "POST", "/tools", { tools: [{ server: "tmp", ...mcpTool(name, "Removed soon") }] });
    return { params: { tenant: f.tenant, tool_id: `tmp::${name}` }, ok: [200] };
  },
  "GET /v1/tenants/{tenant}/catalog": (f) => ({ params: { tenant: f.tenant }, ok: [200] }),
  "GET /v1/tenants/{tenant}/catalog/deferred": (f) => ({
    params: { tenant: f.tenant },
    query: { limit: "3" },
    ok: [200],
  }),
  "POST /v1/tenants/{tenant}/plan": (f) => ({
    params: { tenant: f.tenant },
    body: { context_window: 200_000 },
    ok: [200],
  }),
  "POST /v1/tenants/{tenant}/tool-results": (f) => ({
    params: { tenant: f.tenant },
    body: { content: [{ type: "text", text: "done" }] },
    ok: [200],
  }),
  "POST /v1/tenants/{tenant}/search": (f) => ({
    params: { tenant: f.tenant },
    body: { query: "read a file", max_results: 2 },
    ok: [200],
  }),
  "POST /v1/tenants/{tenant}/sessions": (f) => ({
    params: { tenant: f.tenant },
    body: { session_id: fresh("chat-"), budget_cap: 2 },
    ok: [201],
  }),
  "GET /v1/tenants/{tenant}/sessions/{session_id}": (f) => ({
    params: { tenant: f.tenant, session_id: f.session },
    ok: [200],
  }),
  "DELETE /v1/tenants/{tenant}/sessions/{session_id}": async (f) => {
    const id = fresh("end-");
    await ownSession(f, id);
    return { params: { tenant: f.tenant, session_id: id }, ok: [204] };
  },
  "POST /v1/tenants/{tenant}/sessions/{session_id}/turns": (f) => ({
    params: { tenant: f.tenant, session_id: f.session },
    body: {},
    ok: [200],
  }),
  "GET /v1/tenants/{tenant}/sessions/{session_id}/tools": (f) => ({
    params: { tenant: f.tenant, session_id: f.session },
    query: { format: "openai" },
    ok: [200],
  }),
  "PUT /v1/tenants/{tenant}/sessions/{session_id}/tools": (f) => ({
    params: { tenant: f.tenant, session_id: f.session },
    body: { tools: [mcpTool("pick_color", "Let the user pick a color")] },
    ok: [200],
  }),
  "POST /v1/tenants/{tenant}/sessions/{session_id}/resolve": (f) => ({
    params: { tenant: f.tenant, session_id: f.session },
    body: { name: "core__ask_user" },
    ok: [200],
  }),
  "GET /v1/tenants/{tenant}/catalog/export": (f) => ({
    params: { tenant: f.tenant },
    query: { format: "anthropic", limit: "3" },
    ok: [200],
  }),
  "POST /v1/tenants/{tenant}/mcp": (f) => ({
    params: { tenant: f.tenant },
    headers: MCP_HEADERS,
    body: MCP_INITIALIZE,
    ok: [200],
  }),
  "DELETE /v1/tenants/{tenant}/mcp": async (f) => {
    const id = fresh("mcp-");
    await ownSession(f, id);
    return { params: { tenant: f.tenant }, headers: { "mcp-session-id": id }, ok: [204] };
  },
  "GET /v1/tenants/{tenant}/doctor": (f) => ({ params: { tenant: f.tenant }, query: { limit: "5" }, ok: [200] }),
  "GET /v1/tenants/{tenant}/usage": (f) => ({
    params: { tenant: f.tenant },
    query: { from: "2026-01-01", to: "2026-01-31", top: "5" },
    ok: [200],
  }),
  "GET /v1/tenants/{tenant}/catalog/revisions": (f) => ({
    params: { tenant: f.tenant },
    query: { limit: "5" },
    ok: [200],
  }),
  "GET /v1/tenants/{tenant}/catalog/diff": (f) => ({
    params: { tenant: f.tenant },
    query: { from: "0", to: "1", limit: "10" },
    ok: [200],
  }),
  // Rolling back to the current revision: a valid request that changes nothing, so every run can repeat it.
  "POST /v1/tenants/{tenant}/catalog/rollback": async (f) => {
    const revision = (await op(f, "GET", "/catalog")).body.revision as number;
    return { params: { tenant: f.tenant }, body: { revision }, ok: [200] };
  },
  "GET /v1/tenants": () => ({ params: {}, query: { limit: "5" }, ok: [200] }),
  "GET /v1/operator/audit": () => ({ params: {}, query: { limit: "5" }, ok: [200] }),
  // A tenant of its own for each run: deleting the fixture's would leave nothing to check.
  "DELETE /v1/tenants/{tenant}": async () => {
    const id = uniqueTenant("doomed");
    await call("POST", "/v1/tenants", { token: OPERATOR, body: { id } });
    return { params: { tenant: id }, ok: [204] };
  },
  "GET /v1/tenants/{tenant}/backup": (f) => ({ params: { tenant: f.tenant }, ok: [200] }),
  // The fixture's backup, restored under a new tenant id each time.
  "POST /v1/tenants/{tenant}/restore": async (f) => {
    const backup = await call("GET", `/v1/tenants/${f.tenant}/backup`, { token: OPERATOR });
    return {
      params: { tenant: uniqueTenant("restored") },
      raw: { contentType: "application/x-ndjson", text: backup.text },
      ok: [201],
    };
  },
  // This MCP server offers no server-initiated stream: a caller allowed in is told 405.
  "GET /v1/tenants/{tenant}/mcp": (f) => ({ params: { tenant: f.tenant }, headers: MCP_HEADERS, ok: [405] }),
};

const MCP_HEADERS = { accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" };
const MCP_INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "fuzz", version: "1" } },
};

/** Fills a path template: each `{param}` from `params`, percent-encoded unless `raw` says otherwise. */
export function fillPath(
  template: string,
  params: Record<string, string>,
  raw: ReadonlySet<string> = new Set(),
): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name] ?? "";
    if (raw.has(name)) return value;
    try {
      return encodeURIComponent(value);
    } catch {
      return value; // a lone surrogate cannot be encoded: send it as is and let the URL parser have it
    }
  });
}

export interface RawRequest {
  method: string;
  path: string;
  token?: string | null;
  headers?: Record<string, string>;
  contentType?: string;
  body?: string | Uint8Array | ReadableStream<Uint8Array>;
}

export interface RawReply {
  status: number;
  text: string;
  body: any;
  headers: Headers;
}

/** Sends a request exactly as given (the body as bytes or text, any content type). */
export async function send(req: RawRequest): Promise<RawReply> {
  const headers: Record<string, string> = { ...req.headers };
  if (req.token) headers.authorization = `Bearer ${req.token}`;
  if (req.contentType !== undefined) headers["content-type"] = req.contentType;
  const res = await exports.default.fetch(
    new Request(`http://tool-search.test${req.path}`, { method: req.method, headers, body: req.body ?? null }),
  );
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.status, text, body, headers: res.headers };
}

/** A request for an example: its path filled in and query appended, its body as JSON. */
export function exampleRequest(route: Route, example: Example, token: string | null): RawRequest {
  const query = example.query ? `?${new URLSearchParams(example.query)}` : "";
  return {
    method: route.method,
    path: fillPath(route.path, example.params) + query,
    token,
    ...(example.headers ? { headers: example.headers } : {}),
    ...(example.body === undefined ? {} : { contentType: "application/json", body: JSON.stringify(example.body) }),
    ...(example.raw ? { contentType: example.raw.contentType, body: example.raw.text } : {}),
  };
}

/**
 * What a tenant holds, as data: catalog, servers, keys, settings, sessions and their tools, the
 * audit trail. Two equal fingerprints mean nothing a client could observe was written. Session
 * expiry and the turn's search count are left out: a refused call that names a session still
 * extends it, and a `tool_id` lookup that finds nothing still spends the budget (both documented).
 */
export async function stateFingerprint(tenant: string): Promise<string> {
  const stub = env.TENANTS.get(env.TENANTS.idFromName(tenant));
  return runInDurableObject(stub, (_o, state) => {
    const sql = state.storage.sql;
    const has = (table: string) =>
      sql.exec(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`, table).toArray().length > 0;
    const rows = (query: string) => sql.exec(query).toArray();
    // A tenant never created holds no schema at all: its state is the tables it has (none, or a restore's staging).
    if (!has("meta")) return JSON.stringify({ tables: rows(`SELECT name FROM sqlite_master ORDER BY name`) });
    return JSON.stringify({
      meta: rows(`SELECT key, value FROM meta WHERE key IN ('tenant_id', 'settings', 'revision') ORDER BY key`),
      tools: rows(`SELECT id, hash, revision, model_name FROM tools ORDER BY id`),
      servers: rows(`SELECT name, defer_tools FROM servers ORDER BY name`),
      keys: rows(`SELECT id, scopes, label, revoked_at FROM keys ORDER BY id`),
      sessions: rows(
        `SELECT id, turn, budget_cap, inline, tools_version, fingerprint, owner FROM sessions ORDER BY id`,
      ),
      activations: rows(`SELECT session_id, tool_id, seq FROM session_activations ORDER BY session_id, seq`),
      sessionTools: rows(`SELECT session_id, position, name, content FROM session_tools ORDER BY session_id, position`),
      audit: has("audit_log") ? rows(`SELECT seq, action FROM audit_log ORDER BY seq`) : [],
      history: has("catalog_revisions")
        ? rows(`SELECT revision, action FROM catalog_revisions ORDER BY revision`).concat(
            rows(`SELECT COUNT(*) AS versions FROM tool_history`),
          )
        : [],
      learned: has("learned_terms")
        ? rows(`SELECT tool_id, term, weight FROM learned_terms ORDER BY tool_id, term`)
        : [],
      credits: has("session_credits")
        ? rows(`SELECT session_id, turn, tool_id FROM session_credits ORDER BY 1, 2, 3`)
        : [],
      recorded: has("session_terms") ? rows(`SELECT session_id, seq, terms FROM session_terms ORDER BY 1, 2`) : [],
    });
  });
}
