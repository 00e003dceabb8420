/**
 * Suggestions over MCP, with the SDK's own client against real Durable Objects: a `tools/call` whose
 * `_meta["tool-search/turn"]` carries the user's message activates the tools that fit it, and the result's `_meta`
 * lists them; the number form still works; a bad announcement is a tool error that changes nothing.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call } from "../helpers.ts";
import { sessionPath, tenantWithCatalog, toolList } from "./session-helpers.ts";

const MERGE = "github::merge_pull_request";
type ToolCall = { isError?: boolean; structuredContent?: any; _meta?: Record<string, any> };

async function connect(tenant: string, key: string) {
  const transport = new StreamableHTTPClientTransport(new URL(`http://tool-search.test/v1/tenants/${tenant}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
    fetch: (url, init) => exports.default.fetch(new Request(url, init)),
  });
  const client = new Client(
    { name: "suggest", version: "1" },
    { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  await client.connect(transport);
  return { client, sessionId: transport.sessionId! };
}

const callTool = async (client: Client, name: string, args: Record<string, unknown>, turn?: unknown) =>
  (await client.callTool({
    name,
    arguments: args,
    ...(turn === undefined ? {} : { _meta: { "tool-search/turn": turn } }),
  })) as ToolCall;

describe("MCP suggestions", () => {
  it("a message in a call's _meta loads the tools that fit it, and the result's _meta lists them", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const { client, sessionId } = await connect(tenant, key);

    // The first call of turn 1 (the session's current turn) carries the message.
    const first = await callTool(
      client,
      "tool_search",
      { query: "merge pull request" },
      {
        turn: 1,
        message: "Please merge pull request 42",
      },
    );
    expect(first.isError).toBeFalsy();
    expect(first._meta?.["tool-search/turn"]).toEqual({
      turn: 1,
      suggested: [
        { tool_id: MERGE, model_name: "github__merge_pull_request", score: expect.any(Number), match: "terms" },
      ],
    });
    // Active before the search ran: the search finds it but does not activate it again; its budget counts only itself.
    expect(first.structuredContent.results[0].tool_id).toBe(MERGE);
    expect(first.structuredContent.activated).not.toContain(MERGE);
    expect(first.structuredContent.budget).toEqual({ used: 1, cap: 3, remaining: 2 });
    const list = (await toolList(tenant, key, sessionId)).body;
    expect(list.entries.map((e: { tool_id: string }) => e.tool_id)).toContain(MERGE);
    const resolved = await call("POST", sessionPath(tenant, sessionId, "/resolve"), {
      token: key,
      body: { name: "github__merge_pull_request" },
    });
    expect(resolved.status).toBe(200);

    // The same announcement again (a client that repeats it on every call): nothing more is ranked or started.
    const again = await callTool(
      client,
      "tool_describe",
      { tool_id: MERGE },
      { turn: 1, message: "Please merge pull request 42" },
    );
    expect(again.isError).toBeFalsy();
    expect(again._meta?.["tool-search/turn"]).toEqual({ turn: 1, suggested: [] });

    // The next turn's message, without a number: it starts the next turn; the number form still works after it.
    const next = await callTool(
      client,
      "tool_describe",
      { tool_id: "mail::send_email" },
      { message: "send an email to the team" },
    );
    expect(next._meta?.["tool-search/turn"]).toMatchObject({ turn: 2, suggested: [{ tool_id: "mail::send_email" }] });
    const numbered = await callTool(client, "tool_search", { query: "weather" }, 3);
    expect(numbered.isError).toBeFalsy();
    expect(numbered._meta).toBeUndefined();
    const state = await call("GET", sessionPath(tenant, sessionId), { token: key });
    expect(state.body).toMatchObject({ turn: 3, budget: { used: 1 } });
    expect(state.body.activated.slice(0, 2)).toEqual([MERGE, "mail::send_email"]);
    await client.close();
  });

  it("the tool_describe of a suggested tool in its turn credits the message's words, like a resolve", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const { client } = await connect(tenant, key);
    await callTool(client, "tool_describe", { tool_id: MERGE }, { turn: 1, message: "merge pull request 9" });
    const r = await call("GET", `/v1/tenants/${tenant}/learned?tool_id=${encodeURIComponent(MERGE)}`, { token: key });
    expect(r.body.credits).toBe(1);
    expect(r.body.terms.map((t: { term: string }) => t.term).sort()).toEqual(["merg", "pull", "request"]);
    await client.close();
  });

  it("a bad announcement is a tool error, and the call does nothing", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const { client, sessionId } = await connect(tenant, key);
    const bad = [
      {},
      { message: 42 },
      { turn: 0, message: "merge" },
      { message: "merge", suggest: { max: -1 } },
      { turn: 2, extra: 1 },
      [],
      "two",
    ];
    for (const turn of bad) {
      const r = await callTool(client, "tool_search", { query: "merge pull request" }, turn);
      expect(r.isError, JSON.stringify(turn)).toBe(true);
      expect(r.structuredContent.error).toBe("invalid-request");
    }
    const state = await call("GET", sessionPath(tenant, sessionId), { token: key });
    expect(state.body).toMatchObject({ turn: 1, activated: [], budget: { used: 0 } });
    await client.close();
  });
});
