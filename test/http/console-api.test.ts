/**
 * What the console reads, through the API alone: the catalog doctor on a planted catalog (each planted fault reported
 * with its code, a clean tool with none), and usage from the query log (a no-match query shows, log_queries false
 * keeps counts but no text, budget refusals are counted, searches write the log in batches, not each on its own), what
 * learning from use has added, and the explanation's parts per field that the playground stacks.
 */
import { env } from "cloudflare:workers";
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, mcpTool, search, tenantWithKey, upsert } from "../helpers.ts";
import { newSession, resolve, sessionSearch, tenantWithCatalog } from "./session-helpers.ts";

const ISSUE = "Create a new issue in a repository, with a title, a body and labels";
const PLANTED = [
  { server: "notes", ...mcpTool("scratch", "") },
  { server: "github", ...mcpTool("create_issue", ISSUE, { title: { type: "string", description: "Issue title" } }) },
  { server: "gitlab", ...mcpTool("create_issue", ISSUE, { title: { type: "string", description: "Issue title" } }) },
  { server: "misc", ...mcpTool("do_it", "Does it for you.") },
  {
    server: "files",
    ...mcpTool("read_file", "Read the complete contents of a text file from the local disk", {
      path: { type: "string" },
      encoding: { type: "string", description: "Text encoding, utf-8 by default" },
    }),
  },
  { server: "files", ...mcpTool("list_dir", "List dir.") },
  {
    server: "weather",
    ...mcpTool("get_forecast", "Get the weather forecast for a city for the next seven days", {
      city: { type: "string", description: "City name" },
    }),
  },
  { server: "calc", ...mcpTool("a.b", "Add two numbers together and return their sum") },
  { server: "calc", ...mcpTool("a_b", "Subtract one number from another and return the difference") },
  {
    server: "docs",
    ...mcpTool("style_guide", Array.from({ length: 700 }, (_, i) => `rule${i}`).join(" ")),
  },
];

const stub = (tenant: string) => env.TENANTS.get(env.TENANTS.idFromName(tenant));

describe("GET /v1/tenants/{t}/doctor", () => {
  it("reports each planted fault with its code and the tool it concerns, and nothing for clean tools", async () => {
    const { tenant, key } = await tenantWithKey();
    expect((await upsert(tenant, key, PLANTED)).status).toBe(200);
    const r = await call("GET", `/v1/tenants/${tenant}/doctor`, { token: key });
    expect(r.status, r.text).toBe(200);
    const found = (r.body.findings as { code: string; tool_id: string; other?: string; params?: string[] }[]).map(
      (f) => `${f.code} ${f.tool_id}${f.other ? ` ${f.other}` : ""}${f.params ? ` ${f.params.join(",")}` : ""}`,
    );
    expect(found).toContain("description-empty notes::scratch");
    expect(found).toContain("near-duplicate github::create_issue gitlab::create_issue");
    expect(found).toContain("unreachable misc::do_it");
    expect(found).toContain("param-undocumented files::read_file path");
    expect(found).toContain("description-copies-name files::list_dir");
    expect(found).toContain("description-long docs::style_guide");
    expect(found).toContain("model-name-clash calc::a.b calc::a_b");
    // The clean ones: no finding names them.
    expect(found.filter((f) => f.includes("weather::get_forecast"))).toEqual([]);
    expect(r.body).toMatchObject({ tools: PLANTED.length, threshold: 1.5, max_results: 5, more: false });
    expect(r.body.counts["near-duplicate"]).toBe(1);
    // Errors come first.
    expect(r.body.findings[0].severity).toBe("error");

    const one = await call("GET", `/v1/tenants/${tenant}/doctor?code=unreachable&limit=1`, { token: key });
    expect(one.body.findings.map((f: { code: string }) => f.code)).toEqual(["unreachable"]);
    const bad = await call("GET", `/v1/tenants/${tenant}/doctor?code=nope`, { token: key });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe("invalid-request");
  });

  it("follows the catalog: a fixed tool is no longer reported", async () => {
    const { tenant, key } = await tenantWithKey();
    await upsert(tenant, key, [PLANTED[0], PLANTED[6]]);
    const before = await call("GET", `/v1/tenants/${tenant}/doctor`, { token: key });
    expect(before.body.counts["description-empty"]).toBe(1);
    await upsert(tenant, key, [{ server: "notes", ...mcpTool("scratch", "Keep a scratch note for the current task") }]);
    const after = await call("GET", `/v1/tenants/${tenant}/doctor`, { token: key });
    expect(after.body.counts["description-empty"]).toBeUndefined();
  });
});

