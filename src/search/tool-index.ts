/**
 * The search core's one entry point: an Orama database of tools (custom tokenizer, compact BM25F
 * index, search fields only, no sorter) plus the exact-name lookup that BM25 alone gets wrong.
 *
 * Pure TypeScript with no `cloudflare:*` imports: the Durable Object, the Node scripts (eval,
 * bench) and the tests all run exactly this code.
 */
import { count, create, insertMultiple, load, removeMultiple, save, type AnyOrama, type Tokenizer } from "@orama/orama";
import { FIELDS, toSearchDocument, type Field, type SearchableTool } from "./document.ts";
import { freezeNames, lookup, nameStore, type NameKind, type NameStore } from "./name-store.ts";
import { queryKey } from "./names.ts";
import { freeze, postingsIndex, settle, type PostingsStore } from "./postings.ts";
import { DEFAULT_BM25F, explainTerms, scoreTerms, type Bm25fParams, type TermExplanation } from "./ranker.ts";
import { decodeSnapshot, encodeSnapshot, encodeSnapshotParts } from "./snapshot.ts";
import { analyze } from "./tokenizer.ts";

/**
 * Version of everything that decides what the index holds (analysis, fields, layout). A snapshot
 * written under another version is rebuilt from rows, never loaded.
 */
export const INDEX_VERSION = 2;

export interface SearchOptions {
  limit: number;
  /** Minimum score a ranked (not exact-name) hit needs. */
  threshold: number;
  params?: Bm25fParams;
  explain?: boolean;
}

export interface Explanation {
  /** How the tool was matched: its exact name (or tail of its namespaced name) or ranked terms. */
  match: "exact-name" | "name-tail" | "terms";
  /** Query terms found, per field. */
  fields: Partial<Record<Field, string[]>>;
  terms: TermExplanation[];
}

export interface Hit {
  id: string;
  score: number;
  match: Explanation["match"];
  explain?: Explanation;
}

/** Tools analysed and inserted per step of an upsert. */
const UPSERT_SLICE = 2_000;

const tokenizer: Tokenizer = {
  language: "english",
  normalizationCache: new Map(),
  tokenize: (raw: string) => analyze(raw),
};

const schema = Object.fromEntries(FIELDS.map((f) => [f, "string"])) as Record<Field, "string">;

function createDb(): AnyOrama {
  return create({ schema, sort: { enabled: false }, components: { tokenizer, index: postingsIndex, documentsStore: nameStore } }) as AnyOrama;
}

export class ToolIndex {
  private readonly db: AnyOrama;
  /**
   * After a restore, Orama's id -> internal id map is filled on first need (a write, `has`, an
   * exact-name hit), not on load: ranked search only maps internal ids back to ids, and at
   * 100,000 tools building the map is a fifth of the restore.
   */
  private idsPending = false;

  private constructor(db: AnyOrama) {
    this.db = db;
  }

  static empty(): ToolIndex {
    return new ToolIndex(createDb());
  }

  /** An index of `tools`, merged into its compact layout. `tools` may be a lazy iterable (rows read as it goes). */
  static fromTools(tools: Iterable<SearchableTool>): ToolIndex {
    const index = ToolIndex.empty();
    index.upsert(tools);
    index.compact();
    return index;
  }

  /**
   * Restores a snapshot; throws SnapshotError when it is unreadable or from another index version.
   * The postings and name tables become views over `bytes` (or over a copy of just those sections,
   * when the rest is worth freeing); the caller must not modify `bytes` afterwards.
   */
  static restore(bytes: Uint8Array): ToolIndex {
    const db = createDb();
    const raw = decodeSnapshot(bytes, INDEX_VERSION);
    const ids = (raw.internalDocumentIDStore as { internalIdToId: string[] }).internalIdToId;
    load(db, { ...raw, internalDocumentIDStore: { internalIdToId: [] } } as typeof raw);
    db.internalDocumentIDStore.internalIdToId = ids;
    const index = new ToolIndex(db);
    index.idsPending = ids.length > 0;
    return index;
  }

  snapshot(): Uint8Array {
    return encodeSnapshot(save(this.db), INDEX_VERSION);
  }

  /** The snapshot as parts to write in order, mostly views of the index: no second copy of the postings. */
  snapshotParts(): Uint8Array[] {
    return encodeSnapshotParts(save(this.db), INDEX_VERSION);
  }

