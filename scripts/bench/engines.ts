/**
 * The three engines the bench compares, over the same documents (the search text our index
 * analyses: name, server, description, parameter text, keywords, with the same analysis) and the
 * same queries:
 *   ours        the worker's own code: ToolIndex, and the tenant schema, CatalogRepo and IndexCache
 *               (checksummed snapshot chunks in SQLite, restore, rebuild from rows) through
 *               src/durable/index-storage.ts;
 *   minisearch  MiniSearch 7 with our analyser, field boosts like ours, JSON snapshot;
 *   fts5        SQLite FTS5 (node:sqlite) over pre-analysed text, bm25() with our field weights.
 * Each reports build, snapshot, restore (snapshot to first answer), rebuild from rows and search.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import MiniSearch from "minisearch";
import { toRow, type ToolRow } from "../../src/catalog/tool.ts";
import { searchable } from "../../src/catalog/render.ts";
import { type IndexStorage, openIndexStorage } from "../../src/durable/index-storage.ts";
import { FIELDS, type Field } from "../../src/catalog/fields.ts";
import { toSearchDocument, type SearchableTool, type SearchDocument } from "../../src/search/document.ts";
import { DEFAULT_BM25F } from "../../src/search/ranker.ts";
import { analyze } from "../../src/search/tokenizer.ts";
import { ToolIndex } from "../../src/search/tool-index.ts";
import { MB, measureHeap, time } from "./measure.ts";
import { nodeSqlStorage } from "./sql-storage.ts";
import type { BenchTool } from "./synthetic.ts";

/** What the worker asks for by default: 5 results, threshold 1.5. */
const LIMIT = 5;
const THRESHOLD = 1.5;
/** The query every restore and rebuild is timed to: a cold object answers its first search. */
const FIRST_QUERY = "list open issues";

export interface Figures {
  build_ms: number | null;
  heap_mb: number | null;
  snapshot_bytes: number | null;
  restore_ms: number | null;
  rebuild_ms: number | null;
  p50_ms: number | null;
  p99_ms: number | null;
  [extra: string]: number | string | null;
}

export interface Engine {
  readonly name: "ours" | "minisearch" | "fts5";
  /** Builds, snapshots, restores and rebuilds, filling every figure except the search percentiles. */
  prepare(): Figures;
  /** One search against the restored index; returns the number of hits. */
  search(query: string): number;
  close(): void;
}

/**
 * The catalog as tool rows in a tenant object's SQLite schema: what rebuilds read. The rows live
 * in SQLite only, not in the JS heap, so that timed phases pay for their own garbage collection
 * and not for the bench's (a Durable Object's heap holds the index, not the catalog).
 */
export class TenantRows {
  readonly db = new DatabaseSync(":memory:");
  readonly storage = openIndexStorage(nodeSqlStorage(this.db));
  readonly meta = this.storage.meta;
  readonly repo = this.storage.repo;

  static async of(tools: readonly BenchTool[]): Promise<TenantRows> {
    const t = new TenantRows();
    const rows = await Promise.all(
      tools.map((tool) =>
        toRow({
          ...tool,
          title: null,
          outputSchema: null,
          annotations: null,
          keywords: [],
          defer: null,
          vendor: null,
          inputSchema: tool.inputSchema as ToolRow["inputSchema"],
        }),
      ),
    );
    t.db.exec("BEGIN");
    t.meta.set("tenant_id", "bench");
    t.meta.set("revision", 1);
    t.repo.writeTools(rows, 1);
    t.db.exec("COMMIT");
    return t;
  }

  /** Tools as the index takes them. */
  searchables(): SearchableTool[] {
    return Array.from(this.repo.allTools(), searchable);
  }

  /** The search documents every engine indexes. */
  documents(): SearchDocument[] {
    return Array.from(this.repo.allTools(), (row) => toSearchDocument(searchable(row)));
  }
}

/**
 * Builds each engine once over a slice of the catalog, untimed, so that the first timed engine
 * does not pay alone for compiling the analyser and the SQLite paths that the others then reuse.
 */