describe("GET /v1/tenants/{t}/usage", () => {
  it("shows a no-match query, counts searches, lookups and budget refusals per day", async () => {
    const { tenant, key } = await tenantWithKey();
    await upsert(tenant, key, PLANTED);
    expect((await search(tenant, key, { query: "weather forecast for Paris" })).body.results.length).toBeGreaterThan(0);
    const miss = await search(tenant, key, { query: "open a zendesk ticket" });
    expect(miss.body.results).toEqual([]);
    await search(tenant, key, { query: "open a zendesk ticket" });
    await search(tenant, key, { tool_id: "files::read_file" });
    await call("POST", `/v1/tenants/${tenant}/sessions`, { token: key, body: { session_id: "s", budget_cap: 1 } });
    await search(tenant, key, { query: "read a file", session_id: "s" });
    expect((await search(tenant, key, { query: "read a file", session_id: "s" })).status).toBe(429);

    const r = await call("GET", `/v1/tenants/${tenant}/usage`, { token: key });
    expect(r.status, r.text).toBe(200);
    expect(r.body.totals).toEqual({ searches: 4, no_match: 2, no_match_share: 0.5, lookups: 1, budget_exhausted: 1 });
    expect(r.body.days).toHaveLength(30);
    expect(r.body.days.at(-1)).toMatchObject({ day: r.body.to, searches: 4, no_match: 2, budget_exhausted: 1 });
    expect(r.body.top_no_match).toEqual([
      expect.objectContaining({ query: "open a zendesk ticket", count: 2, chars: 21 }),
    ]);
    expect(r.body.never_returned.tools).toContain("misc::do_it");
    expect(r.body.never_returned.tools).not.toContain("weather::get_forecast");
    expect(r.body.never_returned.tools).not.toContain("files::read_file");
    expect(r.body.log_queries).toBe(true);
  });

  it("with log_queries false keeps counts but no text, and turning it off forgets the texts kept", async () => {
    const { tenant, key } = await tenantWithKey();
    await search(tenant, key, { query: "open a zendesk ticket" });
    const patched = await call("PATCH", `/v1/tenants/${tenant}/settings`, { token: key, body: { log_queries: false } });
    expect(patched.body.log_queries).toBe(false);
    await search(tenant, key, { query: "send a fax to the office" });
    const r = await call("GET", `/v1/tenants/${tenant}/usage`, { token: key });
    expect(r.body.totals).toMatchObject({ searches: 2, no_match: 2 });
    expect(r.body.top_no_match).toEqual([]);
    expect(r.body.log_queries).toBe(false);
    const texts = await runInDurableObject(stub(tenant), (_o, state) =>
      state.storage.sql.exec(`SELECT query FROM query_log`).toArray(),
    );
    expect(texts).toEqual([]);
  });

  it("a search writes no log row itself: the alarm writes the batch", async () => {
    const { tenant, key } = await tenantWithKey();
    const rows = () =>
      runInDurableObject(stub(tenant), (_o, state) => ({
        log: state.storage.sql.exec(`SELECT COUNT(*) AS n FROM query_log`).one().n,
        days: state.storage.sql.exec(`SELECT COUNT(*) AS n FROM usage_days`).one().n,
      }));
    for (const q of ["one", "two", "three"]) await search(tenant, key, { query: q });
    expect(await rows()).toEqual({ log: 0, days: 0 });
    expect(await runDurableObjectAlarm(stub(tenant))).toBe(true);
    expect(await rows()).toEqual({ log: 3, days: 1 });
  });

  it("refuses a bad range with invalid-request", async () => {
    const { tenant, key } = await tenantWithKey();
    for (const query of [
      "from=2026-02-30",
      "from=2026-03-02&to=2026-03-01",
      "from=2020-01-01&to=2026-01-01",
      "top=0",
    ]) {
      const r = await call("GET", `/v1/tenants/${tenant}/usage?${query}`, { token: key });
      expect(r.status, query).toBe(400);
      expect(r.body.error).toBe("invalid-request");
    }
    const ok = await call("GET", `/v1/tenants/${tenant}/usage?from=2026-03-01&to=2026-03-03`, { token: key });
    expect(ok.body.days.map((d: { day: string }) => d.day)).toEqual(["2026-03-01", "2026-03-02", "2026-03-03"]);
  });
});

