import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { call } from "../helpers.ts";
import { newSession, sessionPath, sessionSearch, tenantStub, tenantWithCatalog } from "./session-helpers.ts";

/** Rows left in the session tables for this tenant. */
async function sessionRows(
  tenant: string,
): Promise<{ sessions: number; activations: number; tools: number; alarm: number | null }> {
  return runInDurableObject(tenantStub(tenant), async (_instance, state) => {
    const n = (table: string) => state.storage.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`).one().n;
    return {
      sessions: n("sessions"),
      activations: n("session_activations"),
      tools: n("session_tools"),
      alarm: await state.storage.getAlarm(),
    };
  });
}

// The Worker, its Durable Objects and the tests share one isolate: a fake clock moves theirs too.
afterEach(() => {
  vi.useRealTimers();
});

describe("session expiry through the Durable Object alarm", () => {
  it("plans the alarm for the session's expiry and ends the session when it fires after the TTL", async () => {
    const { tenant, key } = await tenantWithCatalog();
    vi.useFakeTimers({ toFake: ["Date"] });
    const id = await newSession(tenant, key, {
      ttl_seconds: 60,
      tools: [{ name: "page_read", description: "Read", inputSchema: { type: "object" } }],
    });
    await sessionSearch(tenant, key, id, { tool_id: "fs::read_file" });
    const state = await call("GET", sessionPath(tenant, id), { token: key });
    const expiresAt = Date.parse(state.body.expires_at);
    // Let the catalog snapshot alarm (2 s after the upload) run first. It also writes the query log's batch (the
    // lookup above), and having written some, comes back once more in case searches keep coming (query-log.ts).
    vi.setSystemTime(Date.now() + 5_000);
    expect(await runDurableObjectAlarm(tenantStub(tenant))).toBe(true);
    expect((await sessionRows(tenant)).alarm).toBe(Date.now() + 5_000);
    // With nothing more to write, it re-plans itself for the session.
    vi.setSystemTime(Date.now() + 5_000);
    expect(await runDurableObjectAlarm(tenantStub(tenant))).toBe(true);
    let rows = await sessionRows(tenant);
    expect(rows).toEqual({ sessions: 1, activations: 1, tools: 1, alarm: expiresAt });

    vi.setSystemTime(expiresAt + 1_000);
    expect(await runDurableObjectAlarm(tenantStub(tenant))).toBe(true);
    rows = await sessionRows(tenant);
    // No session left: the alarm's next duty is the catalog history's retention, when the upload's revision (the
    // successor of the tenant's creation) leaves the age window (history_max_age_days, 30).
    const revisions = (await call("GET", `/v1/tenants/${tenant}/catalog/revisions`, { token: key })).body.revisions;
    const upload = revisions.find((r: { revision: number }) => r.revision === 1);
    const pruneAt = Date.parse(upload.at) + 30 * 24 * 3600 * 1000 + 1;
    expect(rows).toEqual({ sessions: 0, activations: 0, tools: 0, alarm: pruneAt });
    const gone = await call("GET", sessionPath(tenant, id), { token: key });
    expect(gone.status).toBe(404);
  });

  it(
    "keeps a session that was used since: each call extends it, and the alarm re-plans for " + "the next expiry",
    async () => {
      const { tenant, key } = await tenantWithCatalog();
      vi.useFakeTimers({ toFake: ["Date"] });
      const id = await newSession(tenant, key, { ttl_seconds: 60 });
      await newSession(tenant, key, { ttl_seconds: 300 });
      vi.setSystemTime(Date.now() + 50_000);
      const used = await call("GET", sessionPath(tenant, id), { token: key }); // extends it to now + 60 s
      const extended = Date.parse(used.body.expires_at);
      vi.setSystemTime(Date.now() + 15_000); // past the first expiry, before the extended one
      expect(await runDurableObjectAlarm(tenantStub(tenant))).toBe(true);
      expect((await call("GET", sessionPath(tenant, id), { token: key })).status).toBe(200);
      const rows = await sessionRows(tenant);
      expect(rows.sessions).toBe(2);
      expect(rows.alarm).toBe(extended); // the earliest expiry left
    },
  );

  it("is safe to run again: a repeated alarm changes nothing and fails nothing", async () => {
    const { tenant, key } = await tenantWithCatalog();
    vi.useFakeTimers({ toFake: ["Date"] });
    const keep = await newSession(tenant, key, { ttl_seconds: 600 });
    const drop = await newSession(tenant, key, { ttl_seconds: 60 });
    vi.setSystemTime(Date.now() + 120_000);
    const stub = tenantStub(tenant);
    for (let i = 0; i < 3; i++)
      await runInDurableObject(stub, (instance: { alarm(): Promise<void> }) => instance.alarm());
    const rows = await sessionRows(tenant);
    expect(rows.sessions).toBe(1);
    expect((await call("GET", sessionPath(tenant, keep), { token: key })).status).toBe(200);
    expect((await call("GET", sessionPath(tenant, drop), { token: key })).status).toBe(404);
  });

  it("treats a session past its expiry as gone even before the alarm runs", async () => {
    const { tenant, key } = await tenantWithCatalog();
    vi.useFakeTimers({ toFake: ["Date"] });
    const id = await newSession(tenant, key, { ttl_seconds: 60 });
    vi.setSystemTime(Date.now() + 61_000);
    const r = await sessionSearch(tenant, key, id, { query: "issues" });
    expect(r.status).toBe(404);
    expect((await sessionRows(tenant)).sessions).toBe(0);
    // The id is free again.
    expect((await call("POST", sessionPath(tenant), { token: key, body: { session_id: id } })).status).toBe(201);
  });

  it("still writes the index snapshot from the same alarm", async () => {
    const { tenant } = await tenantWithCatalog();
    await runDurableObjectAlarm(tenantStub(tenant));
    const current = await runInDurableObject(tenantStub(tenant), (_i, state) => {
      const get = (k: string) =>
        state.storage.sql.exec<{ value: string }>(`SELECT value FROM meta WHERE key = ?`, k).toArray()[0]?.value;
      return get("snapshot_revision") === get("revision");
    });
    expect(current).toBe(true);
  });
});
