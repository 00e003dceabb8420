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
 * The score a search reports divides this evidence by `scoreUnit` (see tool-index.ts and the README).
 */
import { FIELDS, type Field } from "./document.ts";
import { compact, FIELD_SLOT, TF_BITS, TF_MAX, type PostingsStore } from "./postings.ts";

export interface FieldParams {
  /** How much one occurrence in this field counts relative to one in the description. */
  weight: number;
  /** Length normalisation, 0 (none) to 1 (full). */
  b: number;
}

export interface Bm25fParams {
  k1: number;
  /** BM25+'s per-matched-term lower bound, in units of the term's idf. */
  delta: number;
  fields: Record<Field, FieldParams>;
}

/** Chosen with `npm run eval` (see docs/quality.md); one set of parameters serves every tenant. */
export const DEFAULT_BM25F: Bm25fParams = {
  k1: 1.2,
  delta: 0.5,
  fields: {
    name: { weight: 3, b: 0.5 },
    server: { weight: 1, b: 0.3 },
    description: { weight: 1, b: 0.75 },
    params: { weight: 0.5, b: 0.75 },
    keywords: { weight: 2, b: 0.3 },
  },
};

export interface Scored {
  internalId: number;
  score: number;
}

/** An analysed query term (a word or a two-word phrase) and its weight q(t) in the sum. */
export interface QueryTerm {
  term: string;
  weight: number;
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
  /** Raw occurrences of the term per field where it occurs. */
  tf: Partial<Record<Field, number>>;
  /** This term's share of the score. */
  score: number;
}

/** Scores are compared at this precision so that float noise never decides an order: ties go to the id. */
const SCORE_EPSILON = 1e-9;

// One scratch accumulator shared by every index in the isolate: scoring is synchronous, so no two
// queries ever use it at once, and a 100,000-tool catalog does not allocate 800 KB per query.
let scratch = new Float64Array(1024);

function idf(docs: number, df: number): number {
  return Math.log(1 + (docs - df + 0.5) / (df + 0.5));
}

/**
 * What a search score is measured in: ln(1 + N) nats, the information it takes to pick one answer
 * out of N tools or none. Dividing evidence by it keeps one threshold meaningful on any catalog size.
 */
export function scoreUnit(docs: number): number {
  return Math.log(1 + docs);
}

/** part(t) for a term of weight q and idf, given its tf~ in a document; 0 when only fields weighted 0 hold it. */
function termPart(weightedIdf: number, tf: number, params: Bm25fParams): number {
  return tf > 0 ? weightedIdf * (((params.k1 + 1) * tf) / (params.k1 + tf) + params.delta) : 0;
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
 * Terms must already be analysed and de-duplicated.
 */
export function scoreTerms(
  store: PostingsStore,
  terms: readonly QueryTerm[],
  params: Bm25fParams,
  limit: number,
  tieKey: (internalId: number) => string,
): Scored[] {
  compact(store);
  const fields = fieldTable(store, params);
  const touched: number[] = [];
  for (const { term, weight } of terms) {
    const list = store.terms.get(term);
    if (!list) continue;
    const termIdf = weight * idf(store.docs, list.length / 2);
    for (let i = 0; i < list.length; i += 2) {
      const doc = list[i]!;
      const packed = list[i + 1]!;
      const tf = weightedTf(fields, packed, doc);
      if (doc >= scratch.length) {
        const grown = new Float64Array(Math.max(doc + 1, scratch.length * 2));
        grown.set(scratch);
        scratch = grown;
      }
      if (scratch[doc] === 0) touched.push(doc);
      scratch[doc]! += termPart(termIdf, tf, params);
    }
  }
  const scored = touched.map((internalId) => ({ internalId, score: scratch[internalId]! }));
  for (const id of touched) scratch[id] = 0;
  return topK(scored, limit, tieKey);
}

function better(a: Scored, b: Scored, tieKey: (id: number) => string): boolean {
  if (Math.abs(a.score - b.score) > SCORE_EPSILON) return a.score > b.score;
  return tieKey(a.internalId) < tieKey(b.internalId);
}

/** Partial selection: keeps a sorted window of `limit` entries instead of sorting every match. */
function topK(items: Scored[], limit: number, tieKey: (id: number) => string): Scored[] {
  const best: Scored[] = [];
  for (const item of items) {
    if (best.length === limit && !better(item, best[best.length - 1]!, tieKey)) continue;
    let at = best.length;
    while (at > 0 && better(item, best[at - 1]!, tieKey)) at--;
    best.splice(at, 0, item);
    if (best.length > limit) best.pop();
  }
  return best;
}

/** Why one document scored what it did: each matched term's IDF, counts per field and share. */
export function explainTerms(
  store: PostingsStore,
  terms: readonly QueryTerm[],
  params: Bm25fParams,
  internalId: number,
): TermExplanation[] {
  compact(store);
  const fields = fieldTable(store, params);
  const out: TermExplanation[] = [];
  for (const { term, weight, via } of terms) {
    const list = store.terms.get(term);
    if (!list) continue;
    for (let i = 0; i < list.length; i += 2) {
      if (list[i] !== internalId) continue;
      const termIdf = idf(store.docs, list.length / 2);
      const packed = list[i + 1]!;
      const counts: Partial<Record<Field, number>> = {};
      FIELDS.forEach((name, slot) => {
        const count = (packed >> fields[slot]!.shift) & TF_MAX;
        if (count !== 0) counts[name] = count;
      });
      const tf = weightedTf(fields, packed, internalId);
      out.push({ term, weight, ...(via ? { via } : {}), idf: termIdf, tf: counts, score: termPart(weight * termIdf, tf, params) });
      break;
    }
  }
  return out;
}
