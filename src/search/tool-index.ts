/**
 * The search core's one entry point: an Orama database of tools (custom tokenizer, compact BM25F
 * index, search fields only, no sorter) plus the exact-name lookup that BM25 alone gets wrong.
 *
 * Pure TypeScript with no `cloudflare:*` imports: the Durable Object, the Node scripts (eval,
 * bench) and the tests all run exactly this code.
 */
import { FIELDS, type ScoredField } from "../catalog/fields.ts";
import { fieldTerms, type SearchDocument, toSearchDocument, type SearchableTool } from "./document.ts";
import { freezeNames, lookup, nameStore, type NameKind, type NameStore } from "./name-store.ts";
import { queryKey } from "./names.ts";
import { OramaDb } from "./orama.ts";
import { freeze, postingsIndex, settle, type PostingsStore } from "./postings.ts";
import { queryTerms, type Synonyms } from "./query.ts";
import {
  DEFAULT_BM25F,
  explainTerms,
  scoreTerms,
  scoreUnit,
  type Bm25fParams,
  type QueryTerm,
  type TermExplanation,
  type UsageLookup,
} from "./ranker.ts";
import { serverContext, type Context } from "./server-context.ts";
import { decodeSnapshot, encodeSnapshot, encodeSnapshotParts } from "./snapshot.ts";
import { dayOf, DEFAULT_HALF_LIFE_DAYS } from "./learning.ts";
import { UsageField, type LearnedTool } from "./usage.ts";

/**
 * Version of everything that decides what the index holds (analysis, fields, layout). A snapshot
 * written under another version is rebuilt from rows, never loaded.
 */
export const INDEX_VERSION = 3;

export interface SearchOptions {
  limit: number;
  /** The score the best ranked hit must reach for the query to match anything (see `passing`). */
  threshold: number;
  params?: Bm25fParams;
  /** The tenant's synonyms (query.ts). */
  synonyms?: Synonyms;
  explain?: boolean;
  /** The usage field's clock: learned weights decay to this day (learning.ts `dayOf`); default today. */
  day?: number;
  /** The tenant's `learn_half_life_days`. */
  halfLifeDays?: number;
}

/**
 * Why a tool is in the results. Named first, always: `exact-name` (the query is one of the tool's
 * names), `name-tail` (the tail of a namespaced name), `server-name` (the query is the tool's server).
 * Ranked: `name-words` (every word of the query is in the tool's name, server or keywords) and
 * `terms` (everything else). See `passing` for what each needs to be listed.
 */
type Match = "exact-name" | "name-tail" | "server-name" | "name-words" | "terms";

export interface Explanation {
  match: Match;
  /** Query terms found, per field. */
  fields: Partial<Record<ScoredField, string[]>>;
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
  match: Match;
  explain?: Explanation;
}

/** How many of the best-scoring tools server context looks at (server-context.ts). */
const CANDIDATES = 20;
/**
 * Once the best ranked hit reaches the threshold, the other hits are listed down to this share of
 * it: alternatives nearly as good as a clear match are worth showing, noise is not.
 */
const COMPANION_SHARE = 0.5;

/**
 * A query made only of words a tool is called by (`weather`, `slack`, `create issue`) names it, which
 * says more than the same words found in descriptions: such a hit is listed from this share of the
 * threshold, even when nothing reaches the threshold itself. Chosen with `npm run eval` (docs/quality.md):
 * it keeps the share of irrelevant questions answered "no match" above 25 %.
 */
const NAMING_SHARE = 0.7;

/** Scores are compared at this precision so that float noise never decides an order: ties go to the id. */
const SCORE_EPSILON = 1e-9;

const NAMED: ReadonlySet<Match> = new Set(["exact-name", "name-tail", "server-name"]);

/**
 * The threshold rule. Named hits (exact name, name tail, server name) always pass. Ranked hits
 * (best first) pass when the best of them reaches `threshold`, down to COMPANION_SHARE * threshold;
 * a `name-words` hit also passes on its own from NAMING_SHARE * threshold. Exported so that the
 * evaluation applies the very same rule.
 */
export function passing<T extends Pick<Hit, "score" | "match">>(hits: readonly T[], threshold: number): T[] {
  const best = hits.find((h) => !NAMED.has(h.match));
  const open = best !== undefined && best.score >= threshold;
  return hits.filter(
    (h) =>
      NAMED.has(h.match) ||
      (open && h.score >= COMPANION_SHARE * threshold) ||
      (h.match === "name-words" && h.score >= NAMING_SHARE * threshold),
  );
}

/** Whether a query's words can name a tool: a word of one letter or only digits names nothing. */
function canName(terms: readonly QueryTerm[]): boolean {
  const words = terms.filter((t) => t.word);
  return words.length > 0 && words.every((t) => t.term.length >= 2 && /\p{L}/u.test(t.term));
}

