/**
 * Every limit of src/config/limits.ts, exceeded. This project runs with small LIMITS (TEST_LIMITS in
 * vitest.config.ts), the way a deployment overrides them. Each case checks the refusal names its
 * limit (`limit`, `max`), has the documented status, and wrote nothing; the retention limits of the
 * audit trail check what is kept instead. A limit without a case fails the first test.
 */
import { env } from "cloudflare:workers";
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config/env.ts";
import { LIMIT_NAMES, limitInfo, limitsTable, type LimitName } from "../../src/config/limits.ts";
import reliabilityDoc from "../../docs/reliability.md?raw";
import { call, createKey, mcpTool, OPERATOR, tenantWithKey, upsert, type Reply } from "../helpers.ts";
import { BackupChecksum } from "../../src/contract/backup.ts";
import { send, stateFingerprint } from "../routes.ts";

const limits = loadConfig(env).limits;

interface Tenant {
  tenant: string;
  key: string;
}

type Case =
  /** `setup` brings the tenant to the edge of the limit; `request` then goes over it. */
  | { kind: "refusal"; setup?: (t: Tenant) => Promise<void>; request: (t: Tenant) => Promise<Reply> }
  /** A limit that refuses nothing (retention, oldest dropped, rest counted): `run` checks what is kept. */
  | { kind: "bound"; run: (t: Tenant) => Promise<void> };

const tool = (name: string, extra: Record<string, unknown> = {}) => ({
  server: "s",
  ...mcpTool(name, "A tool"),
  ...extra,
});
const tools = (n: number, server = "s") =>
  Array.from({ length: n }, (_, i) => ({ server, ...mcpTool(`t${i}`, `Tool ${i}`) }));
const path = (t: Tenant, rest: string) => `/v1/tenants/${t.tenant}${rest}`;
const post = (t: Tenant, rest: string, body: unknown) => call("POST", path(t, rest), { token: t.key, body });
const get = (t: Tenant, rest: string) => call("GET", path(t, rest), { token: t.key });

function nestedSchema(depth: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: "string" };
  for (let i = 1; i < depth; i++) schema = { type: "object", properties: schema };
  return schema;
}

async function auditEntries(t: Tenant): Promise<{ seq: number; action: string }[]> {
  const stub = env.TENANTS.get(env.TENANTS.idFromName(t.tenant));
  return runInDurableObject(stub, (_o, state) =>
    state.storage.sql.exec<{ seq: number; action: string }>(`SELECT seq, action FROM audit_log ORDER BY seq`).toArray(),
  );
}

