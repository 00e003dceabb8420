/**
 * Tenant lifecycle (issue 14): the registry behind GET /v1/tenants, DELETE /v1/tenants/{t} erasing everything, the
 * operator's audit trail outside the tenant, and the registry kept in step with the tenants' objects when a step is
 * interrupted.
 */
import { env } from "cloudflare:workers";
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { TenantObject } from "../../src/durable/tenant-object.ts";
import type { TenantRegistry } from "../../src/durable/registry.ts";
import { call, createTenant, mcpTool, OPERATOR, search, tenantWithKey, uniqueTenant, upsert } from "../helpers.ts";

const stubOf = (tenant: string) => env.TENANTS.get(env.TENANTS.idFromName(tenant));
const registry = () => env.REGISTRY.get(env.REGISTRY.idFromName("registry"));

/** Every listed tenant, following the cursor. */
async function listed(limit = 50): Promise<Map<string, Record<string, unknown>>> {
  const out = new Map<string, Record<string, unknown>>();
  let cursor: string | null = null;
  do {
    const page: { status: number; body: { tenants: { id: string }[]; next_cursor: string | null } } = await call(
      "GET",
      `/v1/tenants?limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`,
      { token: OPERATOR },
    );
    expect(page.status).toBe(200);
    for (const t of page.body.tenants) out.set(t.id, t);
    cursor = page.body.next_cursor;
  } while (cursor);
  return out;
}

