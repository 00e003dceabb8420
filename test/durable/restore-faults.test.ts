/**
 * Faults during a restore of a 3,000-tool backup: the tenant's object reset while the backup streams in, and a
 * failure inside the transaction that moves it into place. Either the tenant exists with all of the backup, or it
 * does not exist and its object holds nothing at all (no staged rows, no alarm); the registry does not list it; and
 * the restore, sent again, succeeds.
 */
import { env, exports } from "cloudflare:workers";
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { toRow, type ToolContent } from "../../src/catalog/tool.ts";
import type { TenantObject } from "../../src/durable/tenant-object.ts";
import { call, OPERATOR, search, tenantWithKey, uniqueTenant } from "../helpers.ts";

const stubOf = (tenant: string) => env.TENANTS.get(env.TENANTS.idFromName(tenant));
const TOOLS = 3_000;

function content(i: number): ToolContent {
  return {
    server: `s${i % 20}`,
    name: `tool_${i}`,
    title: null,
    description: `Tool ${i} handles ${["files", "issues", "weather", "mail"][i % 4]}`,
    inputSchema: { type: "object", properties: { id: { type: "string" } } },
    outputSchema: null,
    annotations: null,
    keywords: [],
    defer: null,
    vendor: null,
  };
}

/** A tenant of TOOLS tools, and its backup. */
async function backedUp(): Promise<{ tenant: string; key: string; text: string }> {
  const { tenant, key } = await tenantWithKey();
  const rows = await Promise.all(Array.from({ length: TOOLS }, (_, i) => toRow(content(i))));
  expect((await (stubOf(tenant) as unknown as TenantObject).upsertTools({ kind: "operator" }, rows)).ok).toBe(true);
  const r = await call("GET", `/v1/tenants/${tenant}/backup`, { token: key });
  expect(r.status).toBe(200);
  expect(r.text.split("\n")).toHaveLength(1 + 20 + TOOLS + 3 + 1); // header, servers, tools, settings/synonyms/key
  return { tenant, key, text: r.text };
}

/** What the object of `tenant` holds: rows in every table, its alarm. */
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

async function staged(tenant: string): Promise<number> {
  return runInDurableObject(stubOf(tenant), (_o, state) => {
    const sql = state.storage.sql;
    const has = sql.exec(`SELECT 1 FROM sqlite_master WHERE name = 'restore_tools'`).toArray().length > 0;
    return has ? sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM restore_tools`).one().n : 0;
  });
}

/** The tenant does not exist, its object holds nothing, the registry does not list it. */
async function nothing(tenant: string): Promise<void> {
  expect((await call("GET", `/v1/tenants/${tenant}/catalog`, { token: OPERATOR })).status).toBe(404);
  expect(await storageOf(tenant)).toEqual({ rows: 0, alarm: null });
  const listed = (await call("GET", "/v1/tenants?limit=500", { token: OPERATOR })).body.tenants as { id: string }[];
  expect(listed.map((t) => t.id)).not.toContain(tenant);
}

/** The tenant holds all of the backup: every tool, searchable. */
async function all(tenant: string, key: string): Promise<void> {
  const catalog = await call("GET", `/v1/tenants/${tenant}/catalog`, { token: OPERATOR });
  expect(catalog.body).toMatchObject({ tools: TOOLS });
  const hit = await search(tenant, key, { query: "tool_2345" });
  expect(hit.body.results[0]).toMatchObject({ tool_id: "s5::tool_2345" });
}

function post(tenant: string, body: BodyInit) {
  return exports.default.fetch(
    new Request(`http://tool-search.test/v1/tenants/${tenant}/restore`, {
      method: "POST",
      headers: { authorization: `Bearer ${OPERATOR}`, "content-type": "application/x-ndjson" },
      body,
      // @ts-expect-error: a streamed request body (workerd accepts it; the DOM type lacks the field)
      duplex: "half",
    }),
  );
}

