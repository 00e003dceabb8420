/**
 * The tenant's search index in memory, restored from its snapshot when the snapshot matches the
 * catalog revision and index version, otherwise rebuilt from the rows. A Durable Object forgets
 * its memory after ~10 s idle, so this runs on the hot path of every cold start.
 *
 * What tools learned from use (the usage field) is in the snapshot too, tagged with the learned-state version
 * (`learned_version` in meta, bumped by every change to the learned rows). A snapshot whose text is current but
 * whose learned part is older keeps its text, and the usage field alone is reloaded from the rows.
 */
import { searchable } from "../catalog/render.ts";
import type { ToolRow } from "../catalog/tool.ts";
import { INDEX_VERSION, ToolIndex } from "../search/tool-index.ts";
import type { LearnedTool } from "../search/usage.ts";
import type { CatalogRepo } from "./catalog-repo.ts";
import { chunked, crc32 } from "./chunks.ts";
import type { LearnedStore } from "./learned-store.ts";
import type { Meta } from "./meta.ts";

export interface LoadReport {
  source: "snapshot" | "rebuild";
  /** Why a snapshot was not used, when it was not. */
  reason?: string;
  tools: number;
  /** Where the usage field came from: the snapshot, or the learned rows (a rebuild, or a stale learned part). */
  learned: "snapshot" | "rows";
  ms: number;
}

/**
 * A snapshot is written from an index built afresh from the rows when the slots of tools gone from the catalog pass
 * this share of the live tools (and COMPACT_MIN_SLOTS): churn of tool names then costs memory and snapshot bytes
 * within about that share of a fresh build's, at the price of one rebuild, off the request path, per such churn.
 */
const COMPACT_SHARE = 0.1;
const COMPACT_MIN_SLOTS = 64;

export class IndexCache {
  private index: ToolIndex | null = null;
  lastLoad: LoadReport | null = null;
  /** Rebuilds made to drop the slots of tools gone from the catalog (see COMPACT_SHARE). */
  compactions = 0;
  /** Set when a snapshot tagged current could not be used (damaged): it must be rewritten. */
  private snapshotBroken = false;

  private readonly sql: SqlStorage;
  private readonly repo: CatalogRepo;
  private readonly learned: LearnedStore;
  private readonly meta: Meta;
  private readonly onRebuilt: () => void;

  /** `onRebuilt` runs after a rebuild from rows of a non-empty catalog: time to write a snapshot. */
  constructor(sql: SqlStorage, repo: CatalogRepo, learned: LearnedStore, meta: Meta, onRebuilt: () => void = () => {}) {
    this.sql = sql;
    this.repo = repo;
    this.learned = learned;
    this.meta = meta;
    this.onRebuilt = onRebuilt;
  }

  get(): ToolIndex {
    return this.load(true);
  }

  /** The index, restored or rebuilt if not in memory; `announce` reports a rebuild to `onRebuilt`. */
  private load(announce: boolean): ToolIndex {
    if (this.index) return this.index;
    const started = Date.now();
    const restored = this.restore();
    this.index = restored.index ?? this.rebuild();
    const version = this.learnedVersion();
    const learnedFromSnapshot = restored.index !== null && this.index.learnedVersion === version;
    if (!learnedFromSnapshot) this.index.loadLearned(this.learned.all(), version);
    this.lastLoad = {
      source: restored.index ? "snapshot" : "rebuild",
      ...(restored.reason ? { reason: restored.reason } : {}),
      tools: this.index.size,
      learned: learnedFromSnapshot ? "snapshot" : "rows",
      ms: Date.now() - started,
    };
    if (announce && !restored.index && this.index.size > 0) this.onRebuilt();
    return this.index;
  }

  /** Replaces the index in memory with one built afresh from the rows (and learned rows): no stale slots. */
  private compact(stale: number): ToolIndex {
    const started = Date.now();
    const index = this.rebuild();
    index.loadLearned(this.learned.all(), this.learnedVersion());
    this.index = index;
    this.compactions += 1;
    this.lastLoad = {
      source: "rebuild",
      reason: `compaction: ${stale} slots of tools no longer in the catalog`,
      tools: index.size,
      learned: "rows",
      ms: Date.now() - started,
    };
    return index;
  }

  /** The index from the rows, read lazily: ToolIndex works in slices, so parsed rows never pile up. */
  private rebuild(): ToolIndex {
    const repo = this.repo;
    return ToolIndex.fromTools(
      (function* () {
        for (const row of repo.allTools()) yield searchable(row);
      })(),
    );
  }

  /**
   * Applies a committed catalog change to the loaded index; an index not in memory is left to load later. Removed
   * tools take what they learned with them, as the same change did to their learned rows.
   */
  apply(upserts: readonly ToolRow[], removals: readonly string[]): void {
    if (!this.index) return;
    try {
      this.index.remove(removals);
      this.index.upsert(upserts.map(searchable));
      this.index.markLearned(this.learnedVersion());
    } catch (e) {
      // The rows are committed; a half-applied index must not answer. Rebuild on next use.
      this.index = null;
      throw e;
    }
  }

