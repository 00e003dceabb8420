/**
 * Faults: a write interrupted by an object reset, a write that dies inside its transaction,
 * concurrent writers, damaged snapshots, repeated alarms. In every case the catalog is all of a
 * write or none of it, and what search answers agrees with the rows.
 */
import { env } from "cloudflare:workers";
import { abortAllDurableObjects, evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { toRow, type ToolContent } from "../../src/catalog/tool.ts";
import { crc32 } from "../../src/durable/chunks.ts";
import type { TenantObject } from "../../src/durable/tenant-object.ts";
import { call, mcpTool, search, tenantWithKey, upsert } from "../helpers.ts";

const stubOf = (tenant: string) => env.TENANTS.get(env.TENANTS.idFromName(tenant));

interface Stored {
  revision: number;
  tools: { id: string; hash: string }[];
  servers: string[];
  audit: string[];
}

/** The catalog as stored, straight from SQLite. */
async function stored(tenant: string): Promise<Stored> {
  return runInDurableObject(stubOf(tenant), (_o, state) => {
    const sql = state.storage.sql;
    return {
      revision: Number(sql.exec<{ value: string }>(`SELECT value FROM meta WHERE key = 'revision'`).one().value),
      tools: sql.exec<{ id: string; hash: string }>(`SELECT id, hash FROM tools ORDER BY id`).toArray(),
      servers: sql
        .exec<{ name: string }>(`SELECT name FROM servers ORDER BY name`)
        .toArray()
        .map((r) => r.name),
      audit: sql
        .exec<{ action: string }>(`SELECT action FROM audit_log ORDER BY seq`)
        .toArray()
        .map((r) => r.action),
    };
  });
}

const bigBatch = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    server: `s${i % 20}`,
    ...mcpTool(`tool_${i}`, `Tool number ${i} handles ${["files", "issues", "weather", "mail"][i % 4]}`, {
      id: { type: "string" },
    }),
  }));

function contentOf(tool: ReturnType<typeof bigBatch>[number]): ToolContent {
  return {
    server: tool.server,
    name: tool.name,
    title: null,
    description: tool.description,
    inputSchema: tool.inputSchema,
    outputSchema: null,
    annotations: null,
    keywords: [],
    defer: null,
    vendor: null,
  };
}

/** All or nothing: either the batch is there whole, at revision 1 with its audit entry, or nothing is. */
function expectAllOrNothing(s: Stored, n: number): "all" | "none" {
  if (s.tools.length === 0) {
    expect(s).toMatchObject({ revision: 0, servers: [] });
    expect(s.audit).not.toContain("tools.upsert");
    return "none";
  }
  expect(s.tools).toHaveLength(n);
  expect(s.revision).toBe(1);
  expect(s.audit.filter((a) => a === "tools.upsert")).toHaveLength(1);
  return "all";
}

describe("a 10,000-tool write and an object reset", () => {
  // Several 10,000-tool uploads take about 5 s alone on a 2-core machine: the default 5 s timeout fails under load.
  it("leaves all of it or none of it, whenever the reset comes", async () => {
    const tools = bigBatch(10_000);
    const rows = await Promise.all(tools.map((t) => toRow(contentOf(t))));
    const outcomes: string[] = [];

    // The write reaches the object (the RPC the Worker makes), and every object is reset at once.
    {
      const { tenant } = await tenantWithKey();
      const stub = stubOf(tenant) as unknown as TenantObject;
      const write = stub.upsertTools({ kind: "operator" }, rows).then(
        () => "acknowledged",
        () => "interrupted",
      );
      await abortAllDurableObjects();
      const answer = await write;
      const state = expectAllOrNothing(await stored(tenant), rows.length);
      outcomes.push(`${answer}:${state}`);
    }
    // The full HTTP path with the reset at later moments: an acknowledged upload is always all there.
    for (const delay of [0, 5, 50]) {
      const { tenant, key } = await tenantWithKey();
      const upload = upsert(tenant, key, tools).then(
        (r) => (r.status === 200 ? "acknowledged" : `failed ${r.status}`),
        () => "interrupted",
      );
      await new Promise((r) => setTimeout(r, delay));
      await abortAllDurableObjects();
      const answer = await upload;
      const state = expectAllOrNothing(await stored(tenant), tools.length);
      if (answer === "acknowledged") expect(state).toBe("all");
      outcomes.push(`${answer}:${state}`);
      // Whatever happened, the tenant works: the same upload now succeeds and search agrees with the rows.
      expect((await upsert(tenant, key, tools)).status).toBe(200);
      expect((await search(tenant, key, { query: "tool_9999" })).body.results[0].tool_id).toBe("s19::tool_9999");
    }
    // The reset did interrupt a write in flight at least once (else this test would prove nothing).
    expect(outcomes).toContain("interrupted:none");
  }, 20_000);

  it(
    "a write that dies inside its transaction (after its rows, before its revision) leaves " +
      "nothing, and the object keeps working",
    async () => {
      const { tenant, key } = await tenantWithKey();
      expect((await upsert(tenant, key, [{ server: "keep", ...mcpTool("kept", "Already here") }])).status).toBe(200);
      const before = await stored(tenant);
      // Fault injection into the real write path: the row writer writes every row, then the process "dies".
      await runInDurableObject(stubOf(tenant), (instance: TenantObject) => {
        const repo = (instance as unknown as { repo: { writeTools: (...args: unknown[]) => void } }).repo;
        const write = repo.writeTools.bind(repo);
        repo.writeTools = (...args: unknown[]) => {
          write(...args);
          throw new Error("simulated crash between statements");
        };
      });
      const r = await upsert(tenant, key, bigBatch(2_000));
      expect(r.status).toBe(500);
      expect(r.body).toEqual({ error: "internal", message: expect.any(String) });
      expect(await stored(tenant)).toEqual(before);
      // A new instance (as after a real crash) takes the same write whole.
      await evictDurableObject(stubOf(tenant));
      expect((await upsert(tenant, key, bigBatch(2_000))).status).toBe(200);
      expect((await stored(tenant)).tools).toHaveLength(2_001);
    },
  );
});

