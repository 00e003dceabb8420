/**
 * A compact BM25F postings index, plugged into Orama as its `index` component.
 *
 * Orama's default index keeps a radix tree plus one frequency object per document and field
 * (measured: 50 MB of heap for 10,000 tools even without documents) and divides term counts by
 * field length, so true term frequencies are lost. This component keeps one posting list per
 * term, shared by all fields: pairs of (internal document id, packed per-field term counts).
 *
 * Layout, for memory and for cold starts (a Durable Object restores its index after every ~10 s
 * idle): a frozen segment holds every term in one sorted array and every posting in one byte arena
 * (per term, entries in ascending id order as varints of the id gap and of the packed counts: ~2.5
 * bytes an entry instead of 8), so a snapshot restores as views over its own bytes, with nothing to
 * parse or rebuild. Writes since the last freeze go to a small delta of per-term arrays; removals
 * mark the document dead.
 * `freeze` merges the delta and drops dead documents in one pass; it runs when the delta has grown,
 * before a removed id is inserted again, before scoring sees a dead document, and before a snapshot.
 *
 * Orama still drives this component (insert, remove, internal ids); scoring reads it directly (see
 * `ranker.ts`), so Orama's `search()` (and with it the component's `search` and
 * `searchByWhereClause` hooks) is not used: the cast below records that this is a partial IIndex.
 */
import { FIELDS, type Field } from "../catalog/fields.ts";
import type { FieldTokenizer, IndexComponent } from "./orama.ts";

/** Bits per field in a packed term-count word: counts above 63 are capped (BM25 saturates long before). */
export const TF_BITS = 6;
export const TF_MAX = (1 << TF_BITS) - 1;
/**
 * Bit slot of each field in the packed word, most frequent fields lowest so that the usual entry
 * (parameters and/or description, small counts) packs into one varint byte. Only the encoding
 * depends on this order; scoring sums fields in FIELDS order.
 */
const SLOT_ORDER: readonly Field[] = ["params", "description", "name", "server", "keywords"];
export const FIELD_SLOT: Record<Field, number> = Object.fromEntries(SLOT_ORDER.map((f, i) => [f, i])) as Record<
  Field,
  number
>;

/**
 * The delta is merged once it holds this many entries and as many as the frozen segment:
 * merges then cost O(1) amortised per entry (a bulk load merges ~log2(n) times), and the delta,
 * searched alongside the arena, stays no larger than it.
 */
const DELTA_MIN_ENTRIES = 4_096;

export interface PostingsStore {
  /** Frozen segment: terms in ascending order, `offsets[t]..offsets[t+1]` their bytes in `postings`. */
  terms: string[];
  offsets: Int32Array;
  /** Entries per frozen term (its document frequency there). */
  counts: Int32Array;
  /** Per term, in term order: entries ascending by internal id, each varint(id gap) varint(packed counts). */
  postings: Uint8Array;
  /** Entries in the frozen segment, counted like `deltaEntries`. */
  frozenEntries: number;
  /** Entries added since the last freeze: term -> [internalId, packedCounts, ...]. */
  delta: Map<string, number[]>;
  deltaEntries: number;
  /** Per field, the analysed length of each document, indexed by internal id. */
  lengths: Record<Field, Int32Array>;
  /** Per field, the sum of live documents' lengths (for the average length). */
  totals: Record<Field, number>;
  /** Live documents. */
  docs: number;
  /** Removed internal ids whose entries are still in the segments (1 = dead). */
  dead: Uint8Array;
  deadCount: number;
}

export function createPostingsStore(): PostingsStore {
  return {
    terms: [],
    offsets: new Int32Array(1),
    counts: new Int32Array(0),
    postings: new Uint8Array(0),
    frozenEntries: 0,
    delta: new Map(),
    deltaEntries: 0,
    lengths: Object.fromEntries(FIELDS.map((f) => [f, new Int32Array(64)])) as Record<Field, Int32Array>,
    totals: Object.fromEntries(FIELDS.map((f) => [f, 0])) as Record<Field, number>,
    docs: 0,
    dead: new Uint8Array(64),
    deadCount: 0,
  };
}

