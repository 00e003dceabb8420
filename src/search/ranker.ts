/**
 * BM25F⁺ evidence over the postings store: how strongly a tool's text matches a query's terms.
 *
 * For each query term t:  tf~ = sum over fields f of  w_f * tf(t,f) / (1 - b_f + b_f * len_f / avglen_f)
 *                         part(t) = q(t) * idf(t) * ((k1 + 1) * tf~ / (k1 + tf~) + delta)     if tf~ > 0
 *                         idf(t)  = ln(1 + (N - n_t + 0.5) / (n_t + 0.5))                   (Lucene's IDF)
 * where q(t) is the query term's weight (query.ts) and the evidence is the sum of parts, in nats:
 * idf(t) is about ln(1 / share of tools containing t). `delta` is BM25+'s lower bound for a matched
 * term: every matched word adds at least delta * idf, so a tool that matches more of the query's
 * distinct words gains over one that repeats a single word, and one occurrence in a field of weight
 * 1 and average length is worth exactly (1 + delta) * idf(t).
 *
 * The `usage` field (what the tool learned from use, usage.ts) joins tf~ like any field, with weight w_usage and no
 * length normalisation (b = 0: a much-used tool's many learned words are not a long text): tf~ += w_usage * tf_usage.
 * Its document frequency counts too: n_t = max(tools whose text holds t, tools whose usage holds t). For a word only
 * usage holds that is the number of tools that learned it; for a word of the tools' own text, learning changes its idf
 * only once more tools learned it than hold it in their text (a lower bound of the union, exact when one set holds the
 * other). With no learned terms, scores are exactly those of the text alone. A tool that holds a query word only in
 * its usage field holds it (Scored.ownWords, wordBits), but does not name it (namedWords).
 *
 * The score a search reports divides this evidence by `scoreUnit` (see tool-index.ts and docs/scoring.md).
 */
import { FIELDS, type Field, type ScoredField } from "../catalog/fields.ts";
import {
  documentFrequency,
  ensureClean,
  FIELD_SLOT,
  forEachFrozen,
  frozenTerm,
  TF_BITS,
  TF_MAX,
  type PostingsStore,
} from "./postings.ts";
import type { UsagePostings } from "./usage.ts";

interface FieldParams {
  /** How much one occurrence in this field counts relative to one in the description. */
  weight: number;
  /** Length normalisation, 0 (none) to 1 (full); the usage field has none (0). */
  b: number;
}

export interface Bm25fParams {
  k1: number;
  /** BM25+'s per-matched-term lower bound, in units of the term's idf. */
  delta: number;
  fields: Record<ScoredField, FieldParams>;
}

/** Chosen with `npm run eval` (see docs/quality.md); one set of parameters serves every tenant. */
export const DEFAULT_BM25F: Bm25fParams = {
  k1: 2,
  delta: 0.5,
  fields: {
    name: { weight: 3, b: 0.5 },
    server: { weight: 1, b: 0.3 },
    description: { weight: 1, b: 0.75 },
    params: { weight: 0.35, b: 0.75 },
    keywords: { weight: 2, b: 0.3 },
    usage: { weight: 1, b: 0 },
  },
};

export interface Scored {
  internalId: number;
  score: number;
  /** How many of the query's own words the document holds in a naming field (name, server, keywords). */
  namedWords: number;
  /** How many of the query's own words the document holds in any field (0: reached through synonyms only). */
  ownWords: number;
  /** The bits (QueryTerm.bits) of the query's words the document holds. */
  wordBits: number;
  /** The bits of the query's words whose synonyms' expansions the document holds. */
  synonymBits: number;
  /** The bits of the query's words the document holds in a naming field, themselves or through their synonyms. */
  nameBits: number;
}

/** The fields a tool is called by: a query made only of words from them names the tool. */
const NAMING_FIELDS: readonly Field[] = ["name", "server", "keywords"];
const NAMING_MASK = NAMING_FIELDS.reduce((mask, f) => mask | (TF_MAX << (FIELD_SLOT[f] * TF_BITS)), 0);

/** The usage postings of a query term, when its usage field holds it (usage.ts). */
export type UsageLookup = (term: string) => UsagePostings | undefined;

/** An analysed query term (a word or a two-word phrase) and its weight q(t) in the sum. */
export interface QueryTerm {
  term: string;
  weight: number;
  /** One of the query's own words (not a phrase, not a synonym's expansion). */
  word?: boolean;
  /** An own word's bit (query.ts): which of the query's words a tool holds. */
  bits?: number;
  /** A synonym expansion's: the bits of the query words whose key added it. */
  keyBits?: number;
  /** The tenant synonym key that added this term, when a synonym did. */
  via?: string;
}

