/**
 * The search core's one entry point: an Orama database of tools (custom tokenizer, compact BM25F
 * index, search fields only, no sorter) plus the exact-name lookup that BM25 alone gets wrong.
 *
 * Pure TypeScript with no `cloudflare:*` imports: the Durable Object, the Node scripts (eval,
 * bench) and the tests all run exactly this code.
 */
import { FIELDS, type ScoredField } from "../catalog/fields.ts";
import {
  DEFAULT_INDEX_OPTIONS,
  fieldTerms,
  type IndexOptions,
  type Analyzers,
  indexAnalyzers,
  type SearchableTool,
  type SearchDocument,
  toSearchDocument,
} from "./document.ts";
import { freezeNames, lookup, nameStore, type NameKind, type NameStore } from "./name-store.ts";
import { queryKey } from "./names.ts";
import { OramaDb } from "./orama.ts";
import {
  extraNameWords,
  type KnownWord,
  NAME_COVERAGE,
  NAME_EXTRA,
  NAMING_QUERY_WORDS,
  namingFactor,
} from "./naming.ts";
import {
  OPERATION_NOUNS,
  OPERATION_QUERY_WORDS,
  OPERATION_SERVICE,
  OPERATION_SHARE,
  OPERATION_WORDS,
  unasked,
} from "./operations.ts";
import {
  docsHoldingAll,
  documentFrequency,
  freeze,
  holdsAll,
  postingsIndex,
  settle,
  type PostingsStore,
} from "./postings.ts";
import {
  analyseQuery,
  BUILTIN_EXPANSION_WEIGHT,
  SHORT_EXPANSION_FACTOR,
  UNKNOWN_KEY_FACTOR,
  ABBREVIATION_WEIGHT,
  KEY_WORD_SHARE,
  BUILTIN_PHRASE_KEY_WEIGHT,
  PHRASE_WEIGHT,
  type Synonyms,
  KEY_SLOP,
  VALUE_WEIGHT,
  ASIDE_WEIGHT,
  COMPOUND_WEIGHT,
} from "./query.ts";
import {
  DEFAULT_BM25F,
  explainTerms,
  idfOf,
  scoreTerms,
  scoreUnit,
  type Bm25fParams,
  type QueryTerm,
  type TermExplanation,
  type UsageLookup,
} from "./ranker.ts";
import { CONTEXT_WEIGHT, serverContext, type Context } from "./server-context.ts";
import { REPLY_SHARE } from "./message.ts";
import {
  absentServices,
  compileServices,
  namedPresent,
  catalogServerNames,
  namedServers,
  OWN_NAME_SHARE,
  presentServices,
  type ServerNames,
  SERVICE_BOOST,
  serviceFactor,
  type ServiceNames,
  serviceNames,
} from "./services.ts";
import { decodeSnapshot, encodeSnapshot, encodeSnapshotParts } from "./snapshot.ts";
import { builtin, compileRules } from "./thesaurus/index.ts";
import { dayOf, DEFAULT_HALF_LIFE_DAYS } from "./learning.ts";
import { UsageField, type LearnedTool } from "./usage.ts";
import { askedVerbClass, nameVerbClasses, VERB_BOOST, verbFactor } from "./verbs.ts";

/**
 * Version of everything that decides what the index holds (analysis, fields, layout). A snapshot
 * written under another version is rebuilt from rows, never loaded.
 */
export const INDEX_VERSION = 4;

export interface SearchOptions {
  limit: number;
  /** The score the best ranked hit must reach for the query to match anything (see `passing`). */
  threshold: number;
  params?: Bm25fParams;
  /** The tenant's synonyms (query.ts). */
  synonyms?: Synonyms;
  /** Whether queries are expanded with the built-in thesaurus (thesaurus/; default true). */
  builtinSynonyms?: boolean;
  /** The most distinct terms a query is scored with (limit max_query_terms). */
  maxTerms?: number;
  explain?: boolean;
  /**
   * Whether a query that is a tool's name (or its namespaced tail) finds it by that name (default true); false ranks
   * every tool by its words alone, as the catalog doctor asks when it checks what a tool's own words reach.
   */
  names?: boolean;
  /** Ranking constants, for the evaluation's ablations (defaults: DEFAULT_TUNING). */
  tuning?: Partial<Tuning>;
  /** The usage field's clock: learned weights decay to this day (learning.ts `dayOf`); default today. */
  day?: number;
  /** The tenant's `learn_half_life_days`. */
  halfLifeDays?: number;
}

