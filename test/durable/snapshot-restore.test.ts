/**
 * The index snapshot across Durable Object evictions: a current snapshot is restored and answers
 * exactly as before; a snapshot from an older index version or format, a damaged chunk, a missing
 * chunk or bytes that do not decode are never loaded: the object rebuilds from its rows, answers
 * correctly, and writes a fresh snapshot so that the next cold start restores again.
 */
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { crc32 } from "../../src/durable/chunks.ts";
import { INDEX_VERSION } from "../../src/search/tool-index.ts";
import { call, mcpTool, search, tenantWithKey, upsert } from "../helpers.ts";

const QUERIES = [
  "read file",
  "weather forecast",
  "create issue",
  "send message",
  "list_pull_requests",
  "github::create_issue",
];

function catalog() {
  const tools = [
    {
      server: "fs",
      ...mcpTool("read_file", "Read the contents of a file", { path: { type: "string", description: "File path" } }),
    },
    {
      server: "fs",
      ...mcpTool("write_file", "Write text to a file, replacing it", {
        path: { type: "string" },
        text: { type: "string" },
      }),
    },
    {
      server: "weather",
      ...mcpTool("getForecast", "Weather forecast for a city, by day", { city: { type: "string" } }),
    },
    {
      server: "github",
      ...mcpTool("create_issue", "Create an issue in a repository", {
        repo: { type: "string" },
        title: { type: "string" },
      }),
    },
    {
      server: "github",
      ...mcpTool("list_pull_requests", "List open pull requests of a repository", { repo: { type: "string" } }),
    },
    {
      server: "slack",
      ...mcpTool("send-message", "Send a message to a channel", {
        channel: { type: "string" },
        text: { type: "string" },
      }),
    },
  ];
  // Filler so that the snapshot holds a realistic spread of terms and documents.
  for (let i = 0; i < 40; i++)
    tools.push({
      server: `svc${i % 5}`,
      ...mcpTool(`tool_${i}`, `Utility number ${i} that handles records and reports for team ${i % 7}`),
    });
  return tools;
}

async function answers(tenant: string, key: string): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const query of QUERIES) {
    const r = await search(tenant, key, { query, max_results: 5 });
    expect(r.status, r.text).toBe(200);
    out.push(
      r.body.results.map((x: { tool_id: string; score: number; match: string }) => [x.tool_id, x.score, x.match]),
    );
  }
  return out;
}

async function indexLoad(tenant: string, key: string): Promise<{ source: string; reason?: string }> {
  const r = await call("GET", `/v1/tenants/${tenant}/catalog`, { token: key });
  expect(r.status, r.text).toBe(200);
  return r.body.index;
}

/** A tenant with the catalog uploaded, its snapshot written by the alarm, and its answers recorded. */
async function snapshotted() {
  const { tenant, key } = await tenantWithKey();
  const up = await upsert(tenant, key, catalog());
  expect(up.status, up.text).toBe(200);
  const stub = env.TENANTS.get(env.TENANTS.idFromName(tenant));
  const before = await answers(tenant, key);
  expect(await runDurableObjectAlarm(stub)).toBe(true);
  const chunks = await runInDurableObject(
    stub,
    (_o, state) => state.storage.sql.exec(`SELECT COUNT(*) AS n FROM snapshot_chunks`).one().n,
  );
  expect(chunks).toBeGreaterThan(0);
  return { tenant, key, stub, before };
}

function sqlOf(state: DurableObjectState) {
  return state.storage.sql;
}

/** After a rebuild, the alarm writes a fresh snapshot and the next cold start restores it. */
async function expectSnapshotRewritten(stub: DurableObjectStub, tenant: string, key: string, before: unknown[]) {
  expect(await runDurableObjectAlarm(stub)).toBe(true);
  await evictDurableObject(stub);
  expect(await answers(tenant, key)).toEqual(before);
  expect((await indexLoad(tenant, key)).source).toBe("snapshot");
}