/** Tools analysed and inserted per step of an upsert. */
const UPSERT_SLICE = 2_000;

type Db = OramaDb<PostingsStore, NameStore, SearchDocument>;

function createDb(): Db {
  return OramaDb.create(FIELDS, {
    // Fields are analysed as they are indexed; queries are analysed by query.ts, not through Orama.
    tokenize: (raw, prop) => fieldTerms(prop, raw),
    index: postingsIndex,
    documentsStore: nameStore,
  });
}

export class ToolIndex {
  private readonly db: Db;
  /** What the tools learned from use: their `usage` field (usage.ts), kept beside the text's postings. */
  private usage: UsageField;
  /**
   * After a restore, Orama's id -> internal id map is filled on first need (a write, `has`, an
   * exact-name hit), not on load: ranked search only maps internal ids back to ids, and at
   * 100,000 tools building the map is a fifth of the restore.
   */
  private idsPending = false;

  private constructor(db: Db, usage = new UsageField()) {
    this.db = db;
    this.usage = usage;
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
    const saved = decodeSnapshot(bytes, INDEX_VERSION);
    db.load(saved);
    const index = new ToolIndex(db, saved.usage);
    index.idsPending = saved.ids.length > 0;
    return index;
  }

  snapshot(): Uint8Array {
    return encodeSnapshot({ ...this.db.save(), usage: this.usage.save() }, INDEX_VERSION);
  }

  /** The snapshot as parts to write in order, mostly views of the index: no second copy of the postings. */
  snapshotParts(): Uint8Array[] {
    return encodeSnapshotParts({ ...this.db.save(), usage: this.usage.save() }, INDEX_VERSION);
  }

  get size(): number {
    return this.db.count;
  }

  has(id: string): boolean {
    const internalId = this.idMap().get(id);
    return internalId !== undefined && this.names().records[internalId] !== undefined;
  }

  /**
   * Adds or replaces tools by id. Works in slices, so that a large upload (or a rebuild from rows)
   * never holds every tool's search text at once and pending writes are merged as they grow.
   */
  upsert(tools: Iterable<SearchableTool>): void {
    let slice: SearchableTool[] = [];
    for (const tool of tools) {
      slice.push(tool);
      if (slice.length === UPSERT_SLICE) {
        this.upsertSlice(slice);
        slice = [];
      }
    }
    if (slice.length > 0) this.upsertSlice(slice);
  }

  private upsertSlice(tools: SearchableTool[]): void {
    const docs = tools.map(toSearchDocument);
    // A tool keeps its internal id, and with it what it learned, when its text is replaced.
    this.removeText(docs.map((d) => d.id));
    this.db.insert(docs);
    settle(this.postings());
    freezeNames(this.names(), false);
  }

  /** Removes tools, and what they learned. */
  remove(ids: Iterable<string>): void {
    const present = this.removeText(ids);
    for (const id of present) this.usage.drop(this.idMap().get(id)!);
  }

  private removeText(ids: Iterable<string>): string[] {
    const present = [...ids].filter((id) => this.has(id));
    if (present.length > 0) this.db.remove(present);
    return present;
  }

  // ---- learned from use (the usage field) ----------------------------------------------------------

  /** The learned-state version (the tenant's counter of changes to what tools learned) this index reflects. */
  get learnedVersion(): number {
    return this.usage.version;
  }

  /** Tools with learned terms. */
  get learnedTools(): number {
    return this.usage.size;
  }

  /** The learned state changed in ways this index already reflects (tools removed with what they learned). */
  markLearned(version: number): void {
    this.usage.version = version;
  }

  /** Replaces what one tool learned (no terms: forgets it); a tool not in the index is ignored. */
  setLearned(id: string, learned: LearnedTool, version: number): void {
    if (this.has(id)) this.usage.set(this.idMap().get(id)!, learned);
    this.usage.version = version;
  }

  /** Replaces everything tools learned, as from the tenant's rows; tools not in the index are ignored. */
  loadLearned(tools: Iterable<{ id: string } & LearnedTool>, version: number): void {
    const usage = new UsageField();
    for (const tool of tools) if (this.has(tool.id)) usage.set(this.idMap().get(tool.id)!, tool);
    usage.version = version;
    this.usage = usage;
  }

  /** Merges pending writes into the compact layout (done anyway before a snapshot and when writes pile up). */
  compact(): void {
    freeze(this.postings());
    freezeNames(this.names(), true);
  }