describe("what the console draws from search and learning", () => {
  type Term = { term: string; via?: string; score: number; tf: Record<string, number>; parts: Record<string, number> };

  it("explain splits each term's part across the fields that hold it, adding up to the term's part", async () => {
    const { tenant, key } = await tenantWithKey();
    await upsert(tenant, key, PLANTED);
    const r = await search(tenant, key, { query: "read the contents of a text file", explain: true, threshold: 0 });
    expect(r.body.results.length).toBeGreaterThan(0);
    for (const result of r.body.results) {
      const terms: Term[] = result.explain.terms;
      for (const t of terms) {
        // A part for each field the term occurs in, and none for the others.
        expect(Object.keys(t.parts).sort()).toEqual(Object.keys(t.tf).sort());
        const sum = Object.values(t.parts).reduce((n, v) => n + v, 0);
        expect(Math.abs(sum - t.score)).toBeLessThanOrEqual(0.0001 * Object.keys(t.parts).length);
      }
    }
    const read = r.body.results.find((x: { tool_id: string }) => x.tool_id === "files::read_file");
    const file: Term = read.explain.terms.find((t: Term) => t.term === "file");
    // "file" is in the tool's name, its server's name and its description: each has a part of its own.
    expect(Object.keys(file.parts).sort()).toEqual(["description", "name", "server"]);
    for (const part of Object.values(file.parts)) expect(part).toBeGreaterThan(0);
  });

  it("usage says what learning added, and the learned words are the explanation's usage part", async () => {
    const { tenant, key } = await tenantWithCatalog({ builtin_synonyms: false });
    const before = await call("GET", `/v1/tenants/${tenant}/usage`, { token: key });
    expect(before.body.learning).toEqual({ learn_from_use: true, tools: 0, terms: 0, credits: 0, most_credited: [] });

    const id = await newSession(tenant, key, { budget_cap: 10 });
    expect((await sessionSearch(tenant, key, id, { query: "open a PR" })).status).toBe(200);
    expect((await sessionSearch(tenant, key, id, { tool_id: "github::merge_pull_request" })).status).toBe(200);
    expect((await resolve(tenant, key, id, "github::merge_pull_request")).status).toBe(200);

    const after = await call("GET", `/v1/tenants/${tenant}/usage`, { token: key });
    expect(after.body.learning).toMatchObject({ learn_from_use: true, tools: 1, terms: 2, credits: 1 });
    expect(after.body.learning.most_credited).toEqual([
      { tool_id: "github::merge_pull_request", credits: 1, last_credit_at: expect.any(String) },
    ]);
    const found = await search(tenant, key, { query: "open a PR", threshold: 0, explain: true });
    const terms: Term[] = found.body.results[0].explain.terms;
    for (const t of terms) expect(Object.keys(t.parts)).toEqual(["usage"]);
  });
});
