/**
 * The limits of suggestions at their bounds (TEST_LIMITS' small values, the way a deployment sets LIMITS):
 * `max_suggestions` bounds the setting suggest_max and a request's suggest.max; `max_query_chars` bounds a turn's
 * message on POST .../sessions, POST .../turns and MCP's `_meta["tool-search/turn"]` as it bounds a search's query.
 * At the bound the request runs; one past it is a 400 naming the limit that changes nothing.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/env.ts";
import { call, mcpTool, OPERATOR, tenantWithKey, uniqueTenant, upsert } from "../helpers.ts";

const limits = loadConfig(env).limits;
const sessions = (tenant: string) => `/v1/tenants/${tenant}/sessions`;

async function tenantWithTools() {
  const t = await tenantWithKey();
  const tools = [
    { server: "fs", ...mcpTool("read_file", "Read the contents of a file") },
    { server: "disk", ...mcpTool("read_file", "Read the contents of a file") },
    { server: "mail", ...mcpTool("send_email", "Send an email message") },
  ];
  expect((await upsert(t.tenant, t.key, tools)).status).toBe(200);
  return t;
}

describe("suggestion limits", () => {
  it(`max_suggestions (${limits.max_suggestions}) bounds suggest_max and suggest.max`, async () => {
    const { tenant, key } = await tenantWithTools();
    const settings = `/v1/tenants/${tenant}/settings`;
    const at = await call("PATCH", settings, { token: key, body: { suggest_max: limits.max_suggestions } });
    expect(at.status, at.text).toBe(200);
    const over = await call("PATCH", settings, { token: key, body: { suggest_max: limits.max_suggestions + 1 } });
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({
      error: "invalid-request",
      limit: "max_suggestions",
      max: limits.max_suggestions,
    });
    expect((await call("GET", settings, { token: key })).body.suggest_max).toBe(limits.max_suggestions);

    // A tenant created over the bound is not created.
    const id = uniqueTenant();
    const refused = await call("POST", "/v1/tenants", {
      token: OPERATOR,
      body: { id, settings: { suggest_max: limits.max_suggestions + 1 } },
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ limit: "max_suggestions" });
    expect((await call("GET", `/v1/tenants/${id}/settings`, { token: OPERATOR })).status).toBe(404);

    // A request's own max: at the bound it runs (both twins fit the message), one past it nothing is created.
    const message = "read the contents of the file";
    const ran = await call("POST", sessions(tenant), {
      token: key,
      body: { message, suggest: { max: limits.max_suggestions, threshold: 1 } },
    });
    expect(ran.status, ran.text).toBe(201);
    expect(ran.body.suggested).toHaveLength(Math.min(2, limits.max_suggestions));
    const tooMany = { message, suggest: { max: limits.max_suggestions + 1 } };
    const create = await call("POST", sessions(tenant), { token: key, body: { session_id: "never", ...tooMany } });
    expect(create.status).toBe(400);
    expect(create.body).toMatchObject({ limit: "max_suggestions", max: limits.max_suggestions });
    expect((await call("GET", `${sessions(tenant)}/never`, { token: key })).status).toBe(404);
    const id2 = ran.body.session_id;
    const turn = await call("POST", `${sessions(tenant)}/${id2}/turns`, { token: key, body: tooMany });
    expect(turn.status).toBe(400);
    expect(turn.body).toMatchObject({ limit: "max_suggestions" });
    expect((await call("GET", `${sessions(tenant)}/${id2}`, { token: key })).body.turn).toBe(1);
  });

  it(`max_query_chars (${limits.max_query_chars}) bounds a turn's message on every route`, async () => {
    const { tenant, key } = await tenantWithTools();
    const atLimit = "send an email ".repeat(limits.max_query_chars).slice(0, limits.max_query_chars);
    const over = `${atLimit}x`;

    const created = await call("POST", sessions(tenant), { token: key, body: { message: atLimit } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.suggested.map((s: { tool_id: string }) => s.tool_id)).toEqual(["mail::send_email"]);
    const id = created.body.session_id as string;
    const turn = await call("POST", `${sessions(tenant)}/${id}/turns`, { token: key, body: { message: atLimit } });
    expect(turn.status, turn.text).toBe(200);

    const refusedCreate = await call("POST", sessions(tenant), { token: key, body: { message: over } });
    expect(refusedCreate.status).toBe(400);
    expect(refusedCreate.body).toMatchObject({
      error: "invalid-request",
      limit: "max_query_chars",
      max: limits.max_query_chars,
    });
    const refusedTurn = await call("POST", `${sessions(tenant)}/${id}/turns`, { token: key, body: { message: over } });
    expect(refusedTurn.status).toBe(400);
    expect(refusedTurn.body).toMatchObject({ limit: "max_query_chars" });
    expect((await call("GET", `${sessions(tenant)}/${id}`, { token: key })).body.turn).toBe(2);

    // MCP: the same bound on the message a call announces.
    const transport = new StreamableHTTPClientTransport(new URL(`http://tool-search.test/v1/tenants/${tenant}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}`, "x-tool-search-session": id } },
      fetch: (url, init) => exports.default.fetch(new Request(url, init)),
    });
    const client = new Client(
      { name: "limits", version: "1" },
      { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
    );
    await client.connect(transport);
    const describe = (message: string) =>
      client.callTool({
        name: "tool_describe",
        arguments: { tool_id: "mail::send_email" },
        _meta: { "tool-search/turn": { turn: 3, message } },
      }) as Promise<{ isError?: boolean; structuredContent?: any; _meta?: any }>;
    const refused = await describe(over);
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({ error: "invalid-request", limit: "max_query_chars" });
    const ran = await describe(atLimit);
    expect(ran.isError).toBeFalsy();
    expect(ran._meta["tool-search/turn"]).toEqual({ turn: 3, suggested: [] });
    await client.close();
  });
});
