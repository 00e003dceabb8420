/**
 * The search core's one entry point: an Orama database of tools (custom tokenizer, compact BM25F
 * index, search fields only, no sorter) plus the exact-name lookup that BM25 alone gets wrong.
 *
 * Pure TypeScript with no `cloudflare:*` imports: the Durable Object, the Node scripts (eval,
 * bench) and the tests all run exactly this code.
 */
import { count, create, insertMultiple, load, removeMultiple, save, type AnyOrama, type Tokenizer } from "@orama/orama";
import { FIELDS, fieldTerms, toSearchDocument, type Field, type SearchableTool, type SearchDocument } from "./document.ts";
import { nameKeys, queryKey } from "./names.ts";
import { postingsIndex, type PostingsStore } from "./postings.ts";
import { queryTerms, type Synonyms } from "./query.ts";
import { DEFAULT_BM25F, explainTerms, scoreTerms, scoreUnit, type Bm25fParams, type QueryTerm, type TermExplanation } from "./ranker.ts";
import { serverContext, type Context } from "./server-context.ts";
import { decodeSnapshot, encodeSnapshot } from "./snapshot.ts";

/**
 * Version of everything that decides what the index holds (analysis, fields, layout). A snapshot
 * written under another version is rebuilt from rows, never loaded.
 */
export const INDEX_VERSION = 2;

export interface SearchOptions {
  limit: number;
  /** The score the best ranked hit must reach for the query to match anything (see `passing`). */
  threshold: number;
  params?: Bm25fParams;
  /** The tenant's synonyms (query.ts). */
  synonyms?: Synonyms;
  explain?: boolean;
}

export interface Explanation {
  /** How the tool was matched: its exact name (or tail of its namespaced name) or ranked terms. */
  match: "exact-name" | "name-tail" | "terms";
  /** Query terms found, per field. */
  fields: Partial<Record<Field, string[]>>;
  /** Each matched term's weight, idf (nats), counts per field and part of the score (score units). */
  terms: TermExplanation[];
  /** The server-context part of the score, when the tool has one (server-context.ts). */
  context?: Context;
  /** ln(1 + N): the evidence in nats that makes a score of 1 (ranker.ts `scoreUnit`). */
  unit: number;
}

export interface Hit {
  id: string;
  /** Evidence / unit + context: the number thresholds are compared with. */
  score: number;
  match: Explanation["match"];
  explain?: Explanation;
}

/** How many of the best-scoring tools server context looks at (server-context.ts). */
const CANDIDATES = 20;
/**
 * Once the best ranked hit reaches the threshold, the other hits are listed down to this share of
 * it: alternatives nearly as good as a clear match are worth showing, noise is not.
 */
const COMPANION_SHARE = 0.5;

/** Scores are compared at this precision so that float noise never decides an order: ties go to the id. */
const SCORE_EPSILON = 1e-9;

/**
 * The threshold rule. Exact-name and name-tail hits always pass. Ranked hits (best first) pass
 * only when the best of them reaches `threshold`; then every ranked hit scoring at least
 * COMPANION_SHARE * threshold passes. Exported so the evaluation applies the very same rule.
 */
export function passing<T extends Pick<Hit, "score" | "match">>(hits: readonly T[], threshold: number): T[] {
  const best = hits.find((h) => h.match === "terms");
  const open = best !== undefined && best.score >= threshold;
  return hits.filter((h) => h.match !== "terms" || (open && h.score >= COMPANION_SHARE * threshold));
}

const tokenizer: Tokenizer = {
  language: "english",
  normalizationCache: new Map(),
  // Orama passes the field being indexed; queries are analysed by query.ts, not through Orama.
  tokenize: (raw: string, _language?: string, prop?: string) => fieldTerms(prop ?? "", raw),
};

const schema = Object.fromEntries(FIELDS.map((f) => [f, "string"])) as Record<Field, "string">;

function createDb(): AnyOrama {
  return create({ schema, sort: { enabled: false }, components: { tokenizer, index: postingsIndex } }) as AnyOrama;
}

export class ToolIndex {
  private readonly db: AnyOrama;
  /** Exact-name keys (see names.ts) -> tool ids, and name tails -> tool ids. */
  private readonly exact = new Map<string, Set<string>>();
  private readonly tails = new Map<string, Set<string>>();

  private constructor(db: AnyOrama) {
    this.db = db;
    for (const doc of Object.values(this.docs())) this.addNames(doc);
  }

  static empty(): ToolIndex {
    return new ToolIndex(createDb());
  }

  static fromTools(tools: Iterable<SearchableTool>): ToolIndex {
    const index = ToolIndex.empty();
    index.upsert(tools);
    return index;
  }

  /** Restores a snapshot; throws SnapshotError when it is unreadable or from another index version. */
  static restore(bytes: Uint8Array): ToolIndex {
    const db = createDb();
    load(db, decodeSnapshot(bytes, INDEX_VERSION));
    return new ToolIndex(db);
  }