export interface TermExplanation {
  term: string;
  /** The query term's weight q(t). */
  weight: number;
  /** The tenant synonym key that added this term, when a synonym did. */
  via?: string;
  idf: number;
  /** Raw occurrences of the term per field where it occurs; for `usage`, its bounded term frequency. */
  tf: Partial<Record<ScoredField, number>>;
  /** This term's share of the score. */
  score: number;
  /**
   * `score` split across the fields that hold the term, in proportion to each field's part of tf~ (its weighted,
   * length-normalised count; for usage, w_usage * its tf). BM25F saturates the sum, not each field, so this is an
   * attribution, not separate scores: the parts add up to `score`.
   */
  parts: Partial<Record<ScoredField, number>>;
}

/** Scores are compared at this precision so that float noise never decides an order: ties go to the id. */
const SCORE_EPSILON = 1e-9;

// One scratch accumulator (score by internal id) and one list of the ids it holds, shared by every
// index in the isolate: scoring is synchronous, so no two queries ever use them at once, and a
// 100,000-tool catalog does not allocate 800 KB per query.
let scratch = new Float64Array(1024);
let touched = new Int32Array(1024);
/** 1 for the ids in `touched`: a part can be 0 (a field weighted 0), so the sum cannot tell. */
let marked = new Uint8Array(1024);
/** Per id, the query words found in a naming field (Scored.namedWords). */
let named = new Uint16Array(1024);
/** Per id, the query words found in any field (Scored.ownWords). */
let own = new Uint16Array(1024);
/** Per id, Scored.wordBits, Scored.synonymBits and Scored.nameBits. */
let wordBits = new Int32Array(1024);
let synonymBits = new Int32Array(1024);
let nameBits = new Int32Array(1024);
/** Per id, the weighted usage tf of the term being scored, until its text postings have been read (then 0 again). */
let learned = new Float64Array(1024);

function idf(docs: number, df: number): number {
  return Math.log(1 + (docs - df + 0.5) / (df + 0.5));
}

/** A term's document frequency: tools holding it in their text, or in their usage field if more do. */
function frequency(store: PostingsStore, term: string, own: UsagePostings | undefined): number {
  return Math.max(documentFrequency(store, term), own?.docs.length ?? 0);
}

/** A term's idf in the store (the tools' own text), or 0 when no document holds it. */
export function idfOf(store: PostingsStore, term: string): number {
  const df = documentFrequency(store, term);
  return df === 0 ? 0 : idf(store.docs, df);
}

/**
 * What a search score is measured in: ln(1 + N) nats, the information it takes to pick one answer
 * out of N tools or none. Dividing evidence by it keeps one threshold meaningful on any catalog size.
 */
export function scoreUnit(docs: number): number {
  return Math.log(1 + docs);
}

/**
 * part(t) for a term of weight q and idf, given its tf~ in a document; 0 when only fields weighted 0 hold it.
 * `text`: whether the tool's own text holds the term. BM25+'s floor (delta) rewards covering more of the query in
 * the tool's own words; a term only the usage field holds gets no floor, so its part shrinks with its weighted tf
 * (a weak association stays weak, whatever the term's idf).
 */
function termPart(weightedIdf: number, tf: number, params: Bm25fParams, text = true): number {
  return tf > 0 ? weightedIdf * (((params.k1 + 1) * tf) / (params.k1 + tf) + (text ? params.delta : 0)) : 0;
}

function averages(store: PostingsStore): Record<Field, number> {
  const n = Math.max(store.docs, 1);
  return Object.fromEntries(FIELDS.map((f) => [f, Math.max(store.totals[f] / n, 1)])) as Record<Field, number>;
}

/** Pre-resolved per-field constants for the inner loop, in field slot order. */
function fieldTable(store: PostingsStore, params: Bm25fParams) {
  const avg = averages(store);
  return FIELDS.map((f) => ({
    shift: FIELD_SLOT[f] * TF_BITS,
    weight: params.fields[f].weight,
    b: params.fields[f].b,
    avg: avg[f],
    lengths: store.lengths[f],
  }));
}

type FieldTable = ReturnType<typeof fieldTable>;