describe("a restore of a 3,000-tool backup and faults", () => {
  it("an object reset while the backup streams in leaves all of it or nothing; sent again, it succeeds", async () => {
    const source = await backedUp();
    const copy = uniqueTenant("reset");
    const key = source.key.replace(`tsk_${source.tenant}_`, `tsk_${copy}_`);
    const bytes = new TextEncoder().encode(source.text);
    const half = Math.floor(bytes.length / 2);
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let sent = false;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, half));
      },
      async pull(controller) {
        if (sent) return;
        sent = true;
        await gate;
        controller.enqueue(bytes.slice(half));
        controller.close();
      },
    });
    const answer = post(copy, body).then(
      async (r) => `${r.status} ${await r.text()}`,
      () => "interrupted",
    );
    // Wait until the first batches are staged in the object, then reset it, then let the rest of the body through.
    for (let i = 0; i < 1_000 && (await staged(copy)) === 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(await staged(copy)).toBeGreaterThan(0);
    await abortAllDurableObjects();
    release();
    const reply = await answer;
    // (The reset lands mid-stream: the restore fails as a whole.)
    expect(reply).toMatch(/^500 .*"internal"|^interrupted$/);
    await nothing(copy);

    const again = await post(copy, source.text);
    expect(again.status, await again.clone().text()).toBe(201);
    await all(copy, key);
  }, 60_000);

  it("a failure inside the transaction that moves it into place leaves nothing; sent again, it succeeds", async () => {
    const source = await backedUp();
    const copy = uniqueTenant("crash");
    const key = source.key.replace(`tsk_${source.tenant}_`, `tsk_${copy}_`);
    await runInDurableObject(stubOf(copy), (instance: TenantObject) => {
      const restores = (instance as unknown as { restores: { tenant: { auditLog: { record: () => void } } } }).restores;
      // The audit entry is the commit's last write: every row is in place when the "process dies".
      restores.tenant.auditLog.record = () => {
        throw new Error("simulated crash between statements");
      };
    });
    const r = await post(copy, source.text);
    expect(r.status).toBe(500);
    await nothing(copy);
    // The faulty instance is gone with a reset; a fresh one takes the restore whole.
    await abortAllDurableObjects();
    const again = await post(copy, source.text);
    expect(again.status).toBe(201);
    await all(copy, key);
  }, 60_000);

  it("a restore nobody finishes (the Worker gone too) is dropped by the alarm: the object holds nothing", async () => {
    const source = await backedUp();
    const copy = uniqueTenant("stale");
    const stub = stubOf(copy) as unknown as TenantObject;
    const operator = { kind: "operator" } as const;
    const [headerLine, ...lines] = source.text.trimEnd().split("\n");
    const begun = await stub.restoreBegin(operator, JSON.parse(headerLine!));
    if (!begun.ok) throw new Error(begun.error.message);
    const server = JSON.parse(lines.find((l) => l.startsWith('{"type":"server"'))!);
    const appended = await stub.restoreAppend(operator, begun.value.restoreId, [
      { line: 2, type: "server", name: server.name, defer_tools: server.defer_tools },
    ]);
    expect(appended.ok).toBe(true);
    expect((await storageOf(copy)).alarm).not.toBeNull();
    // Not stale yet: the alarm keeps it.
    expect(await runDurableObjectAlarm(stubOf(copy))).toBe(true);
    expect((await storageOf(copy)).rows).toBeGreaterThan(0);
    // Ten minutes without a batch later:
    await runInDurableObject(stubOf(copy), (_o, state) => {
      state.storage.sql.exec(`UPDATE restore_state SET touched_at = touched_at - 11 * 60 * 1000`);
    });
    expect(await runDurableObjectAlarm(stubOf(copy))).toBe(true);
    await nothing(copy);
    // Its restore id is no longer one: a late batch is refused.
    const late = await stub.restoreAppend(operator, begun.value.restoreId, []);
    expect(late.ok).toBe(false);
  });
});
