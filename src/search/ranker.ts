/**
 * BM25F scoring over the postings store, with a score whose scale does not depend on catalog size.
 *
 * For each query term t:  tf~ = sum over fields f of  w_f * tf(t,f) / (1 - b_f + b_f * len_f / avglen_f)
 *                         part(t) = q(t) * idf(t) * (k1 + 1) * tf~ / (k1 + tf~)
 *                         idf(t)  = ln(1 + (N - n_t + 0.5) / (n_t + 0.5))          (Lucene's IDF)
 * where q(t) is the query term's weight (see query.ts), and the score is the sum of parts. One occurrence in a field of weight 1 and average length
 * gives exactly idf(t), which is about ln(1/share of tools containing t) whatever N is: a
 * threshold of 1.5 means "matched at least one term that fewer than ~22 % of tools contain" on
 * a 50-tool catalog and on a 10,000-tool one alike.
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
  fields: Record<Field, FieldParams>;
}

export const DEFAULT_BM25F: Bm25fParams = {
  k1: 1.2,
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

/** An analysed query term and its weight q(t) in the sum. */
export interface QueryTerm {
  term: string;
  weight: number;
}

export interface TermExplanation {
  term: string;
  /** The query term's weight q(t). */
  weight: number;
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
  const k1 = params.k1;
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
      scratch[doc]! += (termIdf * (k1 + 1) * tf) / (k1 + tf);
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
  for (const { term, weight } of terms) {
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
      out.push({ term, weight, idf: termIdf, tf: counts, score: (weight * termIdf * (params.k1 + 1) * tf) / (params.k1 + tf) });
      break;
    }
  }
  return out;
}