// ---- concurrent writers ------------------------------------------------------------------------

const NAMES = ["n1", "n2", "n3", "n4"];
const SERVERS = ["a", "b"];

type Op =
  | { kind: "upsert"; tools: { server: string; name: string; v: number }[] }
  | { kind: "replace"; server: string; tools: { name: string; v: number }[] }
  | { kind: "deleteTool"; server: string; name: string }
  | { kind: "deleteServer"; server: string };

const toolArb = fc.record({ server: fc.constantFrom(...SERVERS), name: fc.constantFrom(...NAMES), v: fc.nat(2) });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant("upsert" as const),
    tools: fc.uniqueArray(toolArb, { minLength: 1, maxLength: 3, selector: (t) => `${t.server}::${t.name}` }),
  }),
  fc.record({
    kind: fc.constant("replace" as const),
    server: fc.constantFrom(...SERVERS),
    tools: fc.uniqueArray(fc.record({ name: fc.constantFrom(...NAMES), v: fc.nat(2) }), {
      minLength: 1,
      maxLength: 3,
      selector: (t) => t.name,
    }),
  }),
  fc.record({
    kind: fc.constant("deleteTool" as const),
    server: fc.constantFrom(...SERVERS),
    name: fc.constantFrom(...NAMES),
  }),
  fc.record({ kind: fc.constant("deleteServer" as const), server: fc.constantFrom(...SERVERS) }),
);

/** The catalog as a serial application sees it: server -> tool name -> content variant. */
type Model = Map<string, Map<string, number>>;

const describeTool = (name: string, v: number) => mcpTool(name, `${name} variant ${v}`);

function send(tenant: string, key: string, op: Op) {
  if (op.kind === "upsert")
    return upsert(
      tenant,
      key,
      op.tools.map((t) => ({ server: t.server, ...describeTool(t.name, t.v) })),
    );
  if (op.kind === "replace")
    return call("PUT", `/v1/tenants/${tenant}/servers/${op.server}/tools`, {
      token: key,
      body: { tools: op.tools.map((t) => describeTool(t.name, t.v)) },
    });
  if (op.kind === "deleteTool")
    return call("DELETE", `/v1/tenants/${tenant}/tools/${op.server}::${op.name}`, { token: key });
  return call("DELETE", `/v1/tenants/${tenant}/servers/${op.server}`, { token: key });
}