  /**
   * Tools whose exact name (or namespaced tail) is the query, then tools ranked by score:
   * BM25F⁺ evidence (ranker.ts) over the score unit, plus server context. See `passing` for the threshold.
   */
  search(query: string, options: SearchOptions): Hit[] {
    const params = options.params ?? DEFAULT_BM25F;
    const terms = queryTerms(query, options.synonyms);
    const key = queryKey(query);
    const named = new Map<string, Match>();
    for (const id of this.named("exact", key)) named.set(id, "exact-name");
    for (const id of this.named("tails", key)) if (!named.has(id)) named.set(id, "name-tail");

    const store = this.postings();
    const unit = scoreUnit(store.docs);
    const ids = this.db.ids.internalIdToId;
    const usage = this.usageLookup(options);
    const ranked = scoreTerms(
      store,
      terms,
      params,
      Math.max(CANDIDATES, options.limit + named.size),
      (i) => ids[i - 1]!,
      usage,
    );
    const words = canName(terms) ? terms.filter((t) => t.word).length : 0;
    const candidates = ranked.map((r) => {
      const id = ids[r.internalId - 1]!;
      const match: Match =
        serverOf(id).toLowerCase() === key
          ? "server-name"
          : words > 0 && r.namedWords === words
            ? "name-words"
            : "terms";
      return { id, score: r.score / unit, match };
    });
    const context = serverContext(candidates);
    const scored = (id: string, own: number) => own + (context.get(id)?.score ?? 0);

    const hits: Hit[] = [];
    for (const [id, match] of named) {
      const evidence =
        candidates.find((c) => c.id === id)?.score ??
        sum(explainTerms(store, terms, params, this.idMap().get(id)!, usage)) / unit;
      hits.push({ id, score: scored(id, evidence), match });
    }
    for (const c of candidates)
      if (c.match === "server-name" && !named.has(c.id)) hits.push({ ...c, score: scored(c.id, c.score) });
    const listed = new Set(hits.map((h) => h.id));
    const rest = candidates.filter((c) => !listed.has(c.id)).map((c): Hit => ({ ...c, score: scored(c.id, c.score) }));
    rest.sort((a, b) => (Math.abs(a.score - b.score) > SCORE_EPSILON ? b.score - a.score : a.id < b.id ? -1 : 1));
    const top = passing([...hits, ...rest], options.threshold).slice(0, options.limit);
    if (options.explain)
      for (const hit of top) hit.explain = this.explain(hit, terms, params, unit, context.get(hit.id), usage);
    return top;
  }

  /** The usage field as of the search's day; undefined when no tool learned anything. */
  private usageLookup(options: SearchOptions): UsageLookup | undefined {
    if (this.usage.size === 0) return undefined;
    const day = options.day ?? dayOf(Date.now());
    const halfLife = options.halfLifeDays ?? DEFAULT_HALF_LIFE_DAYS;
    const cache = new Map<string, ReturnType<UsageLookup>>();
    return (term) => {
      if (!cache.has(term)) cache.set(term, this.usage.postings(term, day, halfLife));
      return cache.get(term);
    };
  }

  private explain(
    hit: Hit,
    terms: QueryTerm[],
    params: Bm25fParams,
    unit: number,
    context: Context | undefined,
    usage: UsageLookup | undefined,
  ): Explanation {
    const internalId = this.idMap().get(hit.id)!;
    const parts = explainTerms(this.postings(), terms, params, internalId, usage).map((p) => ({
      ...p,
      score: p.score / unit,
    }));
    const fields: Explanation["fields"] = {};
    for (const part of parts) {
      for (const f of Object.keys(part.tf) as ScoredField[]) {
        fields[f] ??= [];
        fields[f].push(part.term);
      }
    }
    return { match: hit.match, fields, terms: parts, ...(context ? { context } : {}), unit };
  }

  /** Tool ids whose `kind` name keys include `key`, sorted. */
  private named(kind: NameKind, key: string): string[] {
    const ids = this.db.ids.internalIdToId;
    return lookup(this.names(), kind, key)
      .map((i) => ids[i - 1]!)
      .sort();
  }

  /** Orama's id -> internal id map, filled in place (the name store shares it) if still pending. */
  private idMap(): Map<string, number> {
    const store = this.db.ids;
    if (this.idsPending) {
      store.internalIdToId.forEach((id, i) => {
        store.idToInternalId.set(id, i + 1);
      });
      this.idsPending = false;
    }
    return store.idToInternalId;
  }

  private postings(): PostingsStore {
    return this.db.index;
  }

  private names(): NameStore {
    return this.db.docs;
  }
}

/** The server part of a tool id (`server::name`; server names hold no colon). */
function serverOf(id: string): string {
  return id.slice(0, id.indexOf("::"));
}

function sum(parts: TermExplanation[]): number {
  return parts.reduce((total, p) => total + p.score, 0);
}