export function warmUp(t: TenantRows, tools = 1_000): void {
  const docs = t.documents().slice(0, tools);
  const ours = ToolIndex.fromTools(t.searchables().slice(0, tools));
  ToolIndex.restore(ours.snapshot()).search(FIRST_QUERY, { limit: LIMIT, threshold: THRESHOLD });
  const ms = new MiniSearch<SearchDocument>(miniSearchOptions());
  ms.addAll(docs);
  MiniSearch.loadJSON<SearchDocument>(JSON.stringify(ms), miniSearchOptions()).search(FIRST_QUERY);
  const db = new DatabaseSync(":memory:");
  db.exec(
    `CREATE VIRTUAL TABLE tools USING fts5(id UNINDEXED, ${FIELDS.join(", ")}, tokenize = ` +
      `"unicode61 remove_diacritics 0")`,
  );
  const insert = db.prepare(
    `INSERT INTO tools (id, ${FIELDS.join(", ")}) VALUES (?, ${FIELDS.map(() => "?").join(", ")})`,
  );
  for (const doc of docs) insert.run(doc.id, ...FIELDS.map((f) => analyze(doc[f]).join(" ")));
  db.close();
}

export class Ours implements Engine {
  readonly name = "ours";
  private cache: ReturnType<IndexStorage["indexCache"]> | null = null;
  private readonly t: TenantRows;

  constructor(t: TenantRows) {
    this.t = t;
  }

  prepare(): Figures {
    const build = this.build();
    const rebuild = this.rebuildAndSnapshot();
    // Restore: a cold object with a current snapshot, timed to its first answer. Nothing built
    // above is still referenced, so the heap delta is the restored index alone.
    const restored = measureHeap(() => {
      const cache = this.t.storage.indexCache();
      cache.get().search(FIRST_QUERY, { limit: LIMIT, threshold: THRESHOLD });
      return cache;
    });
    if (restored.value.lastLoad?.source !== "snapshot")
      throw new Error(`expected a restore, got ${JSON.stringify(restored.value.lastLoad)}`);
    this.cache = restored.value;
    return {
      build_ms: build.ms,
      heap_mb: restored.bytes / MB,
      snapshot_bytes: rebuild.snapshotBytes,
      restore_ms: restored.ms,
      rebuild_ms: rebuild.ms,
      p50_ms: null,
      p99_ms: null,
      built_heap_mb: build.bytes / MB,
      snapshot_write_ms: rebuild.snapshotMs,
      snapshot_chunks: rebuild.chunks,
    };
  }

  /** An index built from tool objects already in memory (what an upload does). */
  private build(): { ms: number; bytes: number } {
    const tools = this.t.searchables();
    const built = measureHeap(() => ToolIndex.fromTools(tools));
    built.value.search(FIRST_QUERY, { limit: LIMIT, threshold: THRESHOLD });
    return { ms: built.ms, bytes: built.bytes };
  }

  /** A cold object whose snapshot is missing rebuilds from its rows; then it writes the snapshot. */
  private rebuildAndSnapshot(): { ms: number; snapshotMs: number; snapshotBytes: number; chunks: number } {
    this.t.db.exec("DELETE FROM snapshot_chunks");
    this.t.db.exec("DELETE FROM meta WHERE key LIKE 'snapshot_%'");
    const cache = this.t.storage.indexCache();
    const rebuild = time(() => cache.get().search(FIRST_QUERY, { limit: LIMIT, threshold: THRESHOLD }));
    if (cache.lastLoad?.source !== "rebuild") throw new Error("expected a rebuild");
    const written = time(() => cache.writeSnapshot());
    return { ms: rebuild.ms, snapshotMs: written.ms, snapshotBytes: written.value.bytes, chunks: written.value.chunks };
  }

  search(query: string): number {
    return this.cache!.get().search(query, { limit: LIMIT, threshold: THRESHOLD }).length;
  }

  close(): void {
    this.cache = null;
  }
}

const BOOSTS = Object.fromEntries(FIELDS.map((f) => [f, DEFAULT_BM25F.fields[f].weight])) as Record<Field, number>;

function miniSearchOptions() {
  return {
    idField: "id",
    fields: [...FIELDS],
    storeFields: [],
    tokenize: (text: string) => analyze(text),
    processTerm: (term: string) => term,
    searchOptions: { boost: BOOSTS, prefix: false, fuzzy: false, combineWith: "OR" as const },
  };
}

export class MiniSearchEngine implements Engine {
  readonly name = "minisearch";
  private index: MiniSearch<SearchDocument> | null = null;
  private readonly t: TenantRows;

  constructor(t: TenantRows) {
    this.t = t;
  }