/** tf~ of one posting entry: the field-weighted, length-normalised count. */
function weightedTf(fields: FieldTable, packed: number, doc: number): number {
  let tf = 0;
  for (const f of fields) {
    const count = (packed >> f.shift) & TF_MAX;
    if (count !== 0) tf += (f.weight * count) / (1 - f.b + (f.b * (f.lengths[doc] ?? 0)) / f.avg);
  }
  return tf;
}

/**
 * The `limit` best documents for `terms`, best first; equal scores ordered by `tieKey` ascending.
 * Terms must already be analysed and de-duplicated (query.ts). `usage` gives each term's usage postings, if any;
 * a tool holding a word only in its usage field holds it (ownWords, wordBits), but does not name it (namedWords).
 */
export function scoreTerms(
  store: PostingsStore,
  terms: readonly QueryTerm[],
  params: Bm25fParams,
  limit: number,
  tieKey: (internalId: number) => string,
  usage?: UsageLookup,
): Scored[] {
  ensureClean(store);
  const fields = fieldTable(store, params);
  const usageWeight = params.fields.usage.weight;
  let count = 0;
  // Every term's part is added to a document's sum in query-term order, so a score does not
  // depend on which segment (frozen or delta) holds an entry.
  let termIdf = 0;
  let termIsWord = false;
  let termBits = 0;
  let termKeyBits = 0;
  /** Whether the current term has usage postings, staged in `learned` until its text postings are read. */
  let staged = false;
  /** `text`: whether the tool's own text holds the term (else only its usage field does). */
  const accumulate = (doc: number, tf: number, packed: number, text: boolean) => {
    if (doc >= scratch.length) {
      scratch = grown(scratch, doc);
      marked = grown(marked, doc);
      named = grown(named, doc);
      own = grown(own, doc);
      wordBits = grown(wordBits, doc);
      synonymBits = grown(synonymBits, doc);
      nameBits = grown(nameBits, doc);
    }
    if (marked[doc] === 0) {
      if (count >= touched.length) touched = grown(touched, count);
      marked[doc] = 1;
      touched[count++] = doc;
    }
    scratch[doc]! += termPart(termIdf, tf, params, text);
    if (termIsWord) {
      own[doc]!++;
      if ((packed & NAMING_MASK) !== 0) named[doc]!++;
    }
    wordBits[doc]! |= termBits;
    synonymBits[doc]! |= termKeyBits;
    if ((packed & NAMING_MASK) !== 0) nameBits[doc]! |= termBits | termKeyBits;
  };
  const add = (doc: number, packed: number) => {
    let tf = weightedTf(fields, packed, doc);
    if (staged && doc < learned.length) {
      tf += learned[doc]!;
      learned[doc] = 0;
    }
    accumulate(doc, tf, packed, true);
  };
  for (const { term, weight, word, bits, keyBits } of terms) {
    const held = usageWeight > 0 ? usage?.(term) : undefined;
    const df = frequency(store, term, held);
    if (df === 0) continue;
    termIdf = weight * idf(store.docs, df);
    termIsWord = word === true;
    termBits = bits ?? 0;
    termKeyBits = keyBits ?? 0;
    staged = held !== undefined;
    if (held) stage(held, usageWeight);
    const t = frozenTerm(store, term);
    if (t >= 0) forEachFrozen(store, t, add);
    const list = store.delta.get(term);
    if (list) for (let i = 0; i < list.length; i += 2) add(list[i]!, list[i + 1]!);
    // Tools that hold the term only in their usage field.
    if (held)
      for (const doc of held.docs) {
        const tf = learned[doc]!;
        if (tf === 0) continue;
        learned[doc] = 0;
        accumulate(doc, tf, 0, false);
      }
  }
  return topK(count, limit, tieKey);
}

/** Puts each usage posting's weighted tf into `learned`, by internal id, for `add` to take. */
function stage(postings: UsagePostings, weight: number): void {
  const last = postings.docs[postings.docs.length - 1]!;
  if (last >= learned.length) learned = grown(learned, last);
  postings.docs.forEach((doc, i) => {
    learned[doc] = weight * postings.tfs[i]!;
  });
}

function grown<T extends Float64Array | Int32Array | Uint16Array | Uint8Array>(array: T, index: number): T {
  const next = new (array.constructor as new (n: number) => T)(Math.max(index + 1, array.length * 2));
  next.set(array);
  return next;
}

function better(a: Scored, b: Scored, tieKey: (id: number) => string): boolean {
  if (Math.abs(a.score - b.score) > SCORE_EPSILON) return a.score > b.score;
  return tieKey(a.internalId) < tieKey(b.internalId);
}