const CASES: Record<LimitName, Case> = {
  max_body_bytes: {
    kind: "refusal",
    request: async (t) => {
      // Without a declared length (a stream), reading stops as soon as the body passes the limit.
      const stream = await call("POST", path(t, "/tools"), {
        token: t.key,
        raw: "x".repeat(limits.max_body_bytes + 1),
        headers: { "content-type": "application/x-ndjson", "transfer-encoding": "chunked" },
      });
      expect(stream.status).toBe(413);
      return upsert(t.tenant, t.key, [
        tool("big", { keywords: ["x"], _meta: { pad: "x".repeat(limits.max_body_bytes) } }),
      ]);
    },
  },
  max_json_depth: {
    kind: "refusal",
    request: (t) =>
      call("POST", path(t, "/search"), {
        token: t.key,
        raw: `{"query":"x","deep":${"[".repeat(limits.max_json_depth)}${"]".repeat(limits.max_json_depth)}}`,
        headers: { "content-type": "application/json" },
      }),
  },
  max_tools_per_batch: {
    kind: "refusal",
    request: async (t) => {
      // NDJSON is read no further than the limit plus one line: what follows (here junk) is never looked at.
      const lines = tools(limits.max_tools_per_batch + 1).map((x) => JSON.stringify(x));
      const ndjson = await call("POST", path(t, "/tools"), {
        token: t.key,
        raw: `${lines.join("\n")}\n${"not json\n".repeat(1_000)}`,
        headers: { "content-type": "application/x-ndjson" },
      });
      expect(ndjson.status, ndjson.text).toBe(413);
      expect(ndjson.body).toMatchObject({ limit: "max_tools_per_batch" });
      return upsert(t.tenant, t.key, tools(limits.max_tools_per_batch + 1));
    },
  },
  max_listed_errors: {
    kind: "bound",
    run: async (t) => {
      const before = await stateFingerprint(t.tenant);
      const over = limits.max_listed_errors + 3;
      const bad = Array.from({ length: over }, (_, i) => ({ server: "s", name: `bad${i}`, inputSchema: "nope" }));
      const batch = await upsert(t.tenant, t.key, bad);
      expect(batch.status).toBe(400);
      expect(batch.body.items).toHaveLength(limits.max_listed_errors);
      expect(batch.body.not_listed).toBe(3);
      expect(batch.body.message).toContain(`${over} of ${over} tools are invalid`);
      const ndjson = await call("POST", path(t, "/tools"), {
        token: t.key,
        raw: "junk\n".repeat(over),
        headers: { "content-type": "application/x-ndjson" },
      });
      expect(ndjson.status).toBe(400);
      expect(ndjson.body.lines).toHaveLength(limits.max_listed_errors);
      expect(ndjson.body.not_listed).toBe(3);
      const validation = await post(t, "/sessions", {
        budget_cap: "x",
        ttl_seconds: "y",
        turn_idle_seconds: "z",
        deferred_tool_loading: 1,
        inline: ["!", "?"],
      });
      expect(validation.status).toBe(400);
      expect(validation.body.issues).toHaveLength(limits.max_listed_errors);
      expect(validation.body.not_listed).toBeGreaterThan(0);
      expect(await stateFingerprint(t.tenant), "a refusal wrote").toBe(before);
    },
  },
  // Counted in bytes of UTF-8: "é" is two of them.
  max_description_bytes: {
    kind: "refusal",
    request: (t) =>
      upsert(t.tenant, t.key, [{ server: "s", ...mcpTool("d", "é".repeat(limits.max_description_bytes / 2 + 1)) }]),
  },
  max_title_chars: {
    kind: "refusal",
    request: (t) => upsert(t.tenant, t.key, [tool("t", { title: "x".repeat(limits.max_title_chars + 1) })]),
  },
  max_schema_bytes: {
    kind: "refusal",
    request: (t) =>
      upsert(t.tenant, t.key, [
        {
          server: "s",
          name: "big_schema",
          inputSchema: { type: "object", description: "x".repeat(limits.max_schema_bytes) },
        },
      ]),
  },
  max_schema_depth: {
    kind: "refusal",
    request: (t) =>
      upsert(t.tenant, t.key, [{ server: "s", name: "deep", inputSchema: nestedSchema(limits.max_schema_depth + 1) }]),
  },
  max_keywords: {
    kind: "refusal",
    request: (t) =>
      upsert(t.tenant, t.key, [
        tool("k", { keywords: Array.from({ length: limits.max_keywords + 1 }, (_, i) => `k${i}`) }),
      ]),
  },
  max_keyword_chars: {
    kind: "refusal",
    request: (t) => upsert(t.tenant, t.key, [tool("k", { keywords: ["x".repeat(limits.max_keyword_chars + 1)] })]),
  },
  max_query_chars: {
    kind: "refusal",
    request: (t) => post(t, "/search", { query: "x".repeat(limits.max_query_chars + 1) }),
  },
  max_query_terms: {
    kind: "bound",
    run: async (t) => {
      const common = "alpha bravo charlie";
      const batch = [
        tool("target", { description: `${common} delta echo` }),
        ...["a", "b", "c"].map((n) => tool(n, { description: common })),
      ];
      expect((await upsert(t.tenant, t.key, batch)).status).toBe(200);
      // Six distinct words, twice the bound's share for words: the rarest in the catalog are kept (delta and echo,
      // in one tool), then the query's order decides among equals (alpha); a word no tool has informs nothing.
      const r = await post(t, "/search", { query: `foxtrot ${common} delta echo`, explain: true, threshold: 0 });
      expect(r.status, r.text).toBe(200);
      const target = r.body.results.find((x: { name: string }) => x.name === "target");
      const terms = target.explain.terms.map((x: { term: string }) => x.term);
      expect(terms.length).toBeLessThanOrEqual(limits.max_query_terms);
      expect(terms.filter((x: string) => !x.includes(" ")).sort()).toEqual(["alpha", "delta", "echo"]);
    },
  },
  max_results: {
    kind: "refusal",
    request: (t) => post(t, "/search", { query: "tool", max_results: limits.max_results + 1 }),
  },
  max_page_size: {
    kind: "refusal",
    request: async (t) => {
      const audit = await get(t, `/audit?limit=${limits.max_page_size + 1}`);
      expect(audit.body.limit).toBe("max_page_size");
      return get(t, `/tools?limit=${limits.max_page_size + 1}`);
    },
  },
  max_deferred_page: {
    kind: "refusal",
    request: (t) => get(t, `/catalog/deferred?limit=${limits.max_deferred_page + 1}`),
  },
  max_export_page: {
    kind: "refusal",
    request: (t) => get(t, `/catalog/export?format=anthropic&limit=${limits.max_export_page + 1}`),
  },
  max_tools_per_tenant: {
    kind: "refusal",
    setup: async (t) => {
      expect((await upsert(t.tenant, t.key, tools(limits.max_tools_per_batch, "a"))).status).toBe(200);
    },
    request: (t) => upsert(t.tenant, t.key, tools(limits.max_tools_per_tenant - limits.max_tools_per_batch + 1, "b")),
  },
  max_servers_per_tenant: {
    kind: "refusal",
    setup: async (t) => {
      const servers = Array.from({ length: limits.max_servers_per_tenant }, (_, i) => ({
        server: `srv${i}`,
        ...mcpTool("x", "X"),
      }));
      expect((await upsert(t.tenant, t.key, servers)).status).toBe(200);
    },
    // An empty server counts too: a replacement with no tools creates one.
    request: (t) => call("PUT", path(t, "/servers/one_more/tools"), { token: t.key, body: { tools: [] } }),
  },
  max_keys_per_tenant: {
    kind: "refusal",
    setup: async (t) => {
      const active = (await get(t, "/keys")).body.keys.length as number;
      for (let i = active; i < limits.max_keys_per_tenant; i++) await createKey(t.tenant, ["search"]);
    },
    request: (t) => call("POST", path(t, "/keys"), { token: OPERATOR, body: { scopes: ["search"] } }),
  },
  max_label_chars: {
    kind: "refusal",
    request: (t) => post(t, "/keys", { scopes: ["search"], label: "x".repeat(limits.max_label_chars + 1) }),
  },
  max_sessions_per_tenant: {
    kind: "refusal",
    setup: async (t) => {
      // The operator's sessions count toward the tenant's quota only, not toward any key's.
      for (let i = 0; i < limits.max_sessions_per_tenant; i++)
        expect((await call("POST", path(t, "/sessions"), { token: OPERATOR, body: {} })).status).toBe(201);
    },
    request: (t) => post(t, "/sessions", {}),
  },
  max_sessions_per_key: {
    kind: "refusal",
    setup: async (t) => {
      for (let i = 0; i < limits.max_sessions_per_key; i++) expect((await post(t, "/sessions", {})).status).toBe(201);
      // Another key of the tenant is not held back by this one's sessions.
      const other = await createKey(t.tenant, ["search"]);
      const theirs = await call("POST", path(t, "/sessions"), { token: other, body: {} });
      expect(theirs.status).toBe(201);
      expect((await call("DELETE", path(t, `/sessions/${theirs.body.session_id}`), { token: other })).status).toBe(204);
    },
    request: (t) => post(t, "/sessions", {}),
  },
  max_synonyms: {
    kind: "refusal",
    request: (t) =>
      call("PUT", path(t, "/synonyms"), {
        token: t.key,
        body: {
          synonyms: Object.fromEntries(
            Array.from({ length: limits.max_synonyms + 1 }, (_, i) => [`key${i}`, ["value"]]),
          ),
        },
      }),
  },
  max_synonym_expansions: {
    kind: "refusal",
    request: (t) =>
      call("PUT", path(t, "/synonyms"), {
        token: t.key,
        body: { synonyms: { repo: Array.from({ length: limits.max_synonym_expansions + 1 }, (_, i) => `word${i}`) } },
      }),
  },
  max_session_tools: {
    kind: "refusal",
    request: (t) =>
      post(t, "/sessions", {
        tools: Array.from({ length: limits.max_session_tools + 1 }, (_, i) => mcpTool(`c${i}`, "Client tool")),
      }),
  },
  max_inline_tools: {
    kind: "refusal",
    request: (t) =>
      post(t, "/sessions", { inline: Array.from({ length: limits.max_inline_tools + 1 }, (_, i) => `s::t${i}`) }),
  },
  max_activated_tools: {
    kind: "bound",
    run: async (t) => {
      const topics = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"];
      const catalog = topics.map((w) => ({ server: "s", ...mcpTool(`${w}_tool`, `Handles ${w} things`) }));
      expect((await upsert(t.tenant, t.key, catalog.slice(0, 5))).status).toBe(200);
      expect((await upsert(t.tenant, t.key, catalog.slice(5))).status).toBe(200);
      const session = (await post(t, "/sessions", { budget_cap: 20 })).body.session_id as string;
      const order: string[] = [];
      for (const w of [...topics, "alpha", "charlie"]) {
        const found = await post(t, "/search", { query: w, session_id: session, max_results: 1 });
        expect(found.status, found.text).toBe(200);
        const id = found.body.results[0].tool_id as string;
        if (!order.includes(id)) order.push(id);
        const state = (await get(t, `/sessions/${session}`)).body;
        expect(state.activated.length).toBeLessThanOrEqual(limits.max_activated_tools);
        // What the search found is active, whatever was dropped for it.
        expect(state.activated).toContain(id);
      }
      const state = (await get(t, `/sessions/${session}`)).body;
      expect(state.activated).toHaveLength(limits.max_activated_tools);
      // The oldest activations went first: of the eight found in turn, the last five stayed; alpha and charlie,
      // found again after being dropped, came back as the newest.
      expect(state.activated).toEqual([
        "s::foxtrot_tool",
        "s::golf_tool",
        "s::hotel_tool",
        "s::alpha_tool",
        "s::charlie_tool",
      ]);
      const found = await post(t, "/search", { query: "delta", session_id: session, max_results: 1 });
      expect(found.body.deactivated).toEqual(["s::foxtrot_tool"]);
      expect(() => loadConfig({ LIMITS: JSON.stringify({ max_results: 10, max_activated_tools: 5 }) })).toThrow(
        ConfigError,
      );
    },
  },
  // The setting; a turn's suggest.max and the setting at the bound: test/limits/suggest-limit.test.ts.
  max_suggestions: {
    kind: "refusal",
    request: (t) =>
      call("PATCH", path(t, "/settings"), { token: t.key, body: { suggest_max: limits.max_suggestions + 1 } }),
  },
  audit_max_entries: {
    kind: "bound",
    run: async (t) => {
      const writes = limits.audit_max_entries + 5;
      for (let i = 0; i < writes; i++) {
        expect(
          (await call("PATCH", path(t, "/settings"), { token: t.key, body: { default_max_results: 1 + (i % 5) } }))
            .status,
        ).toBe(200);
      }
      const entries = await auditEntries(t);
      const others = entries.filter((e) => !e.action.startsWith("key."));
      expect(others).toHaveLength(limits.audit_max_entries);
      // The newest are the ones kept: the last write's entry is there, the tenant's creation is gone...
      expect(entries.at(-1)!.action).toBe("settings.update");
      expect(entries.some((e) => e.action === "tenant.create")).toBe(false);
      // ...but however many other changes a key makes, its creation stays.
      expect(entries.filter((e) => e.action === "key.create")).toHaveLength(1);
    },
  },
  audit_max_age_days: {
    kind: "bound",
    run: async (t) => {
      const stub = env.TENANTS.get(env.TENANTS.idFromName(t.tenant));
      const old = Date.now() - (limits.audit_max_age_days * 24 + 1) * 3600 * 1000;
      await runInDurableObject(stub, (_o, state) => {
        state.storage.sql.exec(`UPDATE audit_log SET at = ?`, old);
      });
      const before = (await auditEntries(t)).length;
      expect(before).toBeGreaterThan(0);
      expect((await call("PATCH", path(t, "/settings"), { token: t.key, body: { search_budget: 4 } })).status).toBe(
        200,
      );
      // Key events have an age limit of their own (audit_key_max_age_days), which this one is within.
      expect((await auditEntries(t)).map((e) => e.action)).toEqual(["key.create", "settings.update"]);
    },
  },
  audit_max_key_entries: {
    kind: "bound",
    run: async (t) => {
      const cycles = limits.audit_max_key_entries; // each cycle writes two key events
      for (let i = 0; i < cycles; i++) {
        const key = await createKey(t.tenant, ["search"]);
        expect((await call("DELETE", path(t, `/keys/${key.split("_")[2]}`), { token: OPERATOR })).status).toBe(204);
      }
      const entries = await auditEntries(t);
      const keyEvents = entries.filter((e) => e.action.startsWith("key."));
      expect(keyEvents).toHaveLength(limits.audit_max_key_entries);
      expect(keyEvents.at(-1)!.action).toBe("key.revoke");
      // Other entries are not pushed out by key events.
      expect(entries.some((e) => e.action === "tenant.create")).toBe(true);
    },
  },
  audit_key_max_age_days: {
    kind: "bound",
    run: async (t) => {
      const stub = env.TENANTS.get(env.TENANTS.idFromName(t.tenant));
      const ageOf = (days: number) => Date.now() - (days * 24 + 1) * 3600 * 1000;
      await runInDurableObject(stub, (_o, state) => {
        state.storage.sql.exec(`UPDATE audit_log SET at = ?`, ageOf(limits.audit_key_max_age_days));
      });
      expect((await createKey(t.tenant, ["search"])).startsWith("tsk_")).toBe(true);
      expect((await auditEntries(t)).map((e) => e.action)).toEqual(["key.create"]);
    },
  },
  // Three tools, two of them without a word of their own: those two are the ones checked (and found unreachable).
  doctor_reach_checks: {
    kind: "bound",
    run: async (t) => {
      await upsert(t.tenant, t.key, [
        tool("do_it", { description: "Does it for you." }),
        tool("do_that", { description: "Does that for them." }),
        tool("forecast", { description: "Weather forecast for a city" }),
      ]);
      const r = await get(t, "/doctor");
      expect(r.body.reach).toEqual({ checked: limits.doctor_reach_checks, of: 3 });
      const unreachable = r.body.findings.filter((f: { code: string }) => f.code === "unreachable");
      expect(unreachable.map((f: { tool_id: string }) => f.tool_id).sort()).toEqual(["s::do_it", "s::do_that"]);
    },
  },
  // Planted rows just inside and just outside the age; the next write of the log (here: reading usage) drops the
  // ones outside, rows and days alike, and keeps the ones inside.
  query_log_max_age_days: {
    kind: "bound",
    run: async (t) => {
      const day = 24 * 3600 * 1000;
      const edge = Date.now() - limits.query_log_max_age_days * day;
      const today = Math.floor(Date.now() / day);
      const oldestDay = Math.floor(edge / day);
      await runInDurableObject(env.TENANTS.get(env.TENANTS.idFromName(t.tenant)), (_o, state) => {
        const sql = state.storage.sql;
        sql.exec(`INSERT INTO query_log (at, query, chars, results) VALUES (?, 'inside', 6, 0)`, edge + 60_000);
        sql.exec(`INSERT INTO query_log (at, query, chars, results) VALUES (?, 'outside', 7, 0)`, edge - 60_000);
        for (const d of [oldestDay, oldestDay - 1]) sql.exec(`INSERT INTO usage_days VALUES (?, 1, 1, 0, 0)`, d);
      });
      expect((await post(t, "/search", { query: "anything" })).status).toBe(200);
      const usage = await get(t, `/usage?from=${iso(oldestDay - 1)}&to=${iso(today)}`);
      expect(usage.status, usage.text).toBe(200);
      expect(usage.body.top_no_match.map((q: { query: string }) => q.query).sort()).toEqual(["anything", "inside"]);
      expect(usage.body.days[0]).toMatchObject({ day: iso(oldestDay - 1), searches: 0 });
      expect(usage.body.days[1]).toMatchObject({ day: iso(oldestDay), searches: 1 });
    },
  },
  query_log_max_entries: {
    kind: "bound",
    run: async (t) => {
      const sent = limits.query_log_max_entries + 3;
      for (let i = 0; i < sent; i++) expect((await post(t, "/search", { query: `query ${i}` })).status).toBe(200);
      const usage = await get(t, "/usage?top=100");
      expect(usage.body.totals.searches, "counts are not bounded by the log's rows").toBe(sent);
      const kept = (usage.body.top_no_match as { query: string }[]).map((q) => q.query);
      expect(kept).toHaveLength(limits.query_log_max_entries);
      expect(kept).toContain(`query ${sent - 1}`);
      expect(kept).not.toContain("query 0");
    },
  },
  query_log_text_chars: {
    kind: "bound",
    run: async (t) => {
      const query = "é".repeat(limits.query_log_text_chars - 1) + "😀".repeat(5);
      expect((await post(t, "/search", { query })).status).toBe(200);
      const [logged] = (await get(t, "/usage")).body.top_no_match;
      // Cut at the limit, never inside the emoji's surrogate pair; the full length is kept.
      expect(logged).toMatchObject({ query: "é".repeat(limits.query_log_text_chars - 1), chars: query.length });
    },
  },
  history_max_revisions: {
    kind: "bound",
    run: async (t) => {
      const writes = limits.history_max_revisions + 2;
      for (let i = 0; i < writes; i++) expect((await upsert(t.tenant, t.key, [tool(`h${i}`)])).status).toBe(200);
      await ringAlarm(t);
      // The newest history_max_revisions revisions are kept, the older ones and their before-images are gone.
      const oldest = writes - limits.history_max_revisions + 1;
      const revisions = (await get(t, "/catalog/revisions")).body;
      expect(revisions).toMatchObject({ current_revision: writes, oldest_revision: oldest });
      expect(revisions.revisions).toHaveLength(limits.history_max_revisions);
      expect(await historyRows(t)).toEqual(Array.from({ length: writes - oldest }, (_, i) => oldest + 1 + i));
      const gone = await post(t, "/catalog/rollback", { revision: oldest - 1 });
      expect(gone.status).toBe(410);
      expect(gone.body).toMatchObject({ error: "gone", oldest_revision: oldest });
      const back = await post(t, "/catalog/rollback", { revision: oldest });
      expect(back.body).toMatchObject({ rolled_back_to: oldest, removed: writes - oldest });
    },
  },
  // The body of a restore: a backup of one byte more than the bound (the exact bound restores: a test below).
  max_restore_bytes: {
    kind: "refusal",
    request: async (t) => restoreBody(t.tenant, await backupOfSize(limits.max_restore_bytes + 1)),
  },
  history_max_age_days: {
    kind: "bound",
    run: async (t) => {
      for (let i = 0; i < 3; i++) expect((await upsert(t.tenant, t.key, [tool(`a${i}`)])).status).toBe(200);
      // Revisions 0-2 were made two windows ago, revision 3 now: revision 2 was the live catalog until just now, so
      // it is kept; 0 and 1 were not live at any moment within the window.
      const old = Date.now() - 2 * limits.history_max_age_days * 24 * 3600 * 1000;
      const stub = env.TENANTS.get(env.TENANTS.idFromName(t.tenant));
      await runInDurableObject(stub, (_o, state) => {
        state.storage.sql.exec(`UPDATE catalog_revisions SET at = ? WHERE revision < 3`, old);
      });
      await ringAlarm(t);
      expect((await get(t, "/catalog/revisions")).body).toMatchObject({ current_revision: 3, oldest_revision: 2 });
      expect((await post(t, "/catalog/rollback", { revision: 1 })).status).toBe(410);
      expect((await post(t, "/catalog/rollback", { revision: 2 })).body).toMatchObject({ removed: 1 });
      // Once every revision is older than the window, only the current one is kept.
      await runInDurableObject(stub, (_o, state) => {
        state.storage.sql.exec(`UPDATE catalog_revisions SET at = ?`, old);
      });
      await ringAlarm(t);
      expect((await get(t, "/catalog/revisions")).body).toMatchObject({ current_revision: 4, oldest_revision: 4 });
      expect(await historyRows(t)).toEqual([]);
    },
  },
};

