/**
 * Faults during a rollback of a 10,000-tool catalog: an object reset while it runs, and a failure inside its
 * transaction. Either the catalog is exactly the revision rolled back to, with a new revision, its history and its
 * audit entry, or nothing changed at all; and the tenant keeps working.
 */
import { env } from "cloudflare:workers";
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { toRow, type ToolContent } from "../../src/catalog/tool.ts";
import type { TenantObject } from "../../src/durable/tenant-object.ts";
import { call, search, tenantWithKey } from "../helpers.ts";

const stubOf = (tenant: string) => env.TENANTS.get(env.TENANTS.idFromName(tenant));

interface Stored {
  revision: number;
  tools: string[];
  servers: string[];
  revisions: number;
  history: number;
  audit: string[];
}

async function stored(tenant: string): Promise<Stored> {
  return runInDurableObject(stubOf(tenant), (_o, state) => {
    const sql = state.storage.sql;
    const n = (query: string) => sql.exec<{ n: number }>(query).one().n;
    return {
      revision: Number(sql.exec<{ value: string }>(`SELECT value FROM meta WHERE key = 'revision'`).one().value),
      tools: sql
        .exec<{ t: string }>(`SELECT id || ' ' || hash || ' ' || model_name AS t FROM tools ORDER BY id`)
        .toArray()
        .map((r) => r.t),
      servers: sql
        .exec<{ s: string }>(`SELECT name || ' ' || defer_tools AS s FROM servers ORDER BY name`)
        .toArray()
        .map((r) => r.s),
      revisions: n(`SELECT COUNT(*) AS n FROM catalog_revisions`),
      history: n(`SELECT COUNT(*) AS n FROM tool_history`),
      audit: sql
        .exec<{ action: string }>(`SELECT action FROM audit_log ORDER BY seq`)
        .toArray()
        .map((r) => r.action),
    };
  });
}

function content(i: number, version: string): ToolContent {
  return {
    server: `s${i % 25}`,
    name: `tool_${i}`,
    title: null,
    description: `Tool ${i} (${version}) handles ${["files", "issues", "weather", "mail"][i % 4]}`,
    inputSchema: { type: "object", properties: { id: { type: "string" } } },
    outputSchema: null,
    annotations: null,
    keywords: [],
    defer: null,
    vendor: null,
  };
}

/** A tenant whose revision 1 holds 10,000 tools and revision 2 rewrote every description and dropped 5 servers. */
async function churned(): Promise<{ tenant: string; key: string; at1: Stored; at2: Stored }> {
  const { tenant, key } = await tenantWithKey();
  const stub = stubOf(tenant) as unknown as TenantObject;
  const v1 = await Promise.all(Array.from({ length: 10_000 }, (_, i) => toRow(content(i, "v1"))));
  expect((await stub.upsertTools({ kind: "operator" }, v1)).ok).toBe(true);
  const at1 = await stored(tenant);
  const v2 = await Promise.all(Array.from({ length: 10_000 }, (_, i) => toRow(content(i, "v2"))));
  expect((await stub.upsertTools({ kind: "operator" }, v2)).ok).toBe(true);
  for (let s = 0; s < 5; s++) expect((await stub.deleteServer({ kind: "operator" }, `s${s}`)).ok).toBe(true);
  return { tenant, key, at1, at2: await stored(tenant) };
}

/** The rollback to revision 1 happened whole (a new revision 8) or not at all (still revision 7). */
function allOrNothing(s: Stored, at1: Stored, at2: Stored): "all" | "none" {
  if (s.revision === at2.revision) {
    expect(s).toEqual(at2);
    return "none";
  }
  expect(s.revision).toBe(at2.revision + 1);
  expect(s.tools).toEqual(at1.tools);
  expect(s.servers).toEqual(at1.servers);
  expect(s.revisions).toBe(at2.revisions + 1);
  // Its before-images: every tool it rewrote or brought back.
  expect(s.history).toBe(at2.history + 10_000);
  expect(s.audit.at(-1)).toBe("catalog.rollback");
  return "all";
}

describe("a rollback of a 10,000-tool catalog and faults", () => {
  it("an object reset while it runs leaves all of it or none of it; then it succeeds", async () => {
    const { tenant, key, at1, at2 } = await churned();
    expect(at2.tools).toHaveLength(8_000);
    const stub = stubOf(tenant) as unknown as TenantObject;
    const rollback = stub.rollback({ kind: "operator" }, 1).then(
      (r) => (r.ok ? "acknowledged" : `refused ${r.error.error}`),
      () => "interrupted",
    );
    await abortAllDurableObjects();
    const answer = await rollback;
    const state = allOrNothing(await stored(tenant), at1, at2);
    // (On this machine the reset lands mid-rollback: "interrupted" and nothing written.)
    if (answer === "acknowledged") expect(state).toBe("all");
    else expect(answer).toBe("interrupted");
    // Whatever happened, the tenant works, and the rollback (again, if it was interrupted) makes revision 1 again.
    const again = await call("POST", `/v1/tenants/${tenant}/catalog/rollback`, { token: key, body: { revision: 1 } });
    expect(again.status, again.text).toBe(200);
    expect((await stored(tenant)).tools).toEqual(at1.tools);
    const hit = await search(tenant, key, { query: "tool_4321" });
    expect(hit.body.results[0]).toMatchObject({ tool_id: "s21::tool_4321" });
    expect(hit.body.results[0].description).toContain("(v1)");
  }, 60_000);

  it("a failure inside its transaction (every row written) leaves nothing; the object keeps working", async () => {
    const { tenant, key, at1, at2 } = await churned();
    await runInDurableObject(stubOf(tenant), (instance: TenantObject) => {
      const repo = (instance as unknown as { repo: { insertStored: (...args: unknown[]) => void } }).repo;
      const insert = repo.insertStored.bind(repo);
      let calls = 0;
      repo.insertStored = (...args: unknown[]) => {
        insert(...args);
        // The last page of rows: everything is written when the "process dies".
        if (++calls === 20) throw new Error("simulated crash between statements");
      };
    });
    const r = await call("POST", `/v1/tenants/${tenant}/catalog/rollback`, { token: key, body: { revision: 1 } });
    expect(r.status).toBe(500);
    expect(allOrNothing(await stored(tenant), at1, at2)).toBe("none");
    // The search index was not touched either: the removed servers' tools are still not found.
    expect((await search(tenant, key, { query: "tool_3" })).body.results).toEqual([]);
    // The faulty writer is still in place in this instance; a fresh one (after a reset) takes the rollback whole.
    await abortAllDurableObjects();
    const again = await call("POST", `/v1/tenants/${tenant}/catalog/rollback`, { token: key, body: { revision: 1 } });
    expect(again.body).toMatchObject({ revision: at2.revision + 1, added: 2_000, updated: 8_000, removed: 0 });
    expect(allOrNothing(await stored(tenant), at1, at2)).toBe("all");
    expect((await search(tenant, key, { query: "tool_3" })).body.results[0].tool_id).toBe("s3::tool_3");
  }, 60_000);
});