/** Applies an op to a copy of the model: the new model and the counts the service must have answered (null: 404). */
function apply(model: Model, op: Op): { next: Model; counts: Record<string, number> | null } {
  const next: Model = new Map([...model].map(([s, tools]) => [s, new Map(tools)]));
  const counts = { added: 0, updated: 0, unchanged: 0, removed: 0 };
  const put = (server: string, name: string, v: number) => {
    const tools = next.get(server) ?? new Map<string, number>();
    next.set(server, tools);
    const old = tools.get(name);
    if (old === undefined) counts.added += 1;
    else if (old !== v) counts.updated += 1;
    else counts.unchanged += 1;
    tools.set(name, v);
  };
  if (op.kind === "upsert") for (const t of op.tools) put(t.server, t.name, t.v);
  if (op.kind === "replace") {
    const keep = new Set(op.tools.map((t) => t.name));
    for (const name of next.get(op.server)?.keys() ?? []) {
      if (keep.has(name)) continue;
      next.get(op.server)!.delete(name);
      counts.removed += 1;
    }
    for (const t of op.tools) put(op.server, t.name, t.v);
  }
  if (op.kind === "deleteTool") {
    if (!next.get(op.server)?.has(op.name)) return { next: model, counts: null };
    next.get(op.server)!.delete(op.name);
    counts.removed = 1;
  }
  if (op.kind === "deleteServer") {
    if (!next.has(op.server)) return { next: model, counts: null };
    counts.removed = next.get(op.server)!.size;
    next.delete(op.server);
  }
  return { next, counts };
}

const modelText = (m: Model) => JSON.stringify([...m].sort().map(([s, tools]) => [s, [...tools].sort()]));

const countsFit = (body: any, counts: Record<string, number> | null) =>
  counts === null || Object.entries(counts).every(([k, n]) => body[k] === n);

/** Whether write i of a group that shares one revision can be the one that made it. */
function madeRevision(model: Model, group: { op: Op; body: any }[], i: number): boolean {
  const step = apply(model, group[i]!.op);
  if (modelText(step.next) === modelText(model) || !countsFit(group[i]!.body, step.counts)) return false;
  return group.every((other, j) => {
    if (j === i) return true;
    const after = apply(step.next, other.op);
    return modelText(after.next) === modelText(step.next) && countsFit(other.body, after.counts);
  });
}

describe("concurrent writers to one tenant", () => {
  it(
    "serialize: upserts, replaces and deletes on one server and on several, fired at once, " +
      "equal a serial application in revision order",
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { minLength: 8, maxLength: 24 }), async (ops) => {
          const { tenant, key } = await tenantWithKey();
          const replies = await Promise.all(ops.map((op) => send(tenant, key, op)));

          // Replay the acknowledged writes in revision order. Each revision was made by exactly one
          // write; the others that report it changed nothing, so they ran after it.
          let model: Model = new Map();
          let revision = 0;
          const groups = new Map<number, { op: Op; body: any }[]>();
          for (const [i, r] of replies.entries()) {
            if (r.status === 404) {
              expect(["deleteTool", "deleteServer"]).toContain(ops[i]!.kind);
              continue;
            }
            expect(r.status, r.text).toBe(200);
            groups.set(r.body.revision, [...(groups.get(r.body.revision) ?? []), { op: ops[i]!, body: r.body }]);
          }
          for (const r of [...groups.keys()].sort((a, b) => a - b)) {
            const group = groups.get(r)!;
            if (r !== revision) {
              expect(r, "revisions advance one at a time").toBe(revision + 1);
              // Several writes of a group may each change the model on their own (deleting n4, or replacing
              // the server with n3 alone); the maker is the one whose reported counts fit and after which
              // every other write of the group changes nothing.
              const maker = group.findIndex((_, i) => madeRevision(model, group, i));
              expect(maker, `one write made revision ${r}`).toBeGreaterThanOrEqual(0);
              const { op, body } = group.splice(maker, 1)[0]!;
              const step = apply(model, op);
              expect(body).toMatchObject(step.counts!);
              model = step.next;
              revision = r;
            }
            for (const { op, body } of group) {
              const step = apply(model, op);
              expect(modelText(step.next), "a write reported without a revision of its own changed nothing").toBe(
                modelText(model),
              );
              if (step.counts) expect(body).toMatchObject(step.counts);
            }
          }

          const s = await stored(tenant);
          expect(s.revision).toBe(revision);
          const expected = await Promise.all(
            [...model].flatMap(([server, tools]) =>
              [...tools].map(async ([name, v]) => ({
                id: `${server}::${name}`,
                hash: (await toRow({ server, ...contentOfTool(name, v) })).hash,
              })),
            ),
          );
          expect(s.tools).toEqual(expected.sort((a, b) => a.id.localeCompare(b.id)));
          expect(s.servers).toEqual([...model.keys()].sort());
        }),
        { numRuns: 6 },
      );
    },
  );
});

