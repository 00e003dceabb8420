/**
 * Churn of tool names leaves slots in the index (a removed tool's id string and lengths stay until the index is built
 * afresh). When the snapshot is written and those slots pass a tenth of the live tools, the index is rebuilt from the
 * rows first: memory and snapshot stay within a few percent of a fresh build of the same catalog, and answers do
 * not change.
 */
import { env } from "cloudflare:workers";
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { IndexCache } from "../../src/durable/index-cache.ts";
import type { TenantObject } from "../../src/durable/tenant-object.ts";
import { call, mcpTool, search, tenantWithKey } from "../helpers.ts";

const stubOf = (tenant: string) => env.TENANTS.get(env.TENANTS.idFromName(tenant));
const WORDS = ["invoice", "ticket", "calendar", "repository", "payment", "report", "alert", "folder"];

const tools = (round: number) =>
  Array.from({ length: 100 }, (_, i) =>
    mcpTool(`tool_${round}_${i}`, `Handles the ${WORDS[i % 8]} of ${WORDS[(i * 3) % 8]} number ${i}`, {
      id: { type: "string", description: `${WORDS[(i * 5) % 8]} id` },
    }),
  );

async function indexOf(tenant: string) {
  return runInDurableObject(stubOf(tenant), (instance: TenantObject) => {
    const cache = (instance as unknown as { parts: { index: IndexCache } }).parts.index;
    const index = cache.get();
    return { size: index.size, slots: index.allocatedIds, compactions: cache.compactions };
  });
}

const keys = new Map<string, string>();

async function snapshotBytes(tenant: string): Promise<number> {
  const catalog = await call("GET", `/v1/tenants/${tenant}/catalog`, { token: keys.get(tenant)! });
  return catalog.body.snapshot.bytes as number;
}

async function put(tenant: string, round: number) {
  const r = await call("PUT", `/v1/tenants/${tenant}/servers/churn/tools`, {
    token: keys.get(tenant)!,
    body: { tools: tools(round) },
  });
  expect(r.status, r.text).toBe(200);
  // A search keeps the index in memory, where writes apply to it (an index not loaded is built afresh anyway).
  expect((await search(tenant, keys.get(tenant)!, { query: "invoice" })).status).toBe(200);
}

describe("index compaction", () => {
  it("a snapshot after heavy renaming comes from a fresh build: slots, bytes, answers as a fresh one's", async () => {
    const churned = await tenantWithKey();
    const fresh = await tenantWithKey();
    keys.set(churned.tenant, churned.key);
    keys.set(fresh.tenant, fresh.key);
    for (let round = 0; round < 5; round++) await put(churned.tenant, round);
    await put(fresh.tenant, 4);
    // Five hundred names handed out, a hundred of them live.
    expect(await indexOf(churned.tenant)).toMatchObject({ size: 100, slots: 500, compactions: 0 });

    expect(await runDurableObjectAlarm(stubOf(churned.tenant))).toBe(true);
    expect(await runDurableObjectAlarm(stubOf(fresh.tenant))).toBe(true);
    expect(await indexOf(churned.tenant)).toEqual({ size: 100, slots: 100, compactions: 1 });
    expect(await indexOf(fresh.tenant)).toMatchObject({ size: 100, slots: 100, compactions: 0 });
    expect(await snapshotBytes(churned.tenant)).toBe(await snapshotBytes(fresh.tenant));
    for (const query of ["invoice ticket", "calendar", "tool_4_7", "repository id"]) {
      const a = await search(churned.tenant, churned.key, { query, max_results: 10, threshold: 0 });
      const b = await search(fresh.tenant, fresh.key, { query, max_results: 10, threshold: 0 });
      expect(a.body.results).toEqual(b.body.results);
    }

    // A little churn (under a tenth) is left for later: no rebuild for it.
    await call("DELETE", `/v1/tenants/${churned.tenant}/tools/churn::tool_4_0`, { token: churned.key });
    expect(await runDurableObjectAlarm(stubOf(churned.tenant))).toBe(true);
    expect(await indexOf(churned.tenant)).toEqual({ size: 99, slots: 100, compactions: 1 });
  });
});