describe("index snapshot across evictions", () => {
  it("restores a current snapshot and answers exactly as before", async () => {
    const { tenant, key, stub, before } = await snapshotted();
    await evictDurableObject(stub);
    expect(await answers(tenant, key)).toEqual(before);
    expect(await indexLoad(tenant, key)).toMatchObject({ source: "snapshot", tools: catalog().length });
  });

  it("rebuilds from rows when the snapshot was written by an older index version", async () => {
    const { tenant, key, stub, before } = await snapshotted();
    await runInDurableObject(stub, (_o, state) => {
      sqlOf(state).exec(`UPDATE meta SET value = ? WHERE key = 'snapshot_index_version'`, String(INDEX_VERSION - 1));
    });
    await evictDurableObject(stub);
    expect(await answers(tenant, key)).toEqual(before);
    expect(await indexLoad(tenant, key)).toMatchObject({
      source: "rebuild",
      reason: "snapshot is older than the catalog or index version",
    });
    await expectSnapshotRewritten(stub, tenant, key, before);
  });

  it("rebuilds from rows when the bytes are in an older snapshot format, even if tagged current", async () => {
    const { tenant, key, stub, before } = await snapshotted();
    await runInDurableObject(stub, (_o, state) => {
      // Format 1 (the first layout): magic, format, header length, JSON header, int32 postings.
      const header = new TextEncoder().encode(
        JSON.stringify({ indexVersion: INDEX_VERSION, ids: [], docs: [], terms: [] }),
      );
      const bytes = new Uint8Array(12 + header.length + 4);
      const view = new DataView(bytes.buffer);
      view.setUint32(0, 0x58495354, true);
      view.setUint32(4, 1, true);
      view.setUint32(8, header.length, true);
      bytes.set(header, 12);
      writeChunks(sqlOf(state), [bytes]);
    });
    await evictDurableObject(stub);
    expect(await answers(tenant, key)).toEqual(before);
    expect(await indexLoad(tenant, key)).toMatchObject({
      source: "rebuild",
      reason: "snapshot unreadable: snapshot format differs",
    });
    await expectSnapshotRewritten(stub, tenant, key, before);
  });

  it("detects a damaged chunk by its checksum and rebuilds", async () => {
    const { tenant, key, stub, before } = await snapshotted();
    await runInDurableObject(stub, (_o, state) => {
      const row = sqlOf(state).exec<{ data: ArrayBuffer }>(`SELECT data FROM snapshot_chunks WHERE seq = 0`).one();
      const data = new Uint8Array(row.data.slice(0));
      data[Math.floor(data.length / 2)]! ^= 0x5a;
      sqlOf(state).exec(`UPDATE snapshot_chunks SET data = ? WHERE seq = 0`, data);
    });
    await evictDurableObject(stub);
    expect(await answers(tenant, key)).toEqual(before);
    expect(await indexLoad(tenant, key)).toMatchObject({
      source: "rebuild",
      reason: "snapshot chunk checksum mismatch",
    });
    await expectSnapshotRewritten(stub, tenant, key, before);
  });

  it("rebuilds when a chunk is missing", async () => {
    const { tenant, key, stub, before } = await snapshotted();
    await runInDurableObject(stub, (_o, state) => {
      const data = new Uint8Array(
        sqlOf(state).exec<{ data: ArrayBuffer }>(`SELECT data FROM snapshot_chunks WHERE seq = 0`).one().data,
      );
      // Split the one chunk in two, then lose the second half.
      writeChunks(sqlOf(state), [data.subarray(0, data.length >> 1), data.subarray(data.length >> 1)]);
      sqlOf(state).exec(`DELETE FROM snapshot_chunks WHERE seq = 1`);
    });
    await evictDurableObject(stub);
    expect(await answers(tenant, key)).toEqual(before);
    expect(await indexLoad(tenant, key)).toMatchObject({ source: "rebuild", reason: "snapshot chunk missing" });
    await expectSnapshotRewritten(stub, tenant, key, before);
  });

  it("rebuilds when chunks with valid checksums hold bytes that do not decode", async () => {
    const { tenant, key, stub, before } = await snapshotted();
    await runInDurableObject(stub, (_o, state) => {
      const data = new Uint8Array(
        sqlOf(state).exec<{ data: ArrayBuffer }>(`SELECT data FROM snapshot_chunks WHERE seq = 0`).one().data,
      );
      writeChunks(sqlOf(state), [data.subarray(0, data.length - 8)]); // truncated, re-checksummed
    });
    await evictDurableObject(stub);
    expect(await answers(tenant, key)).toEqual(before);
    const load = await indexLoad(tenant, key);
    expect(load.source).toBe("rebuild");
    expect(load.reason).toMatch(/^snapshot unreadable: /);
    await expectSnapshotRewritten(stub, tenant, key, before);
  });

  it("rebuilds when the snapshot is older than the catalog revision", async () => {
    const { tenant, key, stub, before } = await snapshotted();
    await runInDurableObject(stub, (_o, state) => {
      // As if the catalog had changed after the snapshot was written (and the rewrite had not run).
      sqlOf(state).exec(`UPDATE meta SET value = CAST(value AS INTEGER) - 1 WHERE key = 'snapshot_revision'`);
    });
    await evictDurableObject(stub);
    expect(await answers(tenant, key)).toEqual(before);
    expect(await indexLoad(tenant, key)).toMatchObject({
      source: "rebuild",
      reason: "snapshot is older than the catalog or index version",
    });
    await expectSnapshotRewritten(stub, tenant, key, before);
  });

  it("serves a write made after the snapshot from rows until the snapshot is rewritten", async () => {
    const { tenant, key, stub } = await snapshotted();
    const more = await upsert(tenant, key, [{ server: "fs", ...mcpTool("delete_file", "Delete a file from disk") }]);
    expect(more.status, more.text).toBe(200);
    const after = await answers(tenant, key);
    expect(after.flat(2)).toContain("fs::delete_file");
    await expectSnapshotRewritten(stub, tenant, key, after);
  });
});

/** Replaces the stored snapshot with `parts` as chunks, each with its correct CRC, tagged current. */
function writeChunks(sql: SqlStorage, parts: Uint8Array[]): void {
  sql.exec(`DELETE FROM snapshot_chunks`);
  parts.forEach((part, seq) => {
    sql.exec(`INSERT INTO snapshot_chunks (seq, data, crc) VALUES (?, ?, ?)`, seq, part, crc32(part));
  });
  sql.exec(`UPDATE meta SET value = ? WHERE key = 'snapshot_chunks'`, String(parts.length));
  sql.exec(`UPDATE meta SET value = ? WHERE key = 'snapshot_bytes'`, String(parts.reduce((n, p) => n + p.length, 0)));
}