/**
 * What a named service the catalog lacks (`zendesk` in "open a zendesk ticket", services.ts) weighs against a match,
 * in score units: a score s becomes s * s / (s + 3 n) for n such names. A short query that matches on its other words
 * falls below the threshold (1.8 -> 0.68); a long request whose other words match strongly keeps most of its score
 * (6 -> 4), since the service may be incidental. Chosen with `npm run eval` (docs/quality.md).
 */
const ABSENT_SERVICE_WEIGHT = 3;

/** The ranking's constants in one place, so the evaluation can vary each (docs/quality.md). */
export interface Tuning {
  /** Weight of a built-in expansion's terms relative to a word the user wrote (query.ts). */
  expansionWeight: number;
  /** What a one-word key's built-in expansions weigh in a short query, times `expansionWeight` (query.ts). */
  shortExpansionFactor: number;
  /** A built-in key's expansions weigh this many times more when no tool holds its words (UNKNOWN_KEY_FACTOR). */
  unknownKeyFactor: number;
  /** What a one-word key's expansions weigh in a short query when the key abbreviates them (query.ts). */
  abbreviationWeight: number;
  /** What a query word weighs, as a share of itself, inside a built-in key of several words (query.ts). */
  keyWordShare: number;
  /** Weight of the expansions of a built-in key of two or more words (query.ts). */
  phraseKeyWeight: number;
  /** Weight of a two-word phrase of the query (query.ts). */
  phraseWeight: number;
  /** Weight of a word only inside a value the query passes (query.ts). */
  valueWeight: number;
  /** Weight of the user's words outside the sentences that ask, in a long message (query.ts). */
  asideWeight: number;
  /** What a hit counts for in the no-match decision when the message asks only for a reply (message.ts). */
  replyShare: number;
  /** Other words allowed between a multi-word synonym key's own in a short query (query.ts). */
  keySlop: number;
  /** Share of a sibling's score a tool gains from its server (server-context.ts). */
  contextWeight: number;
  /** How many of the best BM25F scores coverage and server context reorder (CANDIDATES). */
  candidates: number;
  /** Score units each service the query names but the catalog lacks counts against a match (`unexplained`). */
  absentServiceWeight: number;
  /** Queries of at most this many words the catalog knows are short: a match must explain them (`coverage`). */
  shortQueryWords: number;
  /** How strongly a short query's unexplained words discount a match: score * coverage ^ exponent. */
  coverageExponent: number;
  /** How much of a short query's word that only synonyms reach a tool explains by holding one (SYNONYM_ONLY_SHARE). */
  synonymOnlyShare: number;
  /** What a hit holding none of a short query's operation words counts for in the no-match decision (operations.ts). */
  operationShare: number;
  /** Whether a short operation query's named service counts too: another service's tool lacks it (operations.ts). */
  operationService: boolean;
  /** Whether an operation word used only as a noun or a state ("before my run", "merged") is none (operations.ts). */
  operationNouns: boolean;
  /** How much naming a short query's words raises a tool's rank: score * (1 + weight * share) (naming.ts). */
  nameCoverage: number;
  /** What each word of a tool's name that a short query lacks takes off its rank: × (1 - weight) (naming.ts). */
  nameExtra: number;
  /** Weight of a word the catalog writes as one for two adjacent query words (query.ts). */
  compoundWeight: number;
  /** What a tool whose name does not do another kind of thing than the request's opening verb ranks by (verbs.ts). */
  verbBoost: number;
  /** What a tool of a service the query names (that the catalog has) ranks by: score * boost (services.ts). */
  serviceBoost: number;
  /** The share of the tools holding a server's name that must be its own for the name to count as a service's. */
  ownNameShare: number;
}

/**
 * A short query says only what it wants: every word it has that the catalog knows should be explained by the tool
 * it finds. "mass of an electron" matched on `mass` alone leaves half of what was asked unexplained; "weather
 * tomorrow in Paris" matched on `weather` leaves nothing the catalog knows (it has no `paris`: an argument, not a
 * capability). Coverage is the share of the query's known words' information (idf) a tool holds, words reached
 * through a synonym counting at the thesaurus's base weight (`expansionWeight`, not raised in short queries: raised,
 * it cost right refusals, docs/quality.md); a short query's score is multiplied by it. Long requests are full of
 * context no tool holds, so for them coverage says little and is not applied. Chosen with `npm run eval`
 * (docs/quality.md).
 */
const SHORT_QUERY_WORDS = 3;
const COVERAGE_EXPONENT = 1 / 3;