const iso = (day: number) => new Date(day * 24 * 3600 * 1000).toISOString().slice(0, 10);

/** A valid backup of a one-tool tenant, made exactly `bytes` long by spaces inside its settings line. */
async function backupOfSize(bytes: number): Promise<string> {
  const t = await tenantWithKey();
  expect((await upsert(t.tenant, t.key, [tool("one")])).status).toBe(200);
  const text = (await call("GET", path(t, "/backup"), { token: t.key })).text;
  const [header, ...lines] = text.trimEnd().split("\n");
  const size = (ls: string[]) => new TextEncoder().encode(`${[header, ...ls].join("\n")}\n`).length;
  const pad = bytes - size(lines);
  expect(pad).toBeGreaterThanOrEqual(0);
  const padded = lines.map((l) => (l.startsWith('{"type":"settings"') ? `{${" ".repeat(pad)}${l.slice(1)}` : l));
  const checksum = new BackupChecksum();
  for (const l of padded) checksum.add(l);
  const out = `${[JSON.stringify({ ...JSON.parse(header!), checksum: checksum.digest() }), ...padded].join("\n")}\n`;
  expect(new TextEncoder().encode(out).length).toBe(bytes);
  return out;
}

function restoreBody(tenant: string, body: string): Promise<Reply> {
  return send({ method: "POST", path: `/v1/tenants/${tenant}/restore`, token: OPERATOR, body });
}

