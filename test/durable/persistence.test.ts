/**
 * Persistence: rows are the truth, the index is restored from its snapshot when that matches the
 * catalog revision, and rebuilt from rows when the snapshot is missing, stale or damaged.
 */
import { env } from "cloudflare:workers";
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { TenantObject } from "../../src/durable/tenant-object.ts";
import { call, mcpTool, search, tenantWithKey, upsert } from "../helpers.ts";

const stubOf = (tenant: string) => env.TENANTS.get(env.TENANTS.idFromName(tenant));
const catalog = async (tenant: string, key: string) =>
  (await call("GET", `/v1/tenants/${tenant}/catalog`, { token: key })).body;

async function seeded() {
  const t = await tenantWithKey();
  const tools = Array.from({ length: 40 }, (_, i) => ({
    server: `s${i % 4}`,
    ...mcpTool(`tool_${i}`, i === 7 ? "Convert currencies at today's rate" : `Generic helper ${i}`),
  }));
  expect((await upsert(t.tenant, t.key, tools)).status).toBe(200);
  return t;
}

describe("after evictDurableObject", () => {
  it("keeps every acknowledged write and answers the same search", async () => {
    const { tenant, key } = await seeded();
    const before = await search(tenant, key, { query: "convert currency rate" });
    await evictDurableObject(stubOf(tenant));
    const after = await search(tenant, key, { query: "convert currency rate" });
    expect(after.body.results).toEqual(before.body.results);
    expect(after.body.results[0].tool_id).toBe("s3::tool_7");
    expect(await catalog(tenant, key)).toMatchObject({ revision: 1, tools: 40 });
  });

  it("restores the index from the snapshot written by the alarm", async () => {
    const { tenant, key } = await seeded();
    expect(await runDurableObjectAlarm(stubOf(tenant))).toBe(true);
    await evictDurableObject(stubOf(tenant));
    await search(tenant, key, { query: "currency" });
    expect((await catalog(tenant, key)).index).toMatchObject({ source: "snapshot", tools: 40 });
  });

  it("rebuilds from rows when the snapshot is older than the catalog", async () => {
    const { tenant, key } = await seeded();
    await runDurableObjectAlarm(stubOf(tenant));
    await upsert(tenant, key, [
      { server: "late", ...mcpTool("late_tool", "Added after the snapshot: translate speech") },
    ]);
    await evictDurableObject(stubOf(tenant));
    const r = await search(tenant, key, { query: "translate speech" });
    expect(r.body.results[0].tool_id).toBe("late::late_tool");
    expect((await catalog(tenant, key)).index).toMatchObject({
      source: "rebuild",
      reason: expect.stringContaining("older"),
    });
  });

  it("detects a damaged snapshot chunk by its checksum and rebuilds instead of serving it", async () => {
    const { tenant, key } = await seeded();
    await runDurableObjectAlarm(stubOf(tenant));
    await runInDurableObject(stubOf(tenant), (_o: TenantObject, state) => {
      const row = state.storage.sql.exec<{ data: ArrayBuffer }>("SELECT data FROM snapshot_chunks WHERE seq = 0").one();
      const bytes = new Uint8Array(row.data);
      bytes[bytes.length >> 1]! ^= 0xff;
      state.storage.sql.exec("UPDATE snapshot_chunks SET data = ? WHERE seq = 0", bytes);
    });
    await evictDurableObject(stubOf(tenant));
    const r = await search(tenant, key, { query: "convert currency rate" });
    expect(r.body.results[0].tool_id).toBe("s3::tool_7");
    expect((await catalog(tenant, key)).index).toMatchObject({
      source: "rebuild",
      reason: "snapshot chunk checksum mismatch",
    });
  });

  it("rebuilds when a snapshot chunk is missing", async () => {
    const { tenant, key } = await seeded();
    await runDurableObjectAlarm(stubOf(tenant));
    await runInDurableObject(stubOf(tenant), (_o: TenantObject, state) => {
      state.storage.sql.exec("DELETE FROM snapshot_chunks");
    });
    await evictDurableObject(stubOf(tenant));
    expect((await search(tenant, key, { query: "convert currency" })).body.results[0].tool_id).toBe("s3::tool_7");
    expect((await catalog(tenant, key)).index).toMatchObject({ source: "rebuild", reason: "snapshot chunk missing" });
  });
});