/** Index of `term` in the frozen dictionary, or -1. */
export function frozenTerm(store: PostingsStore, term: string): number {
  const terms = store.terms;
  let lo = 0;
  let hi = terms.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const t = terms[mid]!;
    if (t === term) return mid;
    if (t < term) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** Number of live documents containing `term` (exact once the store is clean, see `ensureClean`). */
export function documentFrequency(store: PostingsStore, term: string): number {
  const t = frozenTerm(store, term);
  return (t < 0 ? 0 : store.counts[t]!) + ((store.delta.get(term)?.length ?? 0) >> 1);
}

/** Whether one live document holds every one of `terms` (in any of its fields). */
export function holdsAll(store: PostingsStore, terms: readonly string[]): boolean {
  // One term needs no list of documents: every query that names a service asks this, so it stays O(1) per name.
  if (terms.length === 1) return documentFrequency(store, terms[0]!) > 0;
  return terms.length > 0 && docsHoldingAll(store, terms).size > 0;
}

/** The internal ids of the live documents that hold every one of `terms` (in any of their fields). */
export function docsHoldingAll(store: PostingsStore, terms: readonly string[]): Set<number> {
  // The rarest term's documents, narrowed by each other term's.
  const [rarest, ...others] = terms
    .map((term) => ({ term, df: documentFrequency(store, term) }))
    .sort((a, b) => a.df - b.df);
  if (!rarest || rarest.df === 0) return new Set();
  ensureClean(store);
  let docs = docsOf(store, rarest.term);
  for (const { term } of others) {
    const next = new Set<number>();
    for (const doc of docsOf(store, term)) if (docs.has(doc)) next.add(doc);
    docs = next;
    if (docs.size === 0) break;
  }
  return docs;
}

/** The internal ids of the documents holding `term`. */
function docsOf(store: PostingsStore, term: string): Set<number> {
  const docs = new Set<number>();
  const t = frozenTerm(store, term);
  if (t >= 0) forEachFrozen(store, t, (doc) => docs.add(doc));
  const list = store.delta.get(term);
  if (list) for (let i = 0; i < list.length; i += 2) docs.add(list[i]!);
  return docs;
}

/** Calls `visit(internalId, packedCounts)` for each entry of frozen term `t`, ids ascending. */
export function forEachFrozen(store: PostingsStore, t: number, visit: (doc: number, packed: number) => void): void {
  const bytes = store.postings;
  const end = store.offsets[t + 1]!;
  let p = store.offsets[t]!;
  let doc = 0;
  while (p < end) {
    let b = bytes[p++]!;
    let gap = b & 0x7f;
    for (let shift = 7; b >= 0x80; shift += 7) {
      b = bytes[p++]!;
      gap |= (b & 0x7f) << shift;
    }
    b = bytes[p++]!;
    let packed = b & 0x7f;
    for (let shift = 7; b >= 0x80; shift += 7) {
      b = bytes[p++]!;
      packed |= (b & 0x7f) << shift;
    }
    doc += gap;
    visit(doc, packed);
  }
}

/** Growable byte output for varints. */
class ByteWriter {
  bytes: Uint8Array;
  length = 0;

  constructor(capacity: number) {
    this.bytes = new Uint8Array(Math.max(capacity, 64));
  }

  varint(value: number): void {
    if (this.length + 5 > this.bytes.length) {
      const next = new Uint8Array(this.bytes.length * 2);
      next.set(this.bytes);
      this.bytes = next;
    }
    while (value >= 0x80) {
      this.bytes[this.length++] = (value & 0x7f) | 0x80;
      value >>>= 7;
    }
    this.bytes[this.length++] = value;
  }
}

/** Ids below this pack with a 30-bit count word into one exactly representable double. */
const PACKED_DOC_LIMIT = 2 ** 23;

/** Sorts the (id, packed) pairs of `pairs[0..n)` by id, in place. */
function sortPairs(pairs: Int32Array, n: number): void {
  let sorted = true;
  for (let i = 2; i < n && sorted; i += 2) if (pairs[i]! < pairs[i - 2]!) sorted = false;
  if (sorted) return;
  let small = true;
  for (let i = 0; i < n; i += 2) if (pairs[i]! >= PACKED_DOC_LIMIT) small = false;
  if (small) {
    const keys = new Float64Array(n >> 1);
    for (let i = 0; i < n; i += 2) keys[i >> 1] = pairs[i]! * 2 ** 30 + pairs[i + 1]!;
    keys.sort();
    for (let i = 0; i < keys.length; i++) {
      const doc = Math.floor(keys[i]! / 2 ** 30);
      pairs[2 * i] = doc;
      pairs[2 * i + 1] = keys[i]! - doc * 2 ** 30;
    }
    return;
  }
  const order = Array.from({ length: n >> 1 }, (_, i) => i).sort((a, b) => pairs[2 * a]! - pairs[2 * b]!);
  const copy = pairs.slice(0, n);
  order.forEach((from, to) => {
    pairs[2 * to] = copy[2 * from]!;
    pairs[2 * to + 1] = copy[2 * from + 1]!;
  });
}

/**
 * Merges the delta into the frozen segment and drops dead documents' entries: one pass over all
 * postings, each term's entries gathered, put in id order (the delta's mostly are) and re-encoded.
 */
export function freeze(store: PostingsStore): void {
  if (store.deltaEntries === 0 && store.deadCount === 0) return;
  const deltaTerms = [...store.delta.keys()].sort();
  const { terms, delta, dead } = store;
  const hasDead = store.deadCount > 0;
  const merged: string[] = [];
  const counts: number[] = [];
  const out = new ByteWriter(store.postings.length + store.deltaEntries * 3);
  const offsets: number[] = [];
  let pairs = new Int32Array(1024);
  let n = 0;
  const gather = (doc: number, packed: number) => {
    if (hasDead && dead[doc] === 1) return;
    if (n + 2 > pairs.length) {
      const grown = new Int32Array(pairs.length * 2);
      grown.set(pairs);
      pairs = grown;
    }
    pairs[n++] = doc;
    pairs[n++] = packed;
  };
  let a = 0;
  let b = 0;
  while (a < terms.length || b < deltaTerms.length) {
    let term: string;
    let t = -1;
    if (b >= deltaTerms.length || (a < terms.length && terms[a]! < deltaTerms[b]!)) {
      t = a++;
      term = terms[t]!;
    } else if (a < terms.length && terms[a] === deltaTerms[b]) {
      t = a++;
      term = terms[t]!;
      b++;
    } else term = deltaTerms[b++]!;
    n = 0;
    if (t >= 0) forEachFrozen(store, t, gather);
    const list = delta.get(term);
    if (list) for (let i = 0; i < list.length; i += 2) gather(list[i]!, list[i + 1]!);
    if (n === 0) continue;
    sortPairs(pairs, n);
    merged.push(term);
    counts.push(n >> 1);
    offsets.push(out.length);
    let previous = 0;
    for (let i = 0; i < n; i += 2) {
      out.varint(pairs[i]! - previous);
      out.varint(pairs[i + 1]!);
      previous = pairs[i]!;
    }
  }
  offsets.push(out.length);
  store.terms = merged;
  store.offsets = Int32Array.from(offsets);
  store.counts = Int32Array.from(counts);
  store.frozenEntries = frozenEntries(store.counts);
  store.postings = out.bytes.slice(0, out.length);
  store.delta = new Map();
  store.deltaEntries = 0;
  if (hasDead) {
    store.dead = new Uint8Array(store.dead.length);
    store.deadCount = 0;
  }
}

/** Entries in the frozen segment, counted like `deltaEntries` (two numbers an entry). */
export function frozenEntries(counts: Int32Array): number {
  let total = 0;
  for (let t = 0; t < counts.length; t++) total += counts[t]!;
  return total * 2;
}

/** Scoring must see only live documents (document frequencies count entries): merge out the dead first. */
export function ensureClean(store: PostingsStore): void {
  if (store.deadCount > 0) freeze(store);
}

/** Merges a delta that has grown large relative to the frozen segment (after a bulk insert, say). */
export function settle(store: PostingsStore): void {
  if (store.deltaEntries >= DELTA_MIN_ENTRIES && store.deltaEntries >= store.frozenEntries) freeze(store);
}

function grow<T extends Int32Array | Uint8Array>(array: T, index: number): T {
  if (index < array.length) return array;
  const next = new (array.constructor as new (n: number) => T)(Math.max(index + 1, array.length * 2));
  next.set(array);
  return next;
}

// One scratch map for counting a field's terms, reused by every insert (inserts are synchronous).
const counts = new Map<string, number>();

/** Counts each distinct term of a field value into the scratch map. */
function countTerms(tokenizer: FieldTokenizer, value: string, prop: string): Map<string, number> {
  counts.clear();
  for (const term of tokenizer.tokenize(value, undefined, prop, false)) counts.set(term, (counts.get(term) ?? 0) + 1);
  return counts;
}

function isField(prop: string): prop is Field {
  return prop in FIELD_SLOT;
}

// Orama asks for these once per field of every inserted document: answer without allocating.
const SEARCHABLE = [...FIELDS];
const SEARCHABLE_TYPES = Object.fromEntries(FIELDS.map((f) => [f, "string"])) as Record<string, "string">;

/**
 * The Orama index component. Orama calls `insert`/`remove` once per field of a document, fields in
 * schema order, so a document's counts for all fields land in one posting entry per term.
 */
export const postingsIndex: IndexComponent<PostingsStore> = {
  create: () => createPostingsStore(),

  beforeInsert(
    store: PostingsStore,
    _prop: string,
    _id: string,
    _value: unknown,
    _type: unknown,
    _lang: unknown,
    _tok: unknown,
    _count: number,
  ) {
    // A re-inserted id reuses its internal id: its old entries must be gone before new ones land.
    if (store.deadCount > 0) freeze(store);
  },

  insert(
    _impl: unknown,
    store: PostingsStore,
    prop: string,
    _id: string,
    internalId: number,
    value: unknown,
    _type: unknown,
    _lang: string | undefined,
    tokenizer: FieldTokenizer,
  ) {
    if (!isField(prop) || typeof value !== "string") return;
    let length = 0;
    const shift = FIELD_SLOT[prop] * TF_BITS;
    for (const [term, tf] of countTerms(tokenizer, value, prop)) {
      length += tf;
      let list = store.delta.get(term);
      if (!list) {
        list = [];
        store.delta.set(term, list);
      }
      const bits = Math.min(tf, TF_MAX) << shift;
      if (list.length > 0 && list[list.length - 2] === internalId) list[list.length - 1]! |= bits;
      else {
        list.push(internalId, bits);
        store.deltaEntries += 2;
      }
    }
    const lengths = grow(store.lengths[prop], internalId);
    store.lengths[prop] = lengths;
    lengths[internalId] = length;
    store.totals[prop] += length;
    if (prop === FIELDS[0]) store.docs++;
  },

  remove(
    _impl: unknown,
    store: PostingsStore,
    prop: string,
    _id: string,
    internalId: number,
    _value: unknown,
    _type: unknown,
  ) {
    if (!isField(prop)) return true;
    store.dead = grow(store.dead, internalId);
    if (store.dead[internalId] === 0) {
      store.dead[internalId] = 1;
      store.deadCount++;
      store.docs--;
    }
    const lengths = store.lengths[prop];
    store.totals[prop] -= lengths[internalId] ?? 0;
    if (internalId < lengths.length) lengths[internalId] = 0;
    return true;
  },

  getSearchableProperties: () => SEARCHABLE,
  getSearchablePropertiesWithTypes: () => SEARCHABLE_TYPES,

  save(store: PostingsStore): PostingsStore {
    freeze(store);
    return store;
  },
  load(_ids: unknown, raw: PostingsStore): PostingsStore {
    return raw;
  },
};