/**
 * Partial selection over the `count` touched documents, clearing the accumulator as it goes: a
 * sorted window of `limit` entries, where a document that is clearly below the window's last
 * score is rejected by one comparison, without allocating anything for it.
 */
function topK(count: number, limit: number, tieKey: (id: number) => string): Scored[] {
  const best: Scored[] = [];
  for (let n = 0; n < count; n++) {
    const internalId = touched[n]!;
    const score = scratch[internalId]!;
    const namedWords = named[internalId]!;
    const ownWords = own[internalId]!;
    const words = wordBits[internalId]!;
    const synonyms = synonymBits[internalId]!;
    const names = nameBits[internalId]!;
    scratch[internalId] = 0;
    marked[internalId] = 0;
    named[internalId] = 0;
    own[internalId] = 0;
    wordBits[internalId] = 0;
    synonymBits[internalId] = 0;
    nameBits[internalId] = 0;
    if (limit <= 0) continue;
    if (best.length === limit) {
      const last = best[limit - 1]!;
      if (score < last.score - SCORE_EPSILON) continue;
      if (score <= last.score + SCORE_EPSILON && tieKey(internalId) >= tieKey(last.internalId)) continue;
    }
    const item = { internalId, score, namedWords, ownWords, wordBits: words, synonymBits: synonyms, nameBits: names };
    let at = best.length;
    while (at > 0 && better(item, best[at - 1]!, tieKey)) at--;
    best.splice(at, 0, item);
    if (best.length > limit) best.pop();
  }
  return best;
}

/**
 * Why each of `internalIds` scored what it did: each matched term's IDF, counts per field and share. One pass
 * over each term's postings serves every document asked about, so explaining 50 hits costs what scoring did.
 */
export function explainTerms(
  store: PostingsStore,
  terms: readonly QueryTerm[],
  params: Bm25fParams,
  internalIds: readonly number[],
  usage?: UsageLookup,
): Map<number, TermExplanation[]> {
  ensureClean(store);
  const fields = fieldTable(store, params);
  const usageWeight = params.fields.usage.weight;
  const out = new Map<number, TermExplanation[]>(internalIds.map((id) => [id, []]));
  for (const { term, weight, via } of terms) {
    const held = usageWeight > 0 ? usage?.(term) : undefined;
    const df = frequency(store, term, held);
    if (df === 0) continue;
    const termIdf = idf(store.docs, df);
    const usageTf = (doc: number) => {
      const at = held ? held.docs.indexOf(doc) : -1;
      return at >= 0 ? held!.tfs[at]! : 0;
    };
    const explained = new Set<number>();
    const explain = (doc: number, packed: number, text: boolean) => {
      const parts = out.get(doc);
      if (!parts || explained.has(doc)) return;
      explained.add(doc);
      const counts: TermExplanation["tf"] = {};
      FIELDS.forEach((name, slot) => {
        const count = (packed >> fields[slot]!.shift) & TF_MAX;
        if (count !== 0) counts[name] = count;
      });
      const learnedTf = usageTf(doc);
      if (learnedTf > 0) counts.usage = learnedTf;
      const shares: Partial<Record<ScoredField, number>> = {};
      let tf = 0;
      for (const [slot, f] of fields.entries()) {
        const count = (packed >> f.shift) & TF_MAX;
        if (count === 0) continue;
        const share = (f.weight * count) / (1 - f.b + (f.b * (f.lengths[doc] ?? 0)) / f.avg);
        shares[FIELDS[slot]!] = share;
        tf += share;
      }
      if (learnedTf > 0) {
        shares.usage = usageWeight * learnedTf;
        tf += shares.usage;
      }
      const score = termPart(weight * termIdf, tf, params, text);
      const split: Partial<Record<ScoredField, number>> = {};
      for (const [field, share] of Object.entries(shares) as [ScoredField, number][])
        if (share > 0) split[field] = (score * share) / tf;
      parts.push({ term, weight, ...(via ? { via } : {}), idf: termIdf, tf: counts, score, parts: split });
    };
    const t = frozenTerm(store, term);
    if (t >= 0) forEachFrozen(store, t, (doc, packed) => explain(doc, packed, true));
    const list = store.delta.get(term);
    if (list) for (let i = 0; i < list.length; i += 2) explain(list[i]!, list[i + 1]!, true);
    if (held) for (const doc of held.docs) explain(doc, 0, false);
  }
  return out;
}