  get size(): number {
    return count(this.db);
  }

  has(id: string): boolean {
    const internalId = this.idMap().get(id);
    return internalId !== undefined && this.names().records[internalId] !== undefined;
  }

  /** Adds or replaces tools by id. */
  /**
   * Adds or replaces tools by id. Works in slices, so that a large upload (or a rebuild from rows)
   * never holds every tool's search text at once and pending writes are merged as they grow.
   */
  upsert(tools: Iterable<SearchableTool>): void {
    let slice: SearchableTool[] = [];
    for (const tool of tools) {
      slice.push(tool);
      if (slice.length === UPSERT_SLICE) (this.upsertSlice(slice), (slice = []));
    }
    if (slice.length > 0) this.upsertSlice(slice);
  }

  private upsertSlice(tools: SearchableTool[]): void {
    const docs = tools.map(toSearchDocument);
    this.remove(docs.map((d) => d.id));
    insertMultiple(this.db, docs);
    settle(this.postings());
    freezeNames(this.names(), false);
  }

  remove(ids: Iterable<string>): void {
    const present = [...ids].filter((id) => this.has(id));
    if (present.length === 0) return;
    removeMultiple(this.db, present);
  }

  /** Merges pending writes into the compact layout (done anyway before a snapshot and when writes pile up). */
  compact(): void {
    freeze(this.postings());
    freezeNames(this.names(), true);
  }

  /** Tools whose exact name (or namespaced tail) is the query, then BM25F-ranked tools above the threshold. */
  search(query: string, options: SearchOptions): Hit[] {
    const params = options.params ?? DEFAULT_BM25F;
    const terms = [...new Set(analyze(query))];
    const key = queryKey(query);
    const named = new Map<string, Hit["match"]>();
    for (const id of this.named("exact", key)) named.set(id, "exact-name");
    for (const id of this.named("tails", key)) if (!named.has(id)) named.set(id, "name-tail");

    const ids = this.db.internalDocumentIDStore.internalIdToId;
    const ranked = scoreTerms(this.postings(), terms, params, options.limit + named.size, (i) => ids[i - 1]!);
    const scoreOf = new Map(ranked.map((r) => [ids[r.internalId - 1]!, r.score]));

    const hits: Hit[] = [];
    for (const [id, match] of named) {
      const score = scoreOf.get(id) ?? sum(explainTerms(this.postings(), terms, params, this.idMap().get(id)!));
      hits.push({ id, score, match });
    }
    for (const r of ranked) {
      const id = ids[r.internalId - 1]!;
      if (named.has(id) || r.score < options.threshold) continue;
      hits.push({ id, score: r.score, match: "terms" });
    }
    const top = hits.slice(0, options.limit);
    if (options.explain) for (const hit of top) hit.explain = this.explain(hit, terms, params);
    return top;
  }

  private explain(hit: Hit, terms: string[], params: Bm25fParams): Explanation {
    const internalId = this.idMap().get(hit.id)!;
    const parts = explainTerms(this.postings(), terms, params, internalId);
    const fields: Explanation["fields"] = {};
    for (const part of parts) for (const f of Object.keys(part.tf) as Field[]) (fields[f] ??= []).push(part.term);
    return { match: hit.match, fields, terms: parts };
  }

  /** Tool ids whose `kind` name keys include `key`, sorted. */
  private named(kind: NameKind, key: string): string[] {
    const ids = this.db.internalDocumentIDStore.internalIdToId;
    return lookup(this.names(), kind, key)
      .map((i) => ids[i - 1]!)
      .sort();
  }

  /** Orama's id -> internal id map, filled in place (the name store shares it) if still pending. */
  private idMap(): Map<string, number> {
    const store = this.db.internalDocumentIDStore;
    if (this.idsPending) {
      store.internalIdToId.forEach((id, i) => store.idToInternalId.set(id, i + 1));
      this.idsPending = false;
    }
    return store.idToInternalId;
  }

  private postings(): PostingsStore {
    return this.db.data.index as unknown as PostingsStore;
  }

  private names(): NameStore {
    return this.db.data.docs as unknown as NameStore;
  }
}

function sum(parts: TermExplanation[]): number {
  return parts.reduce((total, p) => total + p.score, 0);
}