  /** Applies a committed credit (what one tool learned now) to the loaded index. */
  applyLearned(toolId: string, learned: LearnedTool): void {
    this.index?.setLearned(toolId, learned, this.learnedVersion());
  }

  /** After learned rows changed other than by a credit (forgotten, pruned): the usage field reloads from them. */
  reloadLearned(): void {
    this.index?.loadLearned(this.learned.all(), this.learnedVersion());
  }

  private learnedVersion(): number {
    return this.learned.version();
  }

  snapshotIsCurrent(): boolean {
    return (
      this.meta.number("snapshot_revision") === this.meta.number("revision") &&
      this.meta.number("snapshot_index_version") === INDEX_VERSION
    );
  }

  /** The snapshot as stored: the revision it reflects, its size, whether it is current; null when there is none. */
  snapshotInfo(): { revision: number; bytes: number; current: boolean } | null {
    if (this.meta.get("snapshot_revision") === null) return null;
    return {
      revision: this.meta.number("snapshot_revision"),
      bytes: this.meta.number("snapshot_bytes"),
      current: !this.needsSnapshot(),
    };
  }

  /** Whether a cold start would rebuild instead of restoring: the snapshot is stale, missing or damaged. */
  needsSnapshot(): boolean {
    return (
      this.snapshotBroken ||
      !this.snapshotIsCurrent() ||
      this.meta.number("snapshot_learned_version") !== this.learnedVersion()
    );
  }

  /**
   * Persists the index (loading it first if needed) as checksummed chunks, tagged with the revision
   * it reflects. Chunks are cut from the index's own arrays one at a time, so writing a snapshot of
   * a large catalog holds the index plus one chunk, not the index plus a copy of it.
   */
  writeSnapshot(): { bytes: number; chunks: number } {
    // Loading here is for the snapshot being written: no need to ask for another one.
    let index = this.load(false);
    const stale = index.allocatedIds - index.size;
    if (stale > Math.max(COMPACT_MIN_SLOTS, index.size * COMPACT_SHARE)) index = this.compact(stale);
    const parts = index.snapshotParts();
    this.sql.exec(`DELETE FROM snapshot_chunks`);
    let chunks = 0;
    let bytes = 0;
    for (const chunk of chunked(parts)) {
      this.sql.exec(`INSERT INTO snapshot_chunks (seq, data, crc) VALUES (?, ?, ?)`, chunks++, chunk, crc32(chunk));
      bytes += chunk.byteLength;
    }
    this.meta.set("snapshot_revision", this.meta.number("revision"));
    this.meta.set("snapshot_index_version", INDEX_VERSION);
    this.meta.set("snapshot_learned_version", index.learnedVersion);
    this.meta.set("snapshot_chunks", chunks);
    this.meta.set("snapshot_bytes", bytes);
    this.snapshotBroken = false;
    return { bytes, chunks };
  }

  private restore(): { index: ToolIndex | null; reason?: string } {
    if (this.meta.get("snapshot_revision") === null) return { index: null, reason: "no snapshot" };
    if (!this.snapshotIsCurrent())
      return { index: null, reason: "snapshot is older than the catalog or index version" };
    const read = this.readChunks();
    if (typeof read === "string") return this.broken(read);
    try {
      const index = ToolIndex.restore(read);
      if (index.size !== this.repo.countTools()) return this.broken("snapshot does not match the rows");
      return { index };
    } catch (e) {
      return this.broken(`snapshot unreadable: ${e instanceof Error ? e.message : e}`);
    }
  }

  private broken(reason: string): { index: null; reason: string } {
    this.snapshotBroken = true;
    return { index: null, reason };
  }

  /**
   * The snapshot's bytes, checked chunk by chunk against their CRCs, or why they cannot be used.
   * Chunks are copied one at a time into one buffer of the recorded size, so a cold start holds
   * the snapshot once (plus one chunk), not the chunks and their concatenation side by side.
   */
  private readChunks(): Uint8Array | string {
    const expected = this.meta.number("snapshot_chunks");
    const size = this.meta.number("snapshot_bytes");
    const bytes = new Uint8Array(size);
    let at = 0;
    let seq = 0;
    for (const row of this.sql.exec<{ seq: number; data: ArrayBuffer; crc: number }>(
      `SELECT seq, data, crc FROM snapshot_chunks ORDER BY seq`,
    )) {
      if (row.seq !== seq) return "snapshot chunk missing";
      const part = new Uint8Array(row.data);
      if (at + part.length > size) return "snapshot chunks larger than recorded";
      if (crc32(part) !== row.crc) return "snapshot chunk checksum mismatch";
      bytes.set(part, at);
      at += part.length;
      seq++;
    }
    if (seq !== expected || at !== size) return "snapshot chunk missing";
    return bytes;
  }
}