/**
 * A short query's word that no tool holds but whose synonyms some do ("give the customer their money back": money
 * back -> refund) is part of what was asked, which only those synonyms can explain: it counts in coverage with the
 * idf of its rarest synonym the catalog holds, and a tool holding a synonym explains this share of it. Left out (0),
 * a tool found only through it covered none of the query ("customer" being its only known word) and scored 0, below
 * tools that hold "customer" alone. Chosen with `npm run eval` (docs/quality.md, leave-one-set-out).
 */
const SYNONYM_ONLY_SHARE = 1;

/**
 * How many of the best-scoring tools (by BM25F, before coverage and server context) a search weighs further:
 * short-query coverage and server context reorder them, so a tool must be among them to gain from either. Chosen
 * with `npm run eval` (docs/quality.md, leave-one-set-out); at least the default `max_results` limit (50), so that
 * the first results of a search are the same however many it asks for.
 */
const CANDIDATES = 50;

/** A score discounted for the named services the catalog lacks (see ABSENT_SERVICE_WEIGHT). */
function unexplained(score: number, absent: number, weight: number): number {
  return absent === 0 || score <= 0 ? score : (score * score) / (score + weight * absent);
}

export const DEFAULT_TUNING: Tuning = {
  expansionWeight: BUILTIN_EXPANSION_WEIGHT,
  shortExpansionFactor: SHORT_EXPANSION_FACTOR,
  unknownKeyFactor: UNKNOWN_KEY_FACTOR,
  abbreviationWeight: ABBREVIATION_WEIGHT,
  keyWordShare: KEY_WORD_SHARE,
  phraseKeyWeight: BUILTIN_PHRASE_KEY_WEIGHT,
  phraseWeight: PHRASE_WEIGHT,
  valueWeight: VALUE_WEIGHT,
  asideWeight: ASIDE_WEIGHT,
  replyShare: REPLY_SHARE,
  keySlop: KEY_SLOP,
  contextWeight: CONTEXT_WEIGHT,
  candidates: CANDIDATES,
  absentServiceWeight: ABSENT_SERVICE_WEIGHT,
  shortQueryWords: SHORT_QUERY_WORDS,
  coverageExponent: COVERAGE_EXPONENT,
  synonymOnlyShare: SYNONYM_ONLY_SHARE,
  operationShare: OPERATION_SHARE,
  operationService: OPERATION_SERVICE,
  operationNouns: OPERATION_NOUNS,
  nameCoverage: NAME_COVERAGE,
  nameExtra: NAME_EXTRA,
  compoundWeight: COMPOUND_WEIGHT,
  verbBoost: VERB_BOOST,
  serviceBoost: SERVICE_BOOST,
  ownNameShare: OWN_NAME_SHARE,
};

/**
 * Why a tool is in the results. Named first, always: `exact-name` (the query is one of the tool's
 * names), `name-tail` (the tail of a namespaced name), `server-name` (the query is the tool's server).
 * Ranked: `name-words` (every word of the query is in the tool's name, server or keywords), `synonyms` (the tool
 * holds none of the query's own words, only words its synonyms expand to) and `terms` (everything else). See
 * `passing` for what each needs to be listed.
 */
type Match = "exact-name" | "name-tail" | "server-name" | "name-words" | "synonyms" | "terms";

interface Explanation {
  match: Match;
  /** Query terms found, per field. */
  fields: Partial<Record<ScoredField, string[]>>;
  /** Each matched term's weight, idf (nats), counts per field and part of the score (score units). */
  terms: TermExplanation[];
  /** The server-context part of the score, when the tool has one (server-context.ts). */
  context?: Context;
  /** ln(1 + N): the evidence in nats that makes a score of 1 (ranker.ts `scoreUnit`). */
  unit: number;
  /** Services the query names that the catalog lacks, and the factor they scaled the score by. */
  absent?: { services: string[]; factor: number };
  /** A short query's coverage by the tool (`coverage`), which its score was multiplied by. */
  coverage?: number;
  /** The factor the tool's name earned in a short query (naming.ts): it ranks by it, the decision is without it. */
  naming?: number;
  /** VERB_BOOST when the tool's name does not do another kind of thing than the request asks (verbs.ts); ranks only. */
  verb?: number;
  /** SERVICE_BOOST when the query names services the catalog has and this tool is one of theirs; ranking only. */
  service?: number;
  /** What the hit counted for in the no-match decision, when not its score (`Hit.gate`). */
  gate?: number;
}

