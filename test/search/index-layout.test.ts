/**
 * The index's storage layout (frozen arena + delta, dead documents, hashed name keys, snapshots)
 * must never change an answer: an index updated in place, the same index restored from its
 * snapshot, and an index built fresh from the final tools give identical results and scores.
 */
import { describe, expect, it } from "vitest";
import { syntheticCatalog } from "../../scripts/bench/synthetic.ts";
import type { SearchableTool } from "../../src/search/document.ts";
import { hashKey } from "../../src/search/name-store.ts";
import { SNAPSHOT_FORMAT, SnapshotError } from "../../src/search/snapshot.ts";
import { INDEX_VERSION, ToolIndex } from "../../src/search/tool-index.ts";

function tools(n: number, seed: number): SearchableTool[] {
  return syntheticCatalog({ tools: n, seed }).map((t) => ({
    ...t,
    id: `${t.server}::${t.name}`,
    aliases: [`${t.server}__${t.name}`.replace(/[^A-Za-z0-9_-]/g, "_")],
  }));
}

function queriesFor(catalog: SearchableTool[]): string[] {
  const sample = catalog.filter((_, i) => i % 37 === 0);
  return [
    "list open issues",
    "get user",
    "send a message to the channel",
    "create invoice for customer",
    "weather forecast",
    "the and of",
    "delete",
    ...sample.map((t) => t.name),
    ...sample.map((t) => `mcp__${t.server}__${t.name}`),
    ...sample.map((t) => t.description.split(" ").slice(0, 4).join(" ")),
  ];
}

function answers(index: ToolIndex, queries: string[]) {
  return queries.flatMap((q) => [
    index.search(q, { limit: 10, threshold: 0 }),
    index.search(q, { limit: 5, threshold: 1.5 }),
  ]);
}

describe("index layout", () => {
  const base = tools(800, 1);
  const extra = tools(60, 2).map((t) => ({ ...t, id: `x-${t.id}`, server: `x-${t.server}` }));
  const removed = new Set(base.filter((_, i) => i % 9 === 0).map((t) => t.id));
  const updated = base
    .filter((t, i) => i % 11 === 1 && !removed.has(t.id))
    .map((t) => ({ ...t, description: `${t.description} Also archives old records.` }));
  const final = [
    ...base.filter((t) => !removed.has(t.id)).map((t) => updated.find((u) => u.id === t.id) ?? t),
    ...extra,
  ];
  const queries = queriesFor(final);

  it("answers the same updated in place, restored from its snapshot, and built fresh", () => {
    const index = ToolIndex.fromTools(base);
    index.remove(removed);
    index.upsert(updated);
    index.upsert(extra.slice(0, 1)); // a small write: stays in the delta
    index.upsert(extra.slice(1));
    const fresh = ToolIndex.fromTools(final);
    const expected = answers(fresh, queries);
    expect(index.size).toBe(final.length);
    expect(answers(index, queries)).toEqual(expected);
    const restored = ToolIndex.restore(index.snapshot());
    expect(restored.size).toBe(final.length);
    expect(answers(restored, queries)).toEqual(expected);
    // And keeps doing so when written to after the restore.
    restored.remove([final[0]!.id]);
    fresh.remove([final[0]!.id]);
    restored.upsert([base[0]!]);
    fresh.upsert([base[0]!]);
    expect(answers(restored, queries)).toEqual(answers(fresh, queries));
  });

  it("restores a snapshot whose parts were written separately", () => {
    const index = ToolIndex.fromTools(final);
    const parts = index.snapshotParts();
    const joined = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      joined.set(p, at);
      at += p.length;
    }
    expect(joined).toEqual(index.snapshot());
    expect(answers(ToolIndex.restore(joined), queries)).toEqual(answers(index, queries));
  });

  it("refuses a snapshot of another index version or format", () => {
    const bytes = ToolIndex.fromTools(final.slice(0, 50)).snapshot();
    const view = new DataView(bytes.buffer);
    expect(view.getUint32(4, true)).toBe(SNAPSHOT_FORMAT);
    expect(view.getUint32(8, true)).toBe(INDEX_VERSION);
    const otherVersion = bytes.slice();
    new DataView(otherVersion.buffer).setUint32(8, INDEX_VERSION - 1, true);
    expect(() => ToolIndex.restore(otherVersion)).toThrow(SnapshotError);
    const otherFormat = bytes.slice();
    new DataView(otherFormat.buffer).setUint32(4, SNAPSHOT_FORMAT - 1, true);
    expect(() => ToolIndex.restore(otherFormat)).toThrow(SnapshotError);
    expect(() => ToolIndex.restore(bytes.subarray(0, bytes.length - 4))).toThrow(SnapshotError);
  });

  it("never answers an exact-name query with a tool whose name only shares the key's hash", () => {
    // Two names with the same 32-bit hash, found by a birthday search.
    const seen = new Map<number, string>();
    let pair: [string, string] | null = null;
    for (let i = 0; pair === null; i++) {
      const name = `tool_${i.toString(36)}`;
      const other = seen.get(hashKey(name));
      if (other !== undefined) pair = [other, name];
      else seen.set(hashKey(name), name);
    }
    const [a, b] = pair;
    expect(hashKey(a)).toBe(hashKey(b));
    const index = ToolIndex.fromTools([
      { id: `s::${a}`, server: "s", name: a, description: "first" },
      { id: `s::${b}`, server: "s", name: b, description: "second" },
    ]);
    const hits = index.search(a, { limit: 5, threshold: Infinity });
    expect(hits.map((h) => [h.id, h.match])).toEqual([[`s::${a}`, "exact-name"]]);
  });
});