/** Runs the tenant's alarm now (a catalog write has planned one). */
async function ringAlarm(t: Tenant): Promise<void> {
  const stub = env.TENANTS.get(env.TENANTS.idFromName(t.tenant));
  expect(await runDurableObjectAlarm(stub)).toBe(true);
}

/** The revisions that have before-images in the history, each once, in order. */
async function historyRows(t: Tenant): Promise<number[]> {
  const stub = env.TENANTS.get(env.TENANTS.idFromName(t.tenant));
  return runInDurableObject(stub, (_o, state) =>
    state.storage.sql
      .exec<{ revision: number }>(`SELECT DISTINCT revision FROM tool_history ORDER BY revision`)
      .toArray()
      .map((r) => r.revision),
  );
}

describe("limits", () => {
  it("every limit has a case here, and docs/reliability.md holds the table of all of them", () => {
    expect(Object.keys(CASES).sort()).toEqual([...LIMIT_NAMES].sort());
    expect(reliabilityDoc).toContain(limitsTable());
  });

  for (const name of LIMIT_NAMES) {
    const test = CASES[name];
    it(`${name} (${limits[name]})`, async () => {
      const t = await tenantWithKey();
      const { refusal } = limitInfo(name);
      expect(test.kind, "the case is of the kind the limits table declares").toBe(
        /^\d/.test(refusal) ? "refusal" : "bound",
      );
      if (test.kind === "bound") return test.run(t);
      await test.setup?.(t);
      const before = await stateFingerprint(t.tenant);
      const r = await test.request(t);
      const [status, code] = refusal.split(" ");
      expect(r.status, r.text).toBe(Number(status));
      expect(r.body).toMatchObject({ error: code, limit: name, max: limits[name] });
      expect(r.body.message).toContain(name);
      expect(await stateFingerprint(t.tenant), "a refusal wrote").toBe(before);
    });
  }

  it("max_restore_bytes: a backup of exactly the bound restores; one byte more is refused, streamed too", async () => {
    const exact = await backupOfSize(limits.max_restore_bytes);
    const fresh = `r-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    const restored = await restoreBody(fresh, exact);
    expect(restored.status, restored.text).toBe(201);
    expect(restored.body.restored).toMatchObject({ tools: 1 });
    // Streamed (no Content-Length): refused once the bytes read pass the bound, with nothing written.
    const over = new TextEncoder().encode(await backupOfSize(limits.max_restore_bytes + 1));
    const other = `r-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    const before = await stateFingerprint(other);
    const streamed = await send({
      method: "POST",
      path: `/v1/tenants/${other}/restore`,
      token: OPERATOR,
      body: new ReadableStream({
        start(c) {
          for (let i = 0; i < over.length; i += 1000) c.enqueue(over.slice(i, i + 1000));
          c.close();
        },
      }),
    });
    expect(streamed.status, streamed.text).toBe(413);
    expect(streamed.body).toMatchObject({ error: "payload-too-large", limit: "max_restore_bytes" });
    expect(await stateFingerprint(other)).toBe(before);
    expect((await call("GET", `/v1/tenants/${other}/catalog`, { token: OPERATOR })).status).toBe(404);
  });

  it("a key revoked to make room frees its place at once; revoked keys are kept up to the same number", async () => {
    const t = await tenantWithKey();
    const extra = [];
    for (let i = 1; i < limits.max_keys_per_tenant; i++) extra.push(await createKey(t.tenant, ["search"]));
    expect((await call("POST", path(t, "/keys"), { token: OPERATOR, body: { scopes: ["search"] } })).status).toBe(409);
    for (let round = 0; round < limits.max_keys_per_tenant + 2; round++) {
      const victim = extra.shift()!;
      expect((await call("DELETE", path(t, `/keys/${victim.split("_")[2]}`), { token: OPERATOR })).status).toBe(204);
      expect((await call("GET", path(t, "/catalog"), { token: victim })).status).toBe(401);
      extra.push(await createKey(t.tenant, ["search"]));
    }
    const keys = (await get(t, "/keys")).body.keys as { revoked_at: string | null }[];
    expect(keys.filter((k) => k.revoked_at === null)).toHaveLength(limits.max_keys_per_tenant);
    expect(keys.filter((k) => k.revoked_at !== null)).toHaveLength(limits.max_keys_per_tenant);
  });

  it("LIMITS is validated where it enters: an unknown or invalid entry is a configuration error", () => {
    expect(() => loadConfig({ LIMITS: '{"max_nope": 1}' })).toThrow(ConfigError);
    expect(() => loadConfig({ LIMITS: '{"max_results": 0}' })).toThrow(ConfigError);
    expect(() => loadConfig({ LIMITS: "not json" })).toThrow(ConfigError);
    expect(loadConfig({ LIMITS: '{"max_results": 7}' }).limits).toMatchObject({
      max_results: 7,
      max_query_chars: 32_768,
    });
  });
});
