/**
 * Learning from use through the API, against real Durable Objects: a session's searches are credited to the tool it
 * resolves; the caps, decay and pruning, forgetting, the setting, isolation, eviction and snapshots, catalog changes,
 * MCP's tool_describe, and the routes' refusals.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SESSION_CREDITS, TOOL_TERMS } from "../../src/search/learning.ts";
import { ToolIndex } from "../../src/search/tool-index.ts";
import { stem } from "../../src/search/tokenizer.ts";
import { call, createKey, search, upsert } from "../helpers.ts";
import {
  CATALOG,
  newSession,
  resolve,
  sessionPath,
  sessionSearch,
  tenantStub,
  tenantWithCatalog,
} from "./session-helpers.ts";

const MERGE = "github::merge_pull_request";
const DAY_MS = 24 * 3600 * 1000;

afterEach(() => {
  vi.useRealTimers();
});

/** A session that searches each query in one turn, then resolves `tool` (searched by id if none found it). */
async function learn(tenant: string, key: string, queries: string[], tool = MERGE): Promise<string> {
  const id = await newSession(tenant, key, { budget_cap: 10 });
  let active = false;
  for (const query of queries) {
    const found = await sessionSearch(tenant, key, id, { query });
    expect(found.status, found.text).toBe(200);
    if (found.body.results.some((r: { tool_id: string }) => r.tool_id === tool)) active = true;
  }
  if (!active) expect((await sessionSearch(tenant, key, id, { tool_id: tool })).status).toBe(200);
  const resolved = await resolve(tenant, key, id, tool);
  expect(resolved.status, resolved.text).toBe(200);
  return id;
}

async function learned(tenant: string, key: string, toolId = MERGE) {
  const r = await call("GET", `/v1/tenants/${tenant}/learned?tool_id=${encodeURIComponent(toolId)}`, { token: key });
  expect(r.status, r.text).toBe(200);
  return r.body as { tool_id: string; credits: number; terms: { term: string; weight: number; tf: number }[] };
}

/**
 * A tenant with the demo catalog of the session tests. The built-in thesaurus is off where a test needs words no tool
 * matches before learning ("open a PR" finds the pull-request tools through it); the tests that compare rankings
 * keep the defaults.
 */
const NO_THESAURUS = { builtin_synonyms: false };

const QUERIES = ["open a PR", "merge pull request", "review the PR", "read a file", "weather in Paris", "pr"];

/** Every query's answer at threshold 0, with explanations: scores, order, terms, idf. */
async function answers(tenant: string, key: string) {
  const out = [];
  for (const query of QUERIES)
    out.push((await search(tenant, key, { query, threshold: 0, max_results: 9, explain: true })).body.results);
  return out;
}

