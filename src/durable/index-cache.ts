/**
 * The tenant's search index in memory, restored from its snapshot when the snapshot matches the
 * catalog revision and index version, otherwise rebuilt from the rows. A Durable Object forgets
 * its memory after ~10 s idle, so this runs on the hot path of every cold start.
 */
import { modelName } from "../catalog/render.ts";
import type { ToolRow } from "../catalog/tool.ts";
import type { SearchableTool } from "../search/document.ts";
import { INDEX_VERSION, ToolIndex } from "../search/tool-index.ts";
import type { CatalogRepo } from "./catalog-repo.ts";
import { crc32, join, split } from "./chunks.ts";
import type { Meta } from "./meta.ts";

export function searchable(row: ToolRow): SearchableTool {
  return { ...row, aliases: [modelName(row)] };
}

export interface LoadReport {
  source: "snapshot" | "rebuild";
  /** Why a snapshot was not used, when it was not. */
  reason?: string;
  tools: number;
  ms: number;
}

export class IndexCache {
  private index: ToolIndex | null = null;
  lastLoad: LoadReport | null = null;

  private readonly sql: SqlStorage;
  private readonly repo: CatalogRepo;
  private readonly meta: Meta;

  constructor(sql: SqlStorage, repo: CatalogRepo, meta: Meta) {
    this.sql = sql;
    this.repo = repo;
    this.meta = meta;
  }

  get(): ToolIndex {
    if (this.index) return this.index;
    const started = Date.now();
    const restored = this.restore();
    this.index = restored.index ?? ToolIndex.fromTools(Array.from(this.repo.allTools(), searchable));
    this.lastLoad = {
      source: restored.index ? "snapshot" : "rebuild",
      ...(restored.reason ? { reason: restored.reason } : {}),
      tools: this.index.size,
      ms: Date.now() - started,
    };
    return this.index;
  }

  /** Applies a committed catalog change to the loaded index; an index not in memory is left to load later. */
  apply(upserts: readonly ToolRow[], removals: readonly string[]): void {
    if (!this.index) return;
    try {
      this.index.remove(removals);
      this.index.upsert(upserts.map(searchable));
    } catch (e) {
      // The rows are committed; a half-applied index must not answer. Rebuild on next use.
      this.index = null;
      throw e;
    }
  }

  snapshotIsCurrent(): boolean {
    return this.meta.number("snapshot_revision") === this.meta.number("revision") && this.meta.number("snapshot_index_version") === INDEX_VERSION;
  }

  /** Persists the index (loading it first if needed) as checksummed chunks, tagged with the revision it reflects. */
  writeSnapshot(): { bytes: number; chunks: number } {
    const bytes = this.get().snapshot();
    const parts = split(bytes);
    this.sql.exec(`DELETE FROM snapshot_chunks`);
    parts.forEach((part, seq) => this.sql.exec(`INSERT INTO snapshot_chunks (seq, data, crc) VALUES (?, ?, ?)`, seq, part, crc32(part)));
    this.meta.set("snapshot_revision", this.meta.number("revision"));
    this.meta.set("snapshot_index_version", INDEX_VERSION);
    this.meta.set("snapshot_chunks", parts.length);
    return { bytes: bytes.length, chunks: parts.length };
  }

  private restore(): { index: ToolIndex | null; reason?: string } {
    if (this.meta.get("snapshot_revision") === null) return { index: null, reason: "no snapshot" };
    if (!this.snapshotIsCurrent()) return { index: null, reason: "snapshot is older than the catalog or index version" };
    const expected = this.meta.number("snapshot_chunks");
    const rows = this.sql.exec<{ seq: number; data: ArrayBuffer; crc: number }>(`SELECT seq, data, crc FROM snapshot_chunks ORDER BY seq`).toArray();
    if (rows.length !== expected || rows.some((r, i) => r.seq !== i)) return { index: null, reason: "snapshot chunk missing" };
    const parts = rows.map((r) => new Uint8Array(r.data));
    if (parts.some((p, i) => crc32(p) !== rows[i]!.crc)) return { index: null, reason: "snapshot chunk checksum mismatch" };
    try {
      const index = ToolIndex.restore(join(parts));
      if (index.size !== this.repo.countTools()) return { index: null, reason: "snapshot does not match the rows" };
      return { index };
    } catch (e) {
      return { index: null, reason: `snapshot unreadable: ${e instanceof Error ? e.message : e}` };
    }
  }
}