/** What the tenant's object holds: its tables and their rows, and its alarm. */
async function storageOf(tenant: string): Promise<{ rows: number; alarm: number | null }> {
  return runInDurableObject(stubOf(tenant), async (_o, state) => {
    const sql = state.storage.sql;
    const tables = sql
      .exec<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)
      .toArray()
      .map((r) => r.name)
      .filter((n) => !n.startsWith("_cf") && n !== "_migrations");
    let rows = 0;
    for (const t of tables) rows += sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM "${t}"`).one().n;
    return { rows, alarm: await state.storage.getAlarm() };
  });
}

describe("GET /v1/tenants", () => {
  it("lists tenants by id, a page at a time, with creation, tools and last write", async () => {
    const ids = [await createTenant(uniqueTenant("ls")), await createTenant(uniqueTenant("ls"))];
    const all = await listed(2);
    for (const id of ids) expect(all.get(id)).toMatchObject({ id, tools: 0, revision: 0 });
    const sorted = [...all.keys()];
    expect(sorted).toEqual([...sorted].sort());
    const mine = all.get(ids[0]!)!;
    expect(new Date(mine.created_at as string).getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  it("shows a tenant's tools and last write once its alarm reports them", async () => {
    const { tenant, key } = await tenantWithKey();
    await upsert(tenant, key, [
      { server: "s", ...mcpTool("one", "A tool") },
      { server: "s", ...mcpTool("two", "B") },
    ]);
    expect(await runDurableObjectAlarm(stubOf(tenant))).toBe(true);
    const entry = (await listed()).get(tenant)!;
    expect(entry).toMatchObject({ tools: 2, revision: 1 });
    expect(entry.last_write_at).not.toBeNull();
  });

  it("is the operator's: keys and garbage are refused", async () => {
    const { key } = await tenantWithKey();
    expect((await call("GET", "/v1/tenants", { token: key })).status).toBe(403);
    expect((await call("GET", "/v1/tenants", { token: "nonsense" })).status).toBe(401);
    expect((await call("GET", "/v1/tenants")).status).toBe(401);
    expect((await call("GET", "/v1/tenants?cursor=zzz", { token: OPERATOR })).status).toBe(400);
  });
});

describe("DELETE /v1/tenants/{tenant}", () => {
  it("erases everything: then every route is 404, its keys 401, it is unlisted, and it comes back empty", async () => {
    const { tenant, key } = await tenantWithKey({ default_max_results: 7 });
    await upsert(tenant, key, [{ server: "s", ...mcpTool("read_file", "Read a file") }]);
    await call("PUT", `/v1/tenants/${tenant}/synonyms`, { token: key, body: { synonyms: { doc: ["file"] } } });
    await call("POST", `/v1/tenants/${tenant}/sessions`, { token: key, body: { session_id: "chat" } });
    await search(tenant, key, { query: "read file", session_id: "chat" });
    // The session resolves the tool it found: the tool learns the search's words (learning from use).
    const resolved = await call("POST", `/v1/tenants/${tenant}/sessions/chat/resolve`, {
      token: key,
      body: { name: "s::read_file" },
    });
    expect(resolved.status, resolved.text).toBe(200);
    expect((await call("GET", `/v1/tenants/${tenant}/learned`, { token: key })).body.tools).toHaveLength(1);
    expect(await runDurableObjectAlarm(stubOf(tenant))).toBe(true); // snapshot written, registry told
    expect((await listed()).has(tenant)).toBe(true);
    expect((await storageOf(tenant)).alarm).not.toBeNull(); // the session's expiry

    const deleted = await call("DELETE", `/v1/tenants/${tenant}`, { token: OPERATOR });
    expect(deleted.status, deleted.text).toBe(204);

    for (const path of ["/catalog", "/tools", "/keys", "/settings", "/sessions/chat", "/catalog/revisions"]) {
      const r = await call("GET", `/v1/tenants/${tenant}${path}`, { token: OPERATOR });
      expect(r.status, path).toBe(404);
      expect(r.body.error).toBe("not-found");
    }
    expect((await search(tenant, OPERATOR, { query: "read file" })).status).toBe(404);
    // The tenant's keys are gone with it.
    expect((await search(tenant, key, { query: "read file" })).status).toBe(401);
    expect((await call("GET", `/v1/tenants/${tenant}/catalog`, { token: key })).status).toBe(401);
    expect((await listed()).has(tenant)).toBe(false);
    expect(await storageOf(tenant)).toEqual({ rows: 0, alarm: null });
    // Deleting again: nothing left to delete.
    expect((await call("DELETE", `/v1/tenants/${tenant}`, { token: OPERATOR })).status).toBe(404);
    // The operator's trail outside the tenant has it.
    const audit = (await call("GET", "/v1/operator/audit?limit=50", { token: OPERATOR })).body.entries as {
      action: string;
      tenant: string;
      details: Record<string, unknown>;
    }[];
    expect(audit.find((e) => e.tenant === tenant && e.action === "tenant.delete")).toMatchObject({
      details: { tools: 1 },
    });
    expect(audit.find((e) => e.tenant === tenant && e.action === "tenant.create")).toBeDefined();

    // Created again: empty, default settings, no keys, no history, no sessions, listed.
    await createTenant(tenant);
    const catalog = await call("GET", `/v1/tenants/${tenant}/catalog`, { token: OPERATOR });
    expect(catalog.body).toMatchObject({ revision: 0, tools: 0, servers: [] });
    expect(catalog.body.history).toMatchObject({ revisions: 1, oldest_revision: 0 });
    expect((await call("GET", `/v1/tenants/${tenant}/keys`, { token: OPERATOR })).body.keys).toEqual([]);
    expect((await call("GET", `/v1/tenants/${tenant}/settings`, { token: OPERATOR })).body.default_max_results).toBe(5);
    expect((await call("GET", `/v1/tenants/${tenant}/synonyms`, { token: OPERATOR })).body.synonyms).toEqual({});
    expect((await call("GET", `/v1/tenants/${tenant}/sessions/chat`, { token: OPERATOR })).status).toBe(404);
    expect((await search(tenant, OPERATOR, { query: "read file" })).body.results).toEqual([]);
    expect((await search(tenant, key, { query: "read file" })).status).toBe(401);
    expect((await call("GET", `/v1/tenants/${tenant}/learned`, { token: OPERATOR })).body.tools).toEqual([]);
    const trail = (await call("GET", `/v1/tenants/${tenant}/audit`, { token: OPERATOR })).body.entries;
    expect(trail.map((e: { action: string }) => e.action)).toEqual(["tenant.create"]);
    expect((await listed()).get(tenant)).toMatchObject({ tools: 0 });
  });

  it("is the operator's alone, and a refused deletion changes nothing", async () => {
    const { tenant, key } = await tenantWithKey();
    await upsert(tenant, key, [{ server: "s", ...mcpTool("one", "A tool") }]);
    expect((await call("DELETE", `/v1/tenants/${tenant}`, { token: key })).status).toBe(403);
    const other = await tenantWithKey();
    expect((await call("DELETE", `/v1/tenants/${tenant}`, { token: other.key })).status).toBe(403);
    expect((await call("DELETE", `/v1/tenants/${tenant}`)).status).toBe(401);
    expect((await call("GET", `/v1/tenants/${tenant}/catalog`, { token: key })).body.tools).toBe(1);
    expect((await call("DELETE", `/v1/tenants/${uniqueTenant("never")}`, { token: OPERATOR })).status).toBe(404);
  });
});

describe("the registry kept in step", () => {
  it("a deletion interrupted after its intent is hidden at once and finished by the registry's alarm", async () => {
    const { tenant, key } = await tenantWithKey();
    await upsert(tenant, key, [{ server: "s", ...mcpTool("one", "A tool") }]);
    // The Worker recorded the intent, then died before erasing.
    await runInDurableObject(registry(), (r: TenantRegistry) => r.intendDelete(tenant));
    expect((await listed()).has(tenant)).toBe(false);
    // The alarm settles intents older than 30 s: age this one.
    await runInDurableObject(registry(), (_r, state) => {
      state.storage.sql.exec(`UPDATE tenants SET since = since - 60000 WHERE id = ?`, tenant);
    });
    expect(await runDurableObjectAlarm(registry())).toBe(true);
    expect((await call("GET", `/v1/tenants/${tenant}/catalog`, { token: OPERATOR })).status).toBe(404);
    expect((await call("GET", `/v1/tenants/${tenant}/catalog`, { token: key })).status).toBe(401);
    const audit = (await call("GET", "/v1/operator/audit", { token: OPERATOR })).body.entries;
    expect(audit.find((e: { tenant: string; action: string }) => e.tenant === tenant)).toMatchObject({
      action: "tenant.delete",
      details: { existed: true, tools: 1, finished_by: "repair" },
    });
  });

  it("a retried DELETE finishes a deletion interrupted after the erase (204, then 404)", async () => {
    const { tenant } = await tenantWithKey();
    await runInDurableObject(registry(), (r: TenantRegistry) => r.intendDelete(tenant));
    await runInDurableObject(stubOf(tenant), (o: TenantObject) => o.eraseTenant());
    expect((await call("DELETE", `/v1/tenants/${tenant}`, { token: OPERATOR })).status).toBe(204);
    expect((await call("DELETE", `/v1/tenants/${tenant}`, { token: OPERATOR })).status).toBe(404);
  });

  it("a creation interrupted after the tenant's object made it is listed once the alarm settles it", async () => {
    const tenant = uniqueTenant("half");
    await runInDurableObject(registry(), (r: TenantRegistry) => r.intendCreate(tenant));
    await runInDurableObject(stubOf(tenant), (o: TenantObject) => o.createTenant(tenant, {}));
    expect((await listed()).has(tenant)).toBe(false);
    // An intent whose creation never happened goes the same way, unlisted.
    const never = uniqueTenant("never");
    await runInDurableObject(registry(), (r: TenantRegistry) => r.intendCreate(never));
    await runInDurableObject(registry(), (_r, state) => {
      state.storage.sql.exec(`UPDATE tenants SET since = since - 60000 WHERE id IN (?, ?)`, tenant, never);
    });
    expect(await runDurableObjectAlarm(registry())).toBe(true);
    const all = await listed();
    expect(all.get(tenant)).toMatchObject({ tools: 0 });
    expect(all.has(never)).toBe(false);
    // A retried creation of the tenant that now exists is a 409 and keeps it listed.
    expect((await call("POST", "/v1/tenants", { token: OPERATOR, body: { id: tenant } })).status).toBe(409);
    expect((await listed()).has(tenant)).toBe(true);
  });

  it("a tenant the registry never heard of registers itself at its next alarm", async () => {
    const { tenant, key } = await tenantWithKey();
    await runInDurableObject(registry(), (_r, state) => {
      state.storage.sql.exec(`DELETE FROM tenants WHERE id = ?`, tenant);
    });
    expect((await listed()).has(tenant)).toBe(false);
    await upsert(tenant, key, [{ server: "s", ...mcpTool("one", "A tool") }]);
    expect(await runDurableObjectAlarm(stubOf(tenant))).toBe(true);
    expect((await listed()).get(tenant)).toMatchObject({ tools: 1, revision: 1 });
  });

  it("a refused creation (invalid settings) leaves no intent behind", async () => {
    const tenant = uniqueTenant("bad");
    const r = await call("POST", "/v1/tenants", {
      token: OPERATOR,
      body: { id: tenant, settings: { search_budget: 0 } },
    });
    expect(r.status).toBe(400);
    const rows = await runInDurableObject(registry(), (_r, state) =>
      state.storage.sql.exec(`SELECT state FROM tenants WHERE id = ?`, tenant).toArray(),
    );
    expect(rows).toEqual([]);
  });
});