/** A search's hits, and what the query asked for that no tool has. */
export interface Answer {
  hits: Hit[];
  /** Services the query names that the catalog lacks, as the query wrote them (services.ts). */
  absent: string[];
  /** Before the threshold: the best ranked tools, when nothing passed (the no-match message names them). */
  closest: Hit[];
}

export interface Hit {
  id: string;
  /** Evidence / unit + context, times the factors that only rank: what the hit ranks by. */
  score: number;
  match: Match;
  /**
   * What the hit counts for in the no-match decision, when that is not its score: the score without the factors
   * that only rank (the one its name earned, naming.ts; VERB_BOOST, verbs.ts; SERVICE_BOOST, services.ts),
   * times OPERATION_SHARE when it holds none of a short query's operation words or is none of the named service's
   * tools (operations.ts), or times REPLY_SHARE when the message asks only for a reply (message.ts). The threshold
   * is compared with it when set, else with the score.
   */
  gate?: number;
  explain?: Explanation;
}

/** Tools an answer with no match names as the closest. */
const CLOSEST = 3;
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
 * (best first) pass when one of them reaches `threshold` (by its `gate` when it has one: a hit without the query's
 * operation, operations.ts, or for a message that asks only for a reply, message.ts), down to COMPANION_SHARE *
 * threshold;
 * a `name-words` hit also passes on its own from NAMING_SHARE * threshold; a `synonyms` hit, which matched
 * none of the query's own words, only from the threshold itself (a synonym may rescue a tool, never make up the
 * numbers). Exported so that the evaluation applies the very same rule.
 */