function contentOfTool(name: string, v: number): Omit<ToolContent, "server"> {
  const t = describeTool(name, v);
  return {
    name,
    title: null,
    description: t.description,
    inputSchema: t.inputSchema,
    outputSchema: null,
    annotations: null,
    keywords: [],
    defer: null,
    vendor: null,
  };
}

// ---- snapshots and alarms ----------------------------------------------------------------------

async function seeded() {
  const t = await tenantWithKey();
  const tools = Array.from({ length: 60 }, (_, i) => ({
    server: `s${i % 4}`,
    ...mcpTool(`tool_${i}`, i === 7 ? "Convert currencies at today's rate" : `Generic helper ${i} for records`),
  }));
  expect((await upsert(t.tenant, t.key, tools)).status).toBe(200);
  return t;
}

const QUERIES = ["convert currency rate", "generic helper", "records 12", "tool_33"];

async function answers(tenant: string, key: string) {
  return Promise.all(
    QUERIES.map(async (query) => (await search(tenant, key, { query, threshold: 0, max_results: 10 })).body.results),
  );
}

describe("a damaged snapshot is never served", () => {
  const damage = {
    "a chunk replaced by garbage with a matching checksum": (sql: SqlStorage) => {
      const garbage = crypto.getRandomValues(new Uint8Array(4096));
      sql.exec(`UPDATE snapshot_chunks SET data = ?, crc = ? WHERE seq = 0`, garbage, crc32(garbage));
    },
    "a chunk cut short (checksum updated)": (sql: SqlStorage) => {
      const row = sql.exec<{ data: ArrayBuffer }>(`SELECT data FROM snapshot_chunks WHERE seq = 0`).one();
      const cut = new Uint8Array(row.data).slice(0, Math.floor(row.data.byteLength / 2));
      sql.exec(`UPDATE snapshot_chunks SET data = ?, crc = ? WHERE seq = 0`, cut, crc32(cut));
    },
    "an extra chunk": (sql: SqlStorage) => {
      const extra = new Uint8Array([1, 2, 3]);
      sql.exec(`INSERT INTO snapshot_chunks (seq, data, crc) VALUES (999, ?, ?)`, extra, crc32(extra));
    },
    "a snapshot made by another index version": (sql: SqlStorage) => {
      sql.exec(`UPDATE meta SET value = '-1' WHERE key = 'snapshot_index_version'`);
    },
  };

  for (const [what, harm] of Object.entries(damage)) {
    it(`${what}: the index is rebuilt from rows and answers as before`, async () => {
      const { tenant, key } = await seeded();
      const before = await answers(tenant, key);
      expect(await runDurableObjectAlarm(stubOf(tenant))).toBe(true);
      await runInDurableObject(stubOf(tenant), (_o, state) => harm(state.storage.sql));
      await evictDurableObject(stubOf(tenant));
      expect(await answers(tenant, key)).toEqual(before);
      const index = (await call("GET", `/v1/tenants/${tenant}/catalog`, { token: key })).body.index;
      expect(index).toMatchObject({ source: "rebuild", tools: 60 });
    });
  }
});

describe("alarms", () => {
  it(
    "are idempotent: run twice, at once, and between writes, they leave a current snapshot " + "and the same answers",
    async () => {
      const { tenant, key } = await seeded();
      const runAlarmTwiceAtOnce = () =>
        runInDurableObject(stubOf(tenant), async (instance: TenantObject) => {
          await Promise.all([instance.alarm(), instance.alarm()]);
        });
      await runAlarmTwiceAtOnce();
      await runDurableObjectAlarm(stubOf(tenant));
      expect(
        (await upsert(tenant, key, [{ server: "late", ...mcpTool("late_tool", "Translate speech between languages") }]))
          .status,
      ).toBe(200);
      await runAlarmTwiceAtOnce();
      const write = upsert(tenant, key, [
        { server: "late", ...mcpTool("later_tool", "Summarise a meeting transcript") },
      ]);
      await Promise.all([runAlarmTwiceAtOnce(), write]);
      await runAlarmTwiceAtOnce();
      const before = await answers(tenant, key);
      // The snapshot the alarms left is current: a cold start restores it and answers the same.
      await evictDurableObject(stubOf(tenant));
      expect(await answers(tenant, key)).toEqual(before);
      expect((await call("GET", `/v1/tenants/${tenant}/catalog`, { token: key })).body).toMatchObject({
        revision: 3,
        tools: 62,
        index: { source: "snapshot", tools: 62 },
      });
      expect((await search(tenant, key, { query: "meeting transcript" })).body.results[0].tool_id).toBe(
        "late::later_tool",
      );
    },
  );
});
