import { describe, expect, it } from "vitest";
import { call, mcpTool } from "../helpers.ts";
import { tenantWithCatalog } from "./session-helpers.ts";

const bytes = (s: string) => new TextEncoder().encode(s).length;

describe("the deferred list", () => {
  it("gives one `server::tool: description` line per deferred tool, as JSON or text/plain by Accept", async () => {
    const { tenant, key } = await tenantWithCatalog({}, [
      { server: "fs", ...mcpTool("read_file", "Read a file.\nReturns its text.") },
      { server: "fs", ...mcpTool("stat", "") },
      { server: "core", ...mcpTool("ask_user", "Ask the user", {}, { defer: "never" }) },
    ]);
    const json = await call("GET", `/v1/tenants/${tenant}/catalog/deferred`, { token: key });
    expect(json.status, json.text).toBe(200);
    expect(json.body).toEqual({
      revision: 1,
      tools: [
        { tool_id: "fs::read_file", line: "fs::read_file: Read a file. Returns its text.", truncated: false },
        { tool_id: "fs::stat", line: "fs::stat", truncated: false },
      ],
      next_cursor: null,
    });
    const text = await call("GET", `/v1/tenants/${tenant}/catalog/deferred`, {
      token: key,
      headers: { accept: "text/plain" },
    });
    expect(text.status).toBe(200);
    expect(text.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(text.text).toBe("fs::read_file: Read a file. Returns its text.\nfs::stat\n");
  });

  it("cuts descriptions to at most 1,024 bytes of UTF-8, never inside a character", async () => {
    const euro = `ab${"€".repeat(400)}`; // 1,202 bytes; the '€' at bytes 1,022-1,024 straddles the cut
    const emoji = "😀".repeat(300); // 1,200 bytes; byte 1,024 starts a character
    const short = "ü".repeat(512); // exactly 1,024 bytes: kept whole
    const { tenant, key } = await tenantWithCatalog({}, [
      { server: "m", ...mcpTool("euro", euro) },
      { server: "m", ...mcpTool("emoji", emoji) },
      { server: "m", ...mcpTool("exact", short) },
    ]);
    const r = await call("GET", `/v1/tenants/${tenant}/catalog/deferred`, { token: key });
    const byId = Object.fromEntries(
      r.body.tools.map((t: { tool_id: string; line: string; truncated: boolean }) => [t.tool_id, t]),
    );
    const description = (id: string) => byId[id].line.slice(`${id}: `.length) as string;
    expect(description("m::euro")).toBe(`ab${"€".repeat(340)}`);
    expect(bytes(description("m::euro"))).toBe(1022);
    expect(byId["m::euro"].truncated).toBe(true);
    expect(description("m::emoji")).toBe("😀".repeat(256));
    expect(bytes(description("m::emoji"))).toBe(1024);
    expect(description("m::exact")).toBe(short);
    expect(byId["m::exact"].truncated).toBe(false);
    for (const t of r.body.tools) expect(t.line).not.toContain("\uFFFD");
  });

  it("pages by cursor, in text mode through X-Next-Cursor", async () => {
    const tools = Array.from({ length: 5 }, (_, i) => ({ server: "p", ...mcpTool(`t${i}`, `tool ${i}`) }));
    const { tenant, key } = await tenantWithCatalog({}, tools);
    const first = await call("GET", `/v1/tenants/${tenant}/catalog/deferred?limit=2`, {
      token: key,
      headers: { accept: "text/plain" },
    });
    expect(first.text).toBe("p::t0: tool 0\np::t1: tool 1\n");
    const cursor = first.headers.get("x-next-cursor")!;
    const second = await call("GET", `/v1/tenants/${tenant}/catalog/deferred?limit=10&cursor=${cursor}`, {
      token: key,
    });
    expect(second.body.tools.map((t: { tool_id: string }) => t.tool_id)).toEqual(["p::t2", "p::t3", "p::t4"]);
    expect(second.body.next_cursor).toBeNull();
  });
});

/** A catalog of `n` deferrable tools, each about the same size. */
function tools(n: number, server = "svc") {
  return Array.from({ length: n }, (_, i) => ({
    server,
    ...mcpTool(`operation_${i}`, `Performs operation number ${i} on the service and returns its result`, {
      target: { type: "string", description: "What the operation acts on" },
    }),
  }));
}

async function plan(tenant: string, key: string, body: Record<string, unknown>) {
  const r = await call("POST", `/v1/tenants/${tenant}/plan`, { token: key, body });
  if (r.status !== 200) throw new Error(`plan: ${r.status} ${r.text}`);
  return r.body;
}

describe("the plan: whether to turn tool search on", () => {
  it("reports token counts from a real tokenizer, also on GET .../catalog", async () => {
    const { tenant, key } = await tenantWithCatalog({}, [
      { server: "a", ...mcpTool("hello", "hello world") },
      { server: "a", ...mcpTool("always", "always here", {}, { defer: "never" }) },
    ]);
    const p = await plan(tenant, key, { context_window: 200_000 });
    expect(p.tokenizer).toBe("cl100k_base");
    expect(p.tools).toEqual({ total: 2, always_loaded: 1, deferred: 1 });
    // {"name":"a__hello","description":"hello world","input_schema":{"type":"object","properties":{}}}: 96 characters,
    // 23 cl100k_base tokens ('{"', 'name', '":"', 'a', '__', 'hello', '","', 'description', ...).
    expect(p.tokens.deferred_definitions).toBe(23);
    expect(p.tokens.catalog).toBe(p.tokens.always_loaded + p.tokens.deferred_definitions);
    expect(p.tokens.with_search).toBe(p.tokens.always_loaded + p.tokens.tool_search + p.tokens.deferred_list);
    expect(p.tokens.saving).toBe(p.tokens.catalog - p.tokens.with_search);
    const catalog = await call("GET", `/v1/tenants/${tenant}/catalog`, { token: key });
    expect(catalog.body).toMatchObject({ tools: 2, always_loaded: 1, deferred: 1 });
    expect(catalog.body.tokens).toEqual({
      tokenizer: "cl100k_base",
      catalog: p.tokens.catalog,
      always_loaded: p.tokens.always_loaded,
      deferred_definitions: p.tokens.deferred_definitions,
      deferred_list: p.tokens.deferred_list,
    });
  });

  it("is off under min_tools deferrable tools and considers the thresholds from min_tools on", async () => {
    const { tenant, key } = await tenantWithCatalog({}, tools(30));
    const at30 = await plan(tenant, key, { context_window: 1000, min_tools: 30 });
    expect(at30).toMatchObject({ enabled: true, reason: "over-min-pct" });
    const under = await plan(tenant, key, { context_window: 1000, min_tools: 31 });
    expect(under).toMatchObject({ enabled: false, reason: "below-min-tools" });
    // The tenant default is 30; 29 tools stay under it.
    const small = await tenantWithCatalog({}, tools(29));
    expect(await plan(small.tenant, small.key, { context_window: 1000 })).toMatchObject({
      enabled: false,
      reason: "below-min-tools",
    });
  });

  it("turns on just above min_pct of the context window and stays off at or below it", async () => {
    const { tenant, key } = await tenantWithCatalog({ plan: { min_tokens: 10_000_000 } }, tools(40));
    const tokens = (await plan(tenant, key, { context_window: 1_000_000 })).tokens.deferred_definitions as number;
    // 5 % of a window of 20 x tokens is exactly `tokens`: not more than 5 %, so off.
    expect(await plan(tenant, key, { context_window: tokens * 20 })).toMatchObject({
      enabled: false,
      reason: "under-thresholds",
    });
    expect(await plan(tenant, key, { context_window: tokens * 20 - 20 })).toMatchObject({
      enabled: true,
      reason: "over-min-pct",
    });
  });

  it("turns on just above min_tokens and stays off at it", async () => {
    const { tenant, key } = await tenantWithCatalog({ plan: { min_pct: 100 } }, tools(40));
    const tokens = (await plan(tenant, key, { context_window: 1_000_000 })).tokens.deferred_definitions as number;
    expect(await plan(tenant, key, { context_window: 1_000_000, min_tokens: tokens })).toMatchObject({
      enabled: false,
      reason: "under-thresholds",
    });
    expect(await plan(tenant, key, { context_window: 1_000_000, min_tokens: tokens - 1 })).toMatchObject({
      enabled: true,
      reason: "over-min-tokens",
    });
  });

  it("is forced on by min_pct 0 and min_tokens 0, and stays off when nothing can be deferred", async () => {
    const { tenant, key } = await tenantWithCatalog({ plan: { min_pct: 0, min_tokens: 0 } }, tools(3));
    expect(await plan(tenant, key, { context_window: 10_000_000 })).toMatchObject({ enabled: true, reason: "forced" });
    const patched = await call("PATCH", `/v1/tenants/${tenant}/settings`, {
      token: key,
      body: { default_defer: "never" },
    });
    expect(patched.status).toBe(200);
    expect(await plan(tenant, key, { context_window: 10_000_000 })).toMatchObject({
      enabled: false,
      reason: "nothing-to-defer",
    });
  });

  it("follows catalog changes (counts are cached per tool content)", async () => {
    const { tenant, key } = await tenantWithCatalog({}, tools(2));
    const before = await plan(tenant, key, { context_window: 100_000 });
    await call("POST", `/v1/tenants/${tenant}/tools`, {
      token: key,
      body: {
        tools: [
          {
            server: "svc",
            ...mcpTool("operation_0", "A much longer description than before, with many more words in it to count"),
          },
        ],
      },
    });
    await call("DELETE", `/v1/tenants/${tenant}/tools/svc::operation_1`, { token: key });
    const after = await plan(tenant, key, { context_window: 100_000 });
    expect(after.tools.total).toBe(1);
    expect(after.tokens.catalog).not.toBe(before.tokens.catalog);
  });

  it("rejects a missing or invalid context_window", async () => {
    const { tenant, key } = await tenantWithCatalog();
    for (const body of [{}, { context_window: 0 }, { context_window: "big" }]) {
      const r = await call("POST", `/v1/tenants/${tenant}/plan`, { token: key, body });
      expect(r.status).toBe(400);
    }
  });
});