describe("learning from use", () => {
  it("credits the words of a turn's searches to the tool the session resolves, durably and searchably", async () => {
    const { tenant, key } = await tenantWithCatalog(NO_THESAURUS);
    const none = await search(tenant, key, { query: "open a PR", threshold: 0 });
    expect(none.body.results).toEqual([]);

    const session = await learn(tenant, key, ["open a PR", "merge pull request"]);
    const tool = await learned(tenant, key);
    expect(tool.credits).toBe(1);
    const expected = ["open", "pr", "merge", "pull", "request"].map(stem).sort();
    expect(tool.terms.map((t) => t.term).sort()).toEqual(expected);
    for (const t of tool.terms) expect(t).toMatchObject({ weight: 1, tf: 0.1699 });

    // Ending the session keeps what it taught.
    expect((await call("DELETE", sessionPath(tenant, session), { token: key })).status).toBe(204);
    expect(await learned(tenant, key)).toEqual(tool);
    const page = await call("GET", `/v1/tenants/${tenant}/learned`, { token: key });
    expect(page.body).toMatchObject({ tools: [{ tool_id: MERGE, credits: 1, term_count: 5 }], next_cursor: null });
    expect(page.body.tools[0].top_terms).toHaveLength(5);

    // Words the tool's own text lacks now find it, and explain says why: the usage field.
    const found = await search(tenant, key, { query: "open a PR", threshold: 0, explain: true });
    expect(found.body.results.map((r: { tool_id: string }) => r.tool_id)).toEqual([MERGE]);
    const explain = found.body.results[0].explain;
    expect(explain.fields).toEqual({ usage: ["open", "pr"] });
    expect(explain.terms.map((t: { tf: object }) => t.tf)).toEqual([{ usage: 0.1699 }, { usage: 0.1699 }]);
  });

  it("one session only hints; sessions that agree make the words find the tool at the default threshold", async () => {
    const { tenant, key } = await tenantWithCatalog(NO_THESAURUS);
    await learn(tenant, key, ["open a PR"]);
    const hinted = await search(tenant, key, { query: "open a PR" });
    expect(hinted.body.results).toEqual([]);
    for (let i = 1; i < 8; i++) await learn(tenant, key, ["open a PR"]);
    expect((await learned(tenant, key)).terms[0]).toMatchObject({ weight: 8, tf: 1 });
    const found = await search(tenant, key, { query: "open a PR" });
    expect(found.body.results.map((r: { tool_id: string }) => r.tool_id)).toEqual([MERGE]);
    expect(found.body.results[0].score).toBeGreaterThanOrEqual(found.body.threshold);
  });

  it("credits each (session, turn, tool) once, after a search in the turn, at most 16 times a session", async () => {
    const { tenant, key } = await tenantWithCatalog(NO_THESAURUS);
    const id = await newSession(tenant, key);
    // Resolving with no search in the turn credits nothing.
    expect((await resolve(tenant, key, id, "core__ask_user")).status).toBe(200);
    expect((await learned(tenant, key, "core::ask_user")).credits).toBe(0);

    await sessionSearch(tenant, key, id, { query: "merge pull request" });
    expect((await resolve(tenant, key, id, MERGE)).status).toBe(200);
    expect((await resolve(tenant, key, id, "github__merge_pull_request")).status).toBe(200);
    expect((await learned(tenant, key)).credits).toBe(1);
    // Another tool in the same turn is its own credit (an always-loaded one too).
    expect((await resolve(tenant, key, id, "core__ask_user")).status).toBe(200);
    expect((await learned(tenant, key, "core::ask_user")).credits).toBe(1);

    // Each new turn with a search may credit again, until the session has given SESSION_CREDITS credits.
    for (let turn = 2; turn <= SESSION_CREDITS + 4; turn++) {
      expect((await call("POST", sessionPath(tenant, id, "/turns"), { token: key, body: {} })).status).toBe(200);
      expect((await sessionSearch(tenant, key, id, { query: "land the change" })).status).toBe(200);
      expect((await resolve(tenant, key, id, MERGE)).status).toBe(200);
    }
    const merge = await learned(tenant, key);
    expect(merge.credits).toBe(SESSION_CREDITS - 1);
    // Repeats add up (each credit adds 1 to a word); they do not multiply a word.
    expect(merge.terms.find((t) => t.term === stem("land"))!.weight).toBe(SESSION_CREDITS - 2);
  });

  it("keeps a tool's strongest terms, at most TOOL_TERMS", async () => {
    const { tenant, key } = await tenantWithCatalog(NO_THESAURUS);
    const words = (prefix: string) =>
      Array.from({ length: 30 }, (_, i) => `${prefix}${String.fromCharCode(97 + Math.floor(i / 26), 97 + (i % 26))}`);
    await learn(tenant, key, [[...words("zq"), "shared"].join(" "), [...words("zx"), "shared"].join(" ")]);
    await learn(tenant, key, [[...words("zk"), "shared"].join(" ")]);
    const tool = await learned(tenant, key);
    expect(tool.terms).toHaveLength(TOOL_TERMS);
    expect(tool.terms[0]).toMatchObject({ term: "share", weight: 2 });
  });

  it("decays with the half-life; the alarm deletes what decayed away", async () => {
    const { tenant, key } = await tenantWithCatalog({ ...NO_THESAURUS, learn_half_life_days: 10 });
    await learn(tenant, key, ["open a PR"]);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 10 * DAY_MS);
    const halved = await learned(tenant, key);
    expect(halved.terms.find((t) => t.term === "pr")).toEqual({ term: "pr", weight: 0.5, tf: 0.0875 });
    const weaker = await search(tenant, key, { query: "open a PR", threshold: 0, explain: true });
    expect(weaker.body.results[0].explain.terms[0].tf).toEqual({ usage: 0.0875 });

    // Five half-lives more: below the floor, found by nothing, and pruned by the alarm.
    vi.setSystemTime(Date.now() + 50 * DAY_MS);
    expect((await learned(tenant, key)).terms).toEqual([]);
    expect((await search(tenant, key, { query: "open a PR", threshold: 0 })).body.results).toEqual([]);
    expect(await runDurableObjectAlarm(tenantStub(tenant))).toBe(true);
    const rows = await runInDurableObject(tenantStub(tenant), (_o, state) =>
      state.storage.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM learned_terms`).one(),
    );
    expect(rows.n).toBe(0);
    expect((await call("GET", `/v1/tenants/${tenant}/learned`, { token: key })).body.tools).toEqual([]);
  });

  it("DELETE /learned forgets it all: the ranking is a never-taught tenant's; other tenants never see it", async () => {
    const a = await tenantWithCatalog();
    const b = await tenantWithCatalog();
    const before = await answers(b.tenant, b.key);
    expect(await answers(a.tenant, a.key)).toEqual(before);

    await learn(a.tenant, a.key, ["open a PR"]);
    await learn(a.tenant, a.key, ["review the PR", "merge pull request"]);
    await learn(a.tenant, a.key, ["read a file"], "fs::write_file");
    await learn(a.tenant, a.key, ["weather in Paris"], "weather::get_forecast");
    expect(await answers(a.tenant, a.key)).not.toEqual(before);
    expect(await answers(b.tenant, b.key)).toEqual(before);

    const forgot = await call("DELETE", `/v1/tenants/${a.tenant}/learned`, { token: a.key });
    expect(forgot.status, forgot.text).toBe(200);
    expect(forgot.body).toEqual({ tools: 3, terms: 10 });
    expect(await answers(a.tenant, a.key)).toEqual(before);
    const audit = await call("GET", `/v1/tenants/${a.tenant}/audit?limit=1`, { token: a.key });
    expect(audit.body.entries[0]).toMatchObject({ action: "learned.reset", details: { tools: 3, terms: 10 } });
    // Also after a cold start: the snapshot (if any) and the rows agree that nothing is learned.
    await evictDurableObject(tenantStub(a.tenant));
    expect(await answers(a.tenant, a.key)).toEqual(before);
  });

  it("with learn_from_use false, sessions record and credit nothing; turned on again, they do", async () => {
    const off = await tenantWithCatalog({ learn_from_use: false });
    const plain = await tenantWithCatalog();
    const before = await answers(plain.tenant, plain.key);
    await learn(off.tenant, off.key, ["open a PR", "merge pull request"]);
    await learn(off.tenant, off.key, ["read a file"], "fs::write_file");
    expect((await call("GET", `/v1/tenants/${off.tenant}/learned`, { token: off.key })).body.tools).toEqual([]);
    const recorded = await runInDurableObject(tenantStub(off.tenant), (_o, state) =>
      state.storage.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM session_terms`).one(),
    );
    expect(recorded.n).toBe(0);
    expect(await answers(off.tenant, off.key)).toEqual(before);

    const on = await call("PATCH", `/v1/tenants/${off.tenant}/settings`, {
      token: off.key,
      body: { learn_from_use: true },
    });
    expect(on.body.learn_from_use).toBe(true);
    await learn(off.tenant, off.key, ["open a PR"]);
    expect((await learned(off.tenant, off.key)).credits).toBe(1);
  });

  // Three cold starts and a snapshot write: more than the default 5 s on a busy machine.
  it("survives eviction: from the rows, then from the snapshot, which holds the usage field", {
    timeout: 20_000,
  }, async () => {
    const { tenant, key } = await tenantWithCatalog();
    await learn(tenant, key, ["open a PR", "merge pull request"]);
    const taught = await answers(tenant, key);
    await evictDurableObject(tenantStub(tenant));
    expect(await answers(tenant, key)).toEqual(taught);

    // The alarm writes a snapshot with the learned state; a cold start then takes the usage field from it.
    expect(await runDurableObjectAlarm(tenantStub(tenant))).toBe(true);
    const inSnapshot = await runInDurableObject(tenantStub(tenant), (_o, state) => {
      const chunks = state.storage.sql
        .exec<{ data: ArrayBuffer }>(`SELECT data FROM snapshot_chunks ORDER BY seq`)
        .toArray()
        .map((r) => new Uint8Array(r.data));
      const bytes = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
      let at = 0;
      for (const c of chunks) {
        bytes.set(c, at);
        at += c.length;
      }
      return ToolIndex.restore(bytes).learnedTools;
    });
    expect(inSnapshot).toBe(1);
    await evictDurableObject(tenantStub(tenant));
    expect(await answers(tenant, key)).toEqual(taught);
    const catalog = await call("GET", `/v1/tenants/${tenant}/catalog`, { token: key });
    expect(catalog.body.index).toMatchObject({ source: "snapshot", learned: "snapshot" });

    // A credit after the snapshot: the next cold start keeps the snapshot's text and reloads the usage field.
    await learn(tenant, key, ["weather in Paris"], "weather::get_forecast");
    const more = await answers(tenant, key);
    expect(more).not.toEqual(taught);
    await evictDurableObject(tenantStub(tenant));
    expect(await answers(tenant, key)).toEqual(more);
    const reloaded = await call("GET", `/v1/tenants/${tenant}/catalog`, { token: key });
    expect(reloaded.body.index).toMatchObject({ source: "snapshot", learned: "rows" });
  });

  it("a deleted tool forgets what it learned; a server replace keeps it for the tools that remain", async () => {
    const { tenant, key } = await tenantWithCatalog(NO_THESAURUS);
    await learn(tenant, key, ["open a PR"]);
    await learn(tenant, key, ["show the bugs"], "github::list_issues");
    const kept = (await learned(tenant, key)).terms;

    const github = CATALOG.filter((t) => t.server === "github" && t.name !== "list_issues").map(
      ({ server: _, ...t }) => (t.name === "merge_pull_request" ? { ...t, description: "Merge a change" } : t),
    );
    const replaced = await call("PUT", `/v1/tenants/${tenant}/servers/github/tools`, {
      token: key,
      body: { tools: github },
    });
    expect(replaced.body).toMatchObject({ updated: 1, removed: 1 });
    expect((await learned(tenant, key)).terms).toEqual(kept);
    const gone = await call("GET", `/v1/tenants/${tenant}/learned?tool_id=github::list_issues`, { token: key });
    expect(gone.status).toBe(404);
    expect((await search(tenant, key, { query: "open a PR", threshold: 0 })).body.results[0].tool_id).toBe(MERGE);

    expect((await call("DELETE", `/v1/tenants/${tenant}/tools/${MERGE}`, { token: key })).status).toBe(200);
    expect((await call("GET", `/v1/tenants/${tenant}/learned`, { token: key })).body.tools).toEqual([]);
    expect((await upsert(tenant, key, [CATALOG.find((t) => t.name === "merge_pull_request")!])).status).toBe(200);
    expect((await learned(tenant, key)).terms).toEqual([]);
    expect((await search(tenant, key, { query: "open a PR", threshold: 0 })).body.results).toEqual([]);
  });

  it("counts tool_describe over MCP as use; a refused resolve credits nothing", async () => {
    const { tenant, key } = await tenantWithCatalog(NO_THESAURUS);
    const transport = new StreamableHTTPClientTransport(new URL(`http://tool-search.test/v1/tenants/${tenant}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
      fetch: (url, init) => exports.default.fetch(new Request(url, init)),
    });
    const client = new Client(
      { name: "learning-test", version: "1.0.0" },
      { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
    );
    await client.connect(transport);
    await client.callTool({ name: "tool_search", arguments: { query: "open a PR" } });
    const described = await client.callTool({ name: "tool_describe", arguments: { tool_id: MERGE } });
    expect(described.isError).toBeFalsy();
    expect((await learned(tenant, key)).terms.map((t) => t.term).sort()).toEqual(["open", "pr"]);

    // The session never found write_file: resolving it is refused and teaches nothing.
    const refused = await resolve(tenant, key, transport.sessionId!, "fs__write_file");
    expect(refused.status).toBe(409);
    expect((await learned(tenant, key, "fs::write_file")).credits).toBe(0);
    await client.close();
  });

  it("refuses what it cannot do, with a reason, and needs the admin scope", async () => {
    const { tenant, key } = await tenantWithCatalog(NO_THESAURUS);
    const path = `/v1/tenants/${tenant}/learned`;
    const unknown = await call("GET", `${path}?tool_id=github::nope`, { token: key });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe("not-found");
    expect((await call("GET", `${path}?cursor=garbage`, { token: key })).body.error).toBe("invalid-request");
    const both = await call("GET", `${path}?tool_id=${MERGE}&cursor=abc`, { token: key });
    expect(both.status).toBe(400);
    const searchKey = await createKey(tenant, ["search", "write"]);
    expect((await call("GET", path, { token: searchKey })).status).toBe(403);
    expect((await call("DELETE", path, { token: searchKey })).status).toBe(403);

    const settings = `/v1/tenants/${tenant}/settings`;
    for (const patch of [{ learn_half_life_days: 0 }, { learn_from_use: "yes" }, { field_weights: { usage: -1 } }]) {
      const r = await call("PATCH", settings, { token: key, body: patch });
      expect(r.status, JSON.stringify(patch)).toBe(400);
    }
    expect((await call("GET", settings, { token: key })).body).toMatchObject({
      learn_from_use: true,
      learn_half_life_days: 30,
      field_weights: {},
    });
    // The usage field's weight is a field weight like the others: 0 leaves learning out of the score.
    await learn(tenant, key, ["open a PR"]);
    await call("PATCH", settings, { token: key, body: { field_weights: { usage: 0 } } });
    expect((await search(tenant, key, { query: "open a PR", threshold: 0 })).body.results).toEqual([]);
  });

  it("pages the tools that learned something, by id", async () => {
    const { tenant, key } = await tenantWithCatalog(NO_THESAURUS);
    for (const tool of [MERGE, "fs::read_file", "mail::send_email"]) await learn(tenant, key, ["do the thing"], tool);
    const first = await call("GET", `/v1/tenants/${tenant}/learned?limit=2`, { token: key });
    expect(first.body.tools.map((t: { tool_id: string }) => t.tool_id)).toEqual(["fs::read_file", MERGE]);
    const next = await call("GET", `/v1/tenants/${tenant}/learned?limit=2&cursor=${first.body.next_cursor}`, {
      token: key,
    });
    expect(next.body).toMatchObject({ tools: [{ tool_id: "mail::send_email" }], next_cursor: null });
  });
});