export function passing<T extends Pick<Hit, "score" | "match" | "gate">>(hits: readonly T[], threshold: number): T[] {
  const open = hits.some((h) => !NAMED.has(h.match) && (h.gate ?? h.score) >= threshold);
  const companion = (h: T) => h.score >= (h.match === "synonyms" ? threshold : COMPANION_SHARE * threshold);
  return hits.filter(
    (h) =>
      NAMED.has(h.match) ||
      (open && companion(h)) ||
      (h.match === "name-words" && (h.gate ?? h.score) >= NAMING_SHARE * threshold),
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

/** What a tool's name says: the classes of its verbs (verbs.ts) and its distinct words as analysed (naming.ts). */
interface NameFacts {
  verbs: ReadonlySet<string>;
  words: readonly string[];
}

function createDb(analyzers: Analyzers, options: IndexOptions): Db {
  const terms = fieldTerms(analyzers.words, options.phraseTerms);
  return OramaDb.create(FIELDS, {
    // Fields are analysed as they are indexed; queries are analysed by query.ts, not through Orama.
    tokenize: (raw, prop) => terms(prop, raw),
    index: postingsIndex,
    documentsStore: nameStore,
  });
}

export class ToolIndex {
  private readonly db: Db;
  /** What the tools learned from use: their `usage` field (usage.ts), kept beside the text's postings. */
  private usage = new UsageField();
  /** What each tool's name says, read once per tool: a name never changes under its id. */
  private readonly nameFacts = new Map<string, NameFacts>();
  /**
   * After a restore, Orama's id -> internal id map is filled on first need (a write, `has`, an
   * exact-name hit), not on load: ranked search only maps internal ids back to ids, and at
   * 100,000 tools building the map is a fifth of the restore.
   */
  private idsPending = false;

  private readonly options: IndexOptions;
  private readonly analyzers: Analyzers;
  /** The built-in thesaurus under this index's analysis (compiled once, for an analysis other than the default). */
  private thesaurus: Synonyms | null = null;

  private constructor(db: Db, options: IndexOptions, analyzers: Analyzers) {
    this.db = db;
    this.options = options;
    this.analyzers = analyzers;
  }

  private services: ServiceNames | null = null;
  /** The catalog's server names (services.ts), read on first need after a change. */
  private ownServers: ServerNames | null = null;
  /** How many tools hold all the words of a server's name, per name a query held, until the catalog changes. */
  private readonly nameHolders = new Map<string, number>();

  private holdersOfName(name: readonly string[]): number {
    const key = name.join(" ");
    let held = this.nameHolders.get(key);
    if (held === undefined) {
      const store = this.postings();
      held = name.length === 1 ? documentFrequency(store, name[0]!) : docsHoldingAll(store, name).size;
      this.nameHolders.set(key, held);
    }
    return held;
  }

  private serversByName(): ServerNames {
    if (!this.ownServers) {
      const tools = new Map<string, number>();
      const records = this.names().records;
      this.db.ids.internalIdToId.forEach((id, i) => {
        if (records[i + 1] === undefined) return;
        const server = serverOf(id);
        tools.set(server, (tools.get(server) ?? 0) + 1);
      });
      this.ownServers = catalogServerNames(
        [...tools].map(([name, count]) => ({ name, tools: count })),
        this.analyzers.words,
      );
    }
    return this.ownServers;
  }

  /** The known services under this index's analysis (compiled once, for an analysis other than the default). */
  private serviceNames(): ServiceNames {
    if (this.options.analysis === DEFAULT_INDEX_OPTIONS.analysis) return serviceNames();
    this.services ??= compileServices(this.analyzers.words);
    return this.services;
  }

  private builtinThesaurus(): Synonyms {
    if (this.options.analysis === DEFAULT_INDEX_OPTIONS.analysis) return builtin().thesaurus;
    this.thesaurus ??= compileRules(builtin().rules, this.analyzers.words, this.analyzers.all).thesaurus;
    return this.thesaurus;
  }

  /** An empty index; `options` other than the default are for the evaluation (snapshots hold the default). */
  static empty(options: IndexOptions = DEFAULT_INDEX_OPTIONS): ToolIndex {
    const analyzers = indexAnalyzers(options);
    return new ToolIndex(createDb(analyzers, options), options, analyzers);
  }

  /** An index of `tools`, merged into its compact layout. `tools` may be a lazy iterable (rows read as it goes). */
  static fromTools(tools: Iterable<SearchableTool>, options: IndexOptions = DEFAULT_INDEX_OPTIONS): ToolIndex {
    const index = ToolIndex.empty(options);
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
    const analyzers = indexAnalyzers(DEFAULT_INDEX_OPTIONS);
    const db = createDb(analyzers, DEFAULT_INDEX_OPTIONS);
    const saved = decodeSnapshot(bytes, INDEX_VERSION);
    db.load(saved);
    const index = new ToolIndex(db, DEFAULT_INDEX_OPTIONS, analyzers);
    index.usage = saved.usage;
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

  /**
   * Internal ids handed out, live or not: a tool that leaves the catalog keeps its slot (its id string, its lengths)
   * until the index is built afresh, so a catalog whose tools keep changing names grows this past `size`.
   */
  get allocatedIds(): number {
    return this.db.ids.internalIdToId.length;
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
    const docs = tools.map((tool) => toSearchDocument(tool, this.options));
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
    for (const id of present) this.nameFacts.delete(id);
    this.ownServers = null;
    this.nameHolders.clear();
    return present;
  }

  /** What a tool's name says, read once per tool. */
  private nameOf(id: string): NameFacts {
    let facts = this.nameFacts.get(id);
    if (!facts) {
      const name = id.slice(id.indexOf("::") + 2);
      facts = {
        verbs: nameVerbClasses(name, this.analyzers.words),
        words: [...new Set(this.analyzers.words(name))],
      };
      this.nameFacts.set(id, facts);
    }
    return facts;
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

  /** A term's document frequency, counting the usage field (ranker.ts): tools with it in their text or usage. */
  private frequency(term: string, usage: UsageLookup | undefined): number {
    return Math.max(documentFrequency(this.postings(), term), usage?.(term)?.docs.length ?? 0);
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
    return this.answer(query, options).hits;
  }

  /** `search`, with what the no-match message needs: the services the catalog lacks, the closest tools. */
  answer(query: string, options: SearchOptions): Answer {
    const params = options.params ?? DEFAULT_BM25F;
    const tuning = { ...DEFAULT_TUNING, ...options.tuning };
    const store = this.postings();
    // A usage field weighted 0 is no field at all: not in scores, document frequencies or coverage.
    const usage = params.fields.usage.weight > 0 ? this.usageLookup(options) : undefined;
    const { terms, sequence, ownSequence, replyOnly } = analyseQuery(query, {
      ...(options.synonyms ? { synonyms: options.synonyms } : {}),
      ...(options.builtinSynonyms === false ? {} : { thesaurus: this.builtinThesaurus() }),
      analyze: this.analyzers.words,
      analyzeAll: this.analyzers.all,
      expansionWeight: tuning.expansionWeight,
      shortExpansionFactor: tuning.shortExpansionFactor,
      unknownKeyFactor: tuning.unknownKeyFactor,
      abbreviationWeight: tuning.abbreviationWeight,
      keyWordShare: tuning.keyWordShare,
      phraseKeyWeight: tuning.phraseKeyWeight,
      phraseWeight: tuning.phraseWeight,
      valueWeight: tuning.valueWeight,
      asideWeight: tuning.asideWeight,
      keySlop: tuning.keySlop,
      compoundWeight: tuning.compoundWeight,
      df: (term) => this.frequency(term, usage),
      ...(options.maxTerms ? { maxTerms: options.maxTerms } : {}),
    });
    // What the catalog lacks is judged on the tools' own text: learning does not make a missing service present.
    const absent = absentServices(sequence, (terms) => holdsAll(store, terms), this.serviceNames());
    const key = queryKey(query);
    const named = new Map<string, Match>();
    if (options.names !== false) {
      for (const id of this.named("exact", key)) named.set(id, "exact-name");
      for (const id of this.named("tails", key)) if (!named.has(id)) named.set(id, "name-tail");
    }

    const unit = scoreUnit(store.docs);
    const ids = this.db.ids.internalIdToId;
    const ranked = scoreTerms(
      store,
      terms,
      params,
      Math.max(tuning.candidates, options.limit) + named.size,
      (i) => ids[i - 1]!,
      usage,
    );
    const wordCount = terms.filter((t) => t.word).length;
    const words = canName(terms) ? wordCount : 0;
    const known = knownWords(terms, store);
    const cover = coverage(known, terms, store, tuning);
    const naming = namingFactor(known, wordCount, tuning.nameCoverage, tuning.nameExtra);
    // A name's words the query lacks weigh only where naming does (short queries): read them only there.
    const queryTerms = wordCount <= NAMING_QUERY_WORDS ? new Set(terms.flatMap((t) => t.term.split(" "))) : null;
    const extraOf = (id: string) => (queryTerms ? extraNameWords(this.nameOf(id).words, queryTerms) : 0);
    const asked =
      tuning.verbBoost !== 1
        ? askedVerbClass(
            query,
            this.analyzers.words,
            (opening) => (tuning.operationNouns ? unasked(opening, this.analyzers.words) : new Set()),
            (term) => phrasalExpansions(terms, term),
          )
        : undefined;
    const verbOf = (id: string) =>
      asked === undefined ? 1 : verbFactor(asked, this.nameOf(id).verbs, tuning.verbBoost);
    // The services the user's lines name that the catalog has: their tools rank first (services.ts).
    const bitOf = (term: string) => terms.find((t) => t.word && t.term === term)?.bits ?? 0;
    const serviceOf = serviceFactor(
      tuning.serviceBoost !== 1
        ? [
            ...namedPresent(ownSequence, (name) => holdsAll(store, name), this.serviceNames()),
            ...namedServers(ownSequence, this.serversByName(), (name) => this.holdersOfName(name), tuning.ownNameShare),
          ]
        : [],
      tuning.serviceBoost,
      bitOf,
      (name) => docsHoldingAll(store, name),
    );
    const candidates = ranked.map((r) => {
      const id = ids[r.internalId - 1]!;
      const match: Match =
        options.names !== false && serverOf(id).toLowerCase() === key
          ? "server-name"
          : words > 0 && r.namedWords === words
            ? "name-words"
            : r.ownWords === 0
              ? "synonyms"
              : "terms";
      // `score` ranks; `evidence`, without what the name earned, decides whether anything matched.
      const covered = cover(r.wordBits, r.synonymBits);
      const evidence = (r.score / unit) * covered;
      const factor = naming(r.nameBits, extraOf(id));
      const verb = verbOf(id);
      const service = serviceOf(r.internalId, r.wordBits);
      const score = evidence * factor * verb * service;
      return { id, score, evidence, coverage: covered, naming: factor, verb, service, match };
    });
    const context = serverContext(
      candidates.map((c) => ({ id: c.id, score: c.evidence })),
      tuning.contextWeight,
    );
    const scored = (id: string, own: number) =>
      unexplained(own + (context.get(id)?.score ?? 0), absent.length, tuning.absentServiceWeight);
    const lacksOperation = operationCheck(terms, query, this.analyzers.words, tuning, () =>
      presentServices(ownSequence, (name) => docsHoldingAll(store, name), this.serviceNames()),
    );
    const gated = new Set(
      ranked.filter((r) => lacksOperation(r.internalId, r.wordBits, r.synonymBits)).map((r) => ids[r.internalId - 1]!),
    );
    // A message that asks only for a reply needs no tool: every hit counts for replyShare of its score.
    const share = (id: string) =>
      Math.min(replyOnly ? tuning.replyShare : 1, gated.has(id) ? tuning.operationShare : 1);
    const withGate = (hit: Hit, evidence: number): Hit => {
      const decides = scored(hit.id, evidence) * share(hit.id);
      return Math.abs(decides - hit.score) > SCORE_EPSILON ? { ...hit, gate: decides } : hit;
    };

    const hits: Hit[] = [];
    const unranked = [...named.keys()].filter((id) => !candidates.some((c) => c.id === id));
    const unrankedParts = explainTerms(
      store,
      terms,
      params,
      unranked.map((id) => this.idMap().get(id)!),
      usage,
    );
    for (const [id, match] of named) {
      const evidence =
        candidates.find((c) => c.id === id)?.evidence ?? sum(unrankedParts.get(this.idMap().get(id)!)!) / unit;
      hits.push({ id, score: scored(id, evidence), match });
    }
    for (const c of candidates)
      if (c.match === "server-name" && !named.has(c.id))
        hits.push({ id: c.id, score: scored(c.id, c.evidence), match: c.match });
    const listed = new Set(hits.map((h) => h.id));
    const rest = candidates
      .filter((c) => !listed.has(c.id))
      .map((c): Hit => withGate({ id: c.id, score: scored(c.id, c.score), match: c.match }, c.evidence));
    rest.sort((a, b) => (Math.abs(a.score - b.score) > SCORE_EPSILON ? b.score - a.score : a.id < b.id ? -1 : 1));
    const all = [...hits, ...rest];
    const top = passing(all, options.threshold).slice(0, options.limit);
    const closest = top.length === 0 ? all.slice(0, CLOSEST) : [];
    if (options.explain) {
      const penalty = { absent, weight: tuning.absentServiceWeight };
      const factors = new Map(candidates.map((c) => [c.id, c]));
      this.explain([...top, ...closest], terms, params, unit, context, penalty, usage, factors);
    }
    return { hits: top, absent, closest };
  }

  /** Adds each hit's explanation, from one pass over the query terms' postings. */
  private explain(
    hits: Hit[],
    terms: QueryTerm[],
    params: Bm25fParams,
    unit: number,
    context: ReadonlyMap<string, Context>,
    penalty: { absent: string[]; weight: number },
    usage: UsageLookup | undefined,
    factors: ReadonlyMap<string, { coverage: number; naming: number; verb: number; service: number }>,
  ): void {
    const internal = hits.map((hit) => this.idMap().get(hit.id)!);
    const explained = explainTerms(this.postings(), terms, params, internal, usage);
    hits.forEach((hit, i) => {
      const parts = explained.get(internal[i]!)!.map((p) => ({
        ...p,
        score: p.score / unit,
        parts: Object.fromEntries(Object.entries(p.parts).map(([f, v]) => [f, v / unit])),
      }));
      const fields: Explanation["fields"] = {};
      for (const part of parts) {
        for (const f of Object.keys(part.tf) as ScoredField[]) {
          fields[f] ??= [];
          fields[f].push(part.term);
        }
      }
      const boost = context.get(hit.id);
      // A named hit ranks by its evidence (coverage included), the others by it times their ranking factors.
      const coverage = factors.get(hit.id)?.coverage ?? 1;
      const ranking = NAMED.has(hit.match) ? undefined : factors.get(hit.id);
      const naming = ranking?.naming ?? 1;
      const verb = ranking?.verb ?? 1;
      const service = ranking?.service ?? 1;
      const own = sum(parts) * coverage * naming * verb * service + (boost?.score ?? 0);
      const factor = own > 0 ? unexplained(own, penalty.absent.length, penalty.weight) / own : 1;
      hit.explain = {
        match: hit.match,
        fields,
        terms: parts,
        ...(boost ? { context: boost } : {}),
        unit,
        ...(penalty.absent.length > 0 ? { absent: { services: penalty.absent, factor } } : {}),
        ...(coverage !== 1 ? { coverage } : {}),
        ...(naming !== 1 ? { naming } : {}),
        ...(verb !== 1 ? { verb } : {}),
        ...(service !== 1 ? { service } : {}),
        ...(hit.gate !== undefined ? { gate: hit.gate } : {}),
      };
    });
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

/**
 * The query's words the catalog lacks (own words not among `known`) but whose synonyms it holds, weighing the idf of
 * their rarest such synonym. Each expansion's idf is looked up once.
 */
function synonymOnlyWords(terms: readonly QueryTerm[], known: readonly KnownWord[], store: PostingsStore): KnownWord[] {
  const knownBits = known.reduce((bits, w) => bits | w.bits, 0);
  const expansions = terms.flatMap((t) => (t.keyBits ? [{ bits: t.keyBits, info: idfOf(store, t.term) }] : []));
  const words: KnownWord[] = [];
  for (const word of terms) {
    if (!word.word || !word.bits || word.bits & knownBits) continue;
    let info = 0;
    for (const e of expansions) if (e.bits & word.bits) info = Math.max(info, e.info);
    if (info > 0) words.push({ bits: word.bits, info });
  }
  return words;
}

/** The query's words the catalog knows (an idf above 0), with their bits: what coverage and naming weigh. */
function knownWords(terms: readonly QueryTerm[], store: PostingsStore): KnownWord[] {
  return terms
    .filter((t) => t.word && t.bits)
    .map((t) => ({ bits: t.bits!, info: idfOf(store, t.term) }))
    .filter((w) => w.info > 0);
}

/**
 * A short query's coverage by a tool (see SHORT_QUERY_WORDS) as a factor of its score: 1 for a longer query, or
 * for one the catalog knows no word of. Its words the catalog lacks count when synonyms reach them
 * (SYNONYM_ONLY_SHARE).
 */
function coverage(
  known: readonly KnownWord[],
  terms: readonly QueryTerm[],
  store: PostingsStore,
  tuning: Tuning,
): (wordBits: number, synonymBits: number) => number {
  if (known.length === 0 || known.length > tuning.shortQueryWords || tuning.coverageExponent === 0) return () => 1;
  const synonymOnly = tuning.synonymOnlyShare > 0 ? synonymOnlyWords(terms, known, store) : [];
  const total = [...known, ...synonymOnly].reduce((sum, w) => sum + w.info, 0);
  return (wordBits, synonymBits) => {
    let covered = 0;
    for (const w of known) {
      if (wordBits & w.bits) covered += w.info;
      else if (synonymBits & w.bits) covered += tuning.expansionWeight * w.info;
    }
    for (const w of synonymOnly) if (synonymBits & w.bits) covered += tuning.synonymOnlyShare * w.info;
    return (covered / total) ** tuning.coverageExponent;
  };
}

/**
 * Whether a candidate answers another request than a short query's operation (operations.ts): it holds none of the
 * query's operation words (its own or through their synonyms; with `operationNouns`, not those the query uses only as
 * nouns or states), or, with `operationService`, the query names a service the catalog has (`present`, asked only
 * for such queries) and the candidate is none of that service's tools. Never
 * for a longer query, one without operation words, or a share of 1.
 */
function operationCheck(
  terms: readonly QueryTerm[],
  query: string,
  analyze: (text: string) => string[],
  tuning: Pick<Tuning, "operationShare" | "operationService" | "operationNouns">,
  present: () => { tools: ReadonlySet<number> }[],
): (internalId: number, wordBits: number, synonymBits: number) => boolean {
  const words = terms.filter((t) => t.word);
  const operations = words.filter((t) => OPERATION_WORDS.has(t.term));
  if (tuning.operationShare >= 1 || operations.length === 0 || words.length > OPERATION_QUERY_WORDS) return () => false;
  // Read the query as written only when it has an operation word to judge.
  const notAsked = tuning.operationNouns ? unasked(query, analyze) : new Set<string>();
  const bits = operations.filter((t) => !notAsked.has(t.term)).reduce((b, t) => b | (t.bits ?? 0), 0);
  if (bits === 0) return () => false;
  const services = tuning.operationService ? present() : [];
  return (internalId, wordBits, synonymBits) =>
    ((wordBits | synonymBits) & bits) === 0 || services.some((s) => !s.tools.has(internalId));
}

/**
 * The words that synonym keys of several words holding the query's own word `term` expand to ("turn off" -> disable,
 * deactivate): what the key means as a whole (verbs.ts reads a phrasal verb's class from them).
 */
function phrasalExpansions(terms: readonly QueryTerm[], term: string): string[] {
  const bits = terms.find((t) => t.word && t.term === term)?.bits ?? 0;
  if (bits === 0) return [];
  const key = (via: string) => via.replace(/^builtin:/, "");
  return terms
    .filter((t) => !t.word && ((t.keyBits ?? 0) & bits) !== 0 && t.via !== undefined && !t.via.startsWith("compound:"))
    .filter((t) => key(t.via!).includes(" ") && !t.term.includes(" "))
    .map((t) => t.term);
}

/** The server part of a tool id (`server::name`; server names hold no colon). */
function serverOf(id: string): string {
  return id.slice(0, id.indexOf("::"));
}

function sum(parts: TermExplanation[]): number {
  return parts.reduce((total, p) => total + p.score, 0);
}