  prepare(): Figures {
    const build = this.buildAndSnapshot();
    const rebuild = time(() => {
      const ms = new MiniSearch<SearchDocument>(miniSearchOptions());
      ms.addAll(Array.from(this.t.repo.allTools(), (row) => toSearchDocument(searchable(row))));
      ms.search(FIRST_QUERY).slice(0, LIMIT);
    });
    const restored = measureHeap(() => {
      const ms = MiniSearch.loadJSON<SearchDocument>(new TextDecoder().decode(build.snapshot), miniSearchOptions());
      ms.search(FIRST_QUERY).slice(0, LIMIT);
      return ms;
    });
    this.index = restored.value;
    return {
      build_ms: build.ms,
      heap_mb: restored.bytes / MB,
      snapshot_bytes: build.snapshot.byteLength,
      restore_ms: restored.ms,
      rebuild_ms: rebuild.ms,
      p50_ms: null,
      p99_ms: null,
      built_heap_mb: build.bytes / MB,
      snapshot_write_ms: build.snapshotMs,
    };
  }

  private buildAndSnapshot(): { ms: number; bytes: number; snapshot: Uint8Array; snapshotMs: number } {
    const docs = this.t.documents();
    const built = measureHeap(() => {
      const ms = new MiniSearch<SearchDocument>(miniSearchOptions());
      ms.addAll(docs);
      return ms;
    });
    const written = time(() => new TextEncoder().encode(JSON.stringify(built.value)));
    return { ms: built.ms, bytes: built.bytes, snapshot: written.value, snapshotMs: written.ms };
  }

  search(query: string): number {
    return this.index!.search(query).slice(0, LIMIT).length;
  }

  close(): void {
    this.index = null;
  }
}

/** FTS5 column order, with bm25() weights equal to our field weights. */
const FTS_COLUMNS = FIELDS;

export class Fts5Engine implements Engine {
  readonly name = "fts5";
  private db: DatabaseSync | null = null;
  private query: ReturnType<DatabaseSync["prepare"]> | null = null;
  private readonly dir = mkdtempSync(join(tmpdir(), "tool-search-bench-"));
  private readonly t: TenantRows;

  constructor(t: TenantRows) {
    this.t = t;
  }

  private build(path: string, docs: Iterable<SearchDocument>): DatabaseSync {
    rmSync(path, { force: true });
    const db = new DatabaseSync(path);
    db.exec(
      `CREATE VIRTUAL TABLE tools USING fts5(id UNINDEXED, ${FTS_COLUMNS.join(", ")}, tokenize ` +
        `= "unicode61 remove_diacritics 0")`,
    );
    const insert = db.prepare(
      `INSERT INTO tools (id, ${FTS_COLUMNS.join(", ")}) VALUES (?, ${FTS_COLUMNS.map(() => "?").join(", ")})`,
    );
    db.exec("BEGIN");
    for (const doc of docs) insert.run(doc.id, ...FTS_COLUMNS.map((f) => analyze(doc[f]).join(" ")));
    db.exec("COMMIT");
    return db;
  }

  private prepareQuery(db: DatabaseSync) {
    const weights = FTS_COLUMNS.map((f) => BOOSTS[f]).join(", ");
    return db.prepare(`SELECT id FROM tools WHERE tools MATCH ? ORDER BY bm25(tools, 0, ${weights}) LIMIT ${LIMIT}`);
  }

  private run(statement: ReturnType<DatabaseSync["prepare"]>, query: string): number {
    const terms = [...new Set(analyze(query))];
    if (terms.length === 0) return 0;
    return statement.all(terms.map((t) => `"${t}"`).join(" OR ")).length;
  }

  prepare(): Figures {
    const path = join(this.dir, "fts.sqlite");
    const docs = this.t.documents();
    const built = time(() => this.build(path, docs));
    built.value.close();
    const bytes = statSync(path).size;
    const rebuild = time(() => {
      const db = this.build(
        join(this.dir, "rebuild.sqlite"),
        (function* (repo) {
          for (const row of repo.allTools()) yield toSearchDocument(searchable(row));
        })(this.t.repo),
      );
      this.run(this.prepareQuery(db), FIRST_QUERY);
      return db;
    });
    rebuild.value.close();
    // Restore: open the persisted index and answer the first query.
    const restored = time(() => {
      const db = new DatabaseSync(path);
      const statement = this.prepareQuery(db);
      this.run(statement, FIRST_QUERY);
      return { db, statement };
    });
    this.db = restored.value.db;
    this.query = restored.value.statement;
    return {
      build_ms: built.ms,
      heap_mb: null,
      snapshot_bytes: bytes,
      restore_ms: restored.ms,
      rebuild_ms: rebuild.ms,
      p50_ms: null,
      p99_ms: null,
    };
  }

  search(query: string): number {
    return this.run(this.query!, query);
  }

  close(): void {
    this.db?.close();
    this.db = null;
    rmSync(this.dir, { recursive: true, force: true });
  }
}