  snapshot(): Uint8Array {
    return encodeSnapshot(save(this.db), INDEX_VERSION);
  }

  get size(): number {
    return count(this.db);
  }

  has(id: string): boolean {
    return this.document(id) !== undefined;
  }

  /** The indexed text of a tool (name, server, description...), or undefined. */
  document(id: string): SearchDocument | undefined {
    const internalId = this.db.internalDocumentIDStore.idToInternalId.get(id);
    return internalId === undefined ? undefined : this.docs()[internalId];
  }

  /** Adds or replaces tools by id. */
  upsert(tools: Iterable<SearchableTool>): void {
    const docs = [...tools].map(toSearchDocument);
    this.remove(docs.map((d) => d.id));
    insertMultiple(this.db, docs);
    for (const doc of docs) this.addNames(doc);
  }

  remove(ids: Iterable<string>): void {
    const present = [...ids].filter((id) => this.has(id));
    if (present.length === 0) return;
    for (const id of present) {
      for (const [map, keys] of this.keysOf(this.document(id)!)) for (const key of keys) deleteFrom(map, key, id);
    }
    removeMultiple(this.db, present);
  }

  /**
   * Tools whose exact name (or namespaced tail) is the query, then tools ranked by score:
   * BM25F⁺ evidence (ranker.ts) over the score unit, plus server context. See `passing` for the threshold.
   */
  search(query: string, options: SearchOptions): Hit[] {
    const params = options.params ?? DEFAULT_BM25F;
    const terms = queryTerms(query, options.synonyms);
    const key = queryKey(query);
    const named = new Map<string, Hit["match"]>();
    for (const id of sorted(this.exact.get(key))) named.set(id, "exact-name");
    for (const id of sorted(this.tails.get(key))) if (!named.has(id)) named.set(id, "name-tail");

    const store = this.postings();
    const unit = scoreUnit(store.docs);
    const ids = this.db.internalDocumentIDStore.internalIdToId;
    const internal = this.db.internalDocumentIDStore.idToInternalId;
    const ranked = scoreTerms(store, terms, params, Math.max(CANDIDATES, options.limit + named.size), (i) => ids[i - 1]!);
    const candidates = ranked.map((r) => ({ id: ids[r.internalId - 1]!, score: r.score / unit }));
    const context = serverContext(candidates);
    const scored = (id: string, own: number) => own + (context.get(id)?.score ?? 0);

    const hits: Hit[] = [];
    for (const [id, match] of named) {
      const evidence = candidates.find((c) => c.id === id)?.score ?? sum(explainTerms(store, terms, params, internal.get(id)!)) / unit;
      hits.push({ id, score: scored(id, evidence), match });
    }
    const rest = candidates.filter((c) => !named.has(c.id)).map((c): Hit => ({ id: c.id, score: scored(c.id, c.score), match: "terms" }));
    rest.sort((a, b) => (Math.abs(a.score - b.score) > SCORE_EPSILON ? b.score - a.score : a.id < b.id ? -1 : 1));
    const top = passing([...hits, ...rest], options.threshold).slice(0, options.limit);
    if (options.explain) for (const hit of top) hit.explain = this.explain(hit, terms, params, unit, context.get(hit.id));
    return top;
  }

  private explain(hit: Hit, terms: QueryTerm[], params: Bm25fParams, unit: number, context: Context | undefined): Explanation {
    const internalId = this.db.internalDocumentIDStore.idToInternalId.get(hit.id)!;
    const parts = explainTerms(this.postings(), terms, params, internalId).map((p) => ({ ...p, score: p.score / unit }));
    const fields: Explanation["fields"] = {};
    for (const part of parts) for (const f of Object.keys(part.tf) as Field[]) (fields[f] ??= []).push(part.term);
    return { match: hit.match, fields, terms: parts, ...(context ? { context } : {}), unit };
  }

  private postings(): PostingsStore {
    return this.db.data.index as unknown as PostingsStore;
  }

  private docs(): Record<number, SearchDocument> {
    return (this.db.data.docs as unknown as { docs: Record<number, SearchDocument> }).docs;
  }

  private keysOf(doc: SearchDocument): [Map<string, Set<string>>, string[]][] {
    const keys = nameKeys(doc.server, doc.toolName, doc.aliases);
    return [
      [this.exact, keys.exact],
      [this.tails, keys.tails],
    ];
  }

  private addNames(doc: SearchDocument): void {
    for (const [map, keys] of this.keysOf(doc)) {
      for (const key of keys) {
        let set = map.get(key);
        if (!set) map.set(key, (set = new Set()));
        set.add(doc.id);
      }
    }
  }
}

function deleteFrom(map: Map<string, Set<string>>, key: string, id: string): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(id);
  if (set.size === 0) map.delete(key);
}

function sorted(ids: Set<string> | undefined): string[] {
  return ids ? [...ids].sort() : [];
}

function sum(parts: TermExplanation[]): number {
  return parts.reduce((total, p) => total + p.score, 0);
}
