/**
 * A compact BM25F postings index, plugged into Orama as its `index` component.
 *
 * Orama's default index keeps a radix tree plus one frequency object per document and field
 * (measured: 50 MB of heap for 10,000 tools even without documents) and divides term counts by
 * field length, so true term frequencies are lost. This component keeps one posting list per
 * term, shared by all fields: pairs of (internal document id, packed per-field term counts).
 * Orama still drives it (insert, remove, save, load, internal ids); scoring reads it directly
 * (see `ranker.ts`), so Orama's `search()` (and with it the component's `search` and
 * `searchByWhereClause` hooks) is not used: the cast below records that this is a partial IIndex.
 */
import type { AnyOrama, IIndex, SearchableType, Tokenizer } from "@orama/orama";
import { FIELDS, type Field } from "./document.ts";

/** Bits per field in a packed term-count word: counts above 63 are capped (BM25 saturates long before). */
export const TF_BITS = 6;
export const TF_MAX = (1 << TF_BITS) - 1;
export const FIELD_SLOT: Record<Field, number> = Object.fromEntries(FIELDS.map((f, i) => [f, i])) as Record<Field, number>;

export interface PostingsStore {
  /** term -> [internalId, packedCounts, internalId, packedCounts, ...] */
  terms: Map<string, number[]>;
  /** Per field, the analysed length of each document, indexed by internal id. */
  lengths: Record<Field, number[]>;
  /** Per field, the sum of live documents' lengths (for the average length). */
  totals: Record<Field, number>;
  /** Live documents. */
  docs: number;
  /** Internal ids removed but still present in `dirty` posting lists (compacted lazily, in one pass). */
  removed: Set<number>;
  dirty: Set<string>;
}

export function createPostingsStore(): PostingsStore {
  return {
    terms: new Map(),
    lengths: Object.fromEntries(FIELDS.map((f) => [f, []])) as unknown as Record<Field, number[]>,
    totals: Object.fromEntries(FIELDS.map((f) => [f, 0])) as Record<Field, number>,
    docs: 0,
    removed: new Set(),
    dirty: new Set(),
  };
}

/** Drops removed documents from the posting lists they appear in. Cost: one pass over those lists. */
export function compact(store: PostingsStore): void {
  if (store.removed.size === 0) return;
  for (const term of store.dirty) {
    const list = store.terms.get(term);
    if (!list) continue;
    let w = 0;
    for (let r = 0; r < list.length; r += 2) {
      if (store.removed.has(list[r]!)) continue;
      list[w++] = list[r]!;
      list[w++] = list[r + 1]!;
    }
    if (w === 0) store.terms.delete(term);
    else list.length = w;
  }
  store.removed.clear();
  store.dirty.clear();
}

/** Counts each distinct term of a field value. */
function countTerms(tokenizer: Tokenizer, value: string, prop: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const term of tokenizer.tokenize(value, undefined, prop, false)) counts.set(term, (counts.get(term) ?? 0) + 1);
  return counts;
}

function isField(prop: string): prop is Field {
  return prop in FIELD_SLOT;
}

/**
 * The Orama index component. Orama calls `insert`/`remove` once per field of a document, fields in
 * schema order, so a document's counts for all fields land in one posting entry per term.
 */
export const postingsIndex = {
  create: () => createPostingsStore(),

  beforeInsert(store: PostingsStore, _prop: string, _id: string, _value: unknown, _type: unknown, _lang: unknown, _tok: unknown, _count: number) {
    // A re-inserted id reuses its internal id: its old entries must be gone before new ones land.
    if (store.removed.size > 0) compact(store);
  },

  insert(_impl: unknown, store: PostingsStore, prop: string, _id: string, internalId: number, value: unknown, _type: SearchableType, _lang: string | undefined, tokenizer: Tokenizer) {
    if (!isField(prop) || typeof value !== "string") return;
    const counts = countTerms(tokenizer, value, prop);
    let length = 0;
    const shift = FIELD_SLOT[prop] * TF_BITS;
    for (const [term, tf] of counts) {
      length += tf;
      let list = store.terms.get(term);
      if (!list) store.terms.set(term, (list = []));
      const bits = Math.min(tf, TF_MAX) << shift;
      if (list.length > 0 && list[list.length - 2] === internalId) list[list.length - 1]! |= bits;
      else list.push(internalId, bits);
    }
    store.lengths[prop][internalId] = length;
    store.totals[prop] += length;
    if (prop === FIELDS[0]) store.docs++;
  },

  remove(_impl: unknown, store: PostingsStore, prop: string, _id: string, internalId: number, value: unknown, _type: SearchableType, _lang: string | undefined, tokenizer: Tokenizer) {
    if (!isField(prop) || typeof value !== "string") return true;
    for (const term of countTerms(tokenizer, value, prop).keys()) store.dirty.add(term);
    store.removed.add(internalId);
    store.totals[prop] -= store.lengths[prop][internalId] ?? 0;
    store.lengths[prop][internalId] = 0;
    if (prop === FIELDS[0]) store.docs--;
    return true;
  },

  getSearchableProperties: () => [...FIELDS],
  getSearchablePropertiesWithTypes: () => Object.fromEntries(FIELDS.map((f) => [f, "string"])) as Record<string, SearchableType>,

  save(store: PostingsStore): PostingsStore {
    compact(store);
    return store;
  },
  load(_ids: unknown, raw: PostingsStore): PostingsStore {
    return raw;
  },
} as unknown as IIndex<PostingsStore & AnyOrama["data"]["index"]>;
