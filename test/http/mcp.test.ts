/**
 * The MCP endpoint with the SDK's own client, inside the Workers runtime against real Durable
 * Objects: sessions, tools, budget errors as tool errors, turns, eviction, auth.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { evictDurableObject } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, createKey } from "../helpers.ts";
import { newSession, sessionPath, tenantStub, tenantWithCatalog, toolList } from "./session-helpers.ts";

const BASE = "http://tool-search.test";

async function connect(tenant: string, key: string, headers: Record<string, string> = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(`${BASE}/v1/tenants/${tenant}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}`, ...headers } },
    fetch: (url, init) => exports.default.fetch(new Request(url, init)),
  });
  const client = new Client(
    { name: "mcp-test", version: "1.0.0" },
    { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  await client.connect(transport);
  return { client, transport, sessionId: transport.sessionId! };
}

type ToolCall = { isError?: boolean; content: { type: string; text: string }[]; structuredContent?: any };

async function searchTool(
  client: Client,
  args: Record<string, unknown>,
  meta?: Record<string, unknown>,
): Promise<ToolCall> {
  return (await client.callTool({
    name: "tool_search",
    arguments: args,
    ...(meta ? { _meta: meta } : {}),
  })) as ToolCall;
}

/** A raw MCP POST, for what the SDK client will not send. */
async function rawPost(tenant: string, key: string | null, body: unknown, headers: Record<string, string> = {}) {
  return call("POST", `/v1/tenants/${tenant}/mcp`, {
    token: key,
    body,
    headers: { accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18", ...headers },
  });
}

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

describe("MCP endpoint", () => {
  it(
    "opens a tool-search session at initialize and lists tool_search (the session's own " +
      "definition) and tool_describe",
    async () => {
      const { tenant, key } = await tenantWithCatalog();
      const { client, sessionId } = await connect(tenant, key);
      expect(sessionId).toMatch(/^mcp_[A-Za-z0-9]{32}$/);
      const state = await call("GET", sessionPath(tenant, sessionId), { token: key });
      expect(state.status, state.text).toBe(200);
      expect(state.body).toMatchObject({ turn: 1, budget: { used: 0, cap: 3 }, turn_idle_seconds: 30 });

      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(["tool_search", "tool_describe"]);
      const httpList = await toolList(tenant, key, sessionId, "mcp");
      expect(tools[0]).toEqual(httpList.body.tools[0]);
      expect(client.getServerCapabilities()?.tools).toBeDefined();
      expect(client.getInstructions()).toContain("tool_search");
      await client.close();
    },
  );

  it(
    "searches in the session: results are activated at once and resolve over HTTP with the " + "MCP session id",
    async () => {
      const { tenant, key } = await tenantWithCatalog();
      const { client, sessionId } = await connect(tenant, key);
      const found = await searchTool(client, { query: "calendar event", max_results: 2 });
      expect(found.isError).toBeFalsy();
      expect(found.structuredContent.results[0]).toMatchObject({
        tool_id: "calendar::create_event",
        model_name: "calendar__create_event",
      });
      expect(found.structuredContent.activated).toEqual(["calendar::create_event"]);
      expect(found.structuredContent.budget).toEqual({ used: 1, cap: 3, remaining: 2 });
      expect(JSON.parse(found.content[0]!.text)).toEqual(found.structuredContent);

      const resolved = await call("POST", sessionPath(tenant, sessionId, "/resolve"), {
        token: key,
        body: { name: "calendar__create_event" },
      });
      expect(resolved.status, resolved.text).toBe(200);
      const lookup = await searchTool(client, { tool_id: "mail::send_email" });
      expect(lookup.structuredContent.results[0].match).toBe("tool-id");
      const nothing = await searchTool(client, { query: "zebra xylophone" });
      expect(nothing.isError).toBeFalsy();
      expect(nothing.structuredContent.results).toEqual([]);
      expect(nothing.structuredContent.message).toMatch(/^No tool matched/);
      await client.close();
    },
  );

  it("answers the search after the budget with a tool error carrying the HTTP API's JSON", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const { client } = await connect(tenant, key);
    for (const query of ["weather", "email", "file"]) expect((await searchTool(client, { query })).isError).toBeFalsy();
    const refused = await searchTool(client, { query: "issues" });
    expect(refused.isError).toBe(true);
    expect(refused.content[0]!.text.startsWith('{"error":"search-budget-exhausted","budgetCap":3,')).toBe(true);
    expect(refused.structuredContent).toEqual({
      error: "search-budget-exhausted",
      budgetCap: 3,
      message: expect.any(String),
    });
    // It did not run: nothing about issues was activated.
    expect(refused.structuredContent.activated).toBeUndefined();
    await client.close();
  });

  it("starts a turn when a call announces it in _meta, and then leaves turns to the client", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const { client, sessionId } = await connect(tenant, key);
    for (const query of ["weather", "email", "file"]) await searchTool(client, { query });
    expect((await searchTool(client, { query: "issues" }, { "tool-search/turn": 1 })).isError).toBe(true);
    const next = await searchTool(client, { query: "issues" }, { "tool-search/turn": 2 });
    expect(next.isError, next.content[0]!.text).toBeFalsy();
    expect(next.structuredContent.budget).toEqual({ used: 1, cap: 3, remaining: 2 });
    const state = await call("GET", sessionPath(tenant, sessionId), { token: key });
    expect(state.body).toMatchObject({ turn: 2, turn_idle_seconds: null });
    const skipped = await searchTool(client, { query: "issues" }, { "tool-search/turn": 7 });
    expect(skipped.isError).toBe(true);
    expect(skipped.structuredContent.error).toBe("conflict");
    const bad = await searchTool(client, { query: "issues" }, { "tool-search/turn": "two" });
    expect(bad.structuredContent.error).toBe("invalid-request");
    await client.close();
  });

  it("describes a tool by id without spending the budget; unknown ids and bad arguments are tool errors", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const { client, sessionId } = await connect(tenant, key);
    const raw = await rawPost(
      tenant,
      key,
      { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "startExport", arguments: {} } },
      { "mcp-session-id": sessionId },
    );
    expect(raw.status, raw.text).toBe(200);
    expect(raw.body).toMatchObject({ jsonrpc: "2.0", id: 7, error: { code: -32602 } });
    expect(raw.body.error.message).toMatch(/Unknown tool 'startExport'.*tool_search/);
    const described = (await client.callTool({
      name: "tool_describe",
      arguments: { tool_id: "fs::read_file" },
    })) as ToolCall;
    expect(described.isError).toBeFalsy();
    expect(described.structuredContent).toMatchObject({
      tool_id: "fs::read_file",
      model_name: "fs__read_file",
      definition: { name: "fs__read_file", inputSchema: { type: "object", properties: { path: { type: "string" } } } },
    });
    const missing = (await client.callTool({
      name: "tool_describe",
      arguments: { tool_id: "fs::reed_file" },
    })) as ToolCall;
    expect(missing.isError).toBe(true);
    expect(missing.structuredContent).toMatchObject({
      error: "not-found",
      suggestions: expect.arrayContaining(["fs::read_file"]),
    });
    const both = await searchTool(client, { query: "file", tool_id: "fs::read_file" });
    expect(both.structuredContent).toMatchObject({
      error: "invalid-request",
      message: expect.stringContaining("exactly one of tool_id"),
    });
    const extra = await searchTool(client, { query: "file", session_id: "other" });
    expect(extra.structuredContent.message).toMatch(/Unknown argument\(s\) session_id/);
    // A tool this server does not have is a protocol error (-32602), as the specification asks, naming the way out.
    await expect(client.callTool({ name: "fs__read_file", arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("tool_search"),
    });
    // None of these ran a search.
    expect((await searchTool(client, { query: "weather" })).structuredContent.budget.used).toBe(1);
    await client.close();
  });

  it(
    "keeps the session across Durable Object eviction: same MCP session, same budget, same " + "activated tools",
    async () => {
      const { tenant, key } = await tenantWithCatalog();
      const { client, sessionId } = await connect(tenant, key);
      await searchTool(client, { query: "calendar event", max_results: 1 });
      await evictDurableObject(tenantStub(tenant));
      const after = await searchTool(client, { query: "email", max_results: 1 });
      expect(after.isError).toBeFalsy();
      expect(after.structuredContent.budget.used).toBe(2);
      const state = await call("GET", sessionPath(tenant, sessionId), { token: key });
      expect(state.body.activated).toEqual(["calendar::create_event", "mail::send_email"]);
      await client.close();
    },
  );

  it("serves an existing tool-search session named at initialize", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const id = await newSession(tenant, key, { session_id: "chat-9", budget_cap: 2 });
    const { client, sessionId } = await connect(tenant, key, { "x-tool-search-session": id });
    expect(sessionId).toBe("chat-9");
    const found = await searchTool(client, { query: "forecast" });
    expect(found.structuredContent.budget).toEqual({ used: 1, cap: 2, remaining: 1 });
    const state = await call("GET", sessionPath(tenant, id), { token: key });
    expect(state.body.activated).toEqual(["weather::get_forecast"]);
    await client.close();
    const unknown = await rawPost(tenant, key, INITIALIZE, { "x-tool-search-session": "no-such-session" });
    expect(unknown.status).toBe(404);
  });

  it("refuses requests without a session, with an unknown one, and after DELETE; GET is 405", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const list = { jsonrpc: "2.0", id: 2, method: "tools/list" };
    const missing = await rawPost(tenant, key, list);
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ jsonrpc: "2.0", error: { code: -32000 } });
    const unknown = await rawPost(tenant, key, list, { "mcp-session-id": "mcp_nope" });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe(-32001);

    const { client, transport, sessionId } = await connect(tenant, key);
    await transport.terminateSession();
    expect((await call("GET", sessionPath(tenant, sessionId), { token: key })).status).toBe(404);
    const gone = await rawPost(tenant, key, list, { "mcp-session-id": sessionId });
    expect(gone.status).toBe(404);
    await client.close();

    const get = await call("GET", `/v1/tenants/${tenant}/mcp`, {
      token: key,
      headers: { accept: "text/event-stream" },
    });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST, DELETE");
    const notJson = await call("POST", `/v1/tenants/${tenant}/mcp`, {
      token: key,
      raw: "{not json",
      headers: { "content-type": "application/json" },
    });
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.code).toBe(-32700);
  });

  it("refuses JSON-RPC batches, so that every call counts against the key's rate limit", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const { client, sessionId } = await connect(tenant, key);
    const search = (id: number) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "tool_search", arguments: { query: "issues" } },
    });
    const batch = await rawPost(tenant, key, [search(1), search(2), search(3)], { "mcp-session-id": sessionId });
    expect(batch.status).toBe(400);
    expect(batch.body).toMatchObject({ jsonrpc: "2.0", error: { code: -32600 }, id: null });
    expect(batch.body.error.message).toMatch(/batch/);
    const initBatch = await rawPost(tenant, key, [INITIALIZE]);
    expect(initBatch.status).toBe(400);
    // Nothing ran: the session's budget is untouched.
    const state = await call("GET", sessionPath(tenant, sessionId), { token: key });
    expect(state.body.budget.used).toBe(0);
    await client.close();
  });

  it("needs a tenant key with the search scope, of this tenant", async () => {
    const { tenant, key } = await tenantWithCatalog();
    expect((await rawPost(tenant, null, INITIALIZE)).status).toBe(401);
    const writeOnly = await createKey(tenant, ["write"]);
    const refused = await rawPost(tenant, writeOnly, INITIALIZE);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe("forbidden");
    expect((await call("GET", `/v1/tenants/${tenant}/mcp`, { token: writeOnly })).status).toBe(403);
    expect(
      (await call("DELETE", `/v1/tenants/${tenant}/mcp`, { token: writeOnly, headers: { "mcp-session-id": "mcp_x" } }))
        .status,
    ).toBe(403);
    const other = await tenantWithCatalog();
    expect((await rawPost(tenant, other.key, INITIALIZE)).status).toBe(403);
    const ok = await rawPost(tenant, key, INITIALIZE);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.headers.get("mcp-session-id")).toMatch(/^mcp_/);
  });
});
