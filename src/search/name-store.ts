/**
 * Orama's `documentsStore` component, kept lean: per document only what exact-name matching needs
 * (server, tool name, aliases, as one short string), never its text. The text is in the catalog
 * rows; the index holds postings (see postings.ts). Orama's own store kept every document whole,
 * which at 100,000 tools was most of the heap.
 *
 * The exact-name keys (every spelling clients use, see names.ts) are kept as 32-bit hashes in
 * sorted typed arrays, 8 bytes per key instead of a string and a Set each. A lookup hashes the
 * query, takes the documents with that hash, and keeps those whose own keys (recomputed from the
 * record) contain the query: a hash collision costs a comparison, never a wrong result. Removed
 * documents' entries are skipped at lookup and dropped at the next freeze.
 */
import { FIELDS } from "../catalog/fields.ts";
import type { SearchDocument } from "./document.ts";
import type { DocumentsStoreComponent } from "./orama.ts";
import { nameKeys, type NameKeys } from "./names.ts";

const SEPARATOR = "\u0001";
/** Delta entries that trigger merging into the frozen arrays, with half of the frozen size. */
const DELTA_MIN_ENTRIES = 1_024;

export type NameKind = keyof NameKeys;
const NAME_KINDS: readonly NameKind[] = ["exact", "tails"];

/**
 * Hashed keys -> internal ids: a frozen part sorted by hash, and a delta of recent additions (one
 * id, or several for a shared hash: most keys belong to one tool, so most entries allocate nothing).
 */
export interface HashTable {
  hashes: Uint32Array;
  ids: Int32Array;
  delta: Map<number, number | number[]>;
  deltaEntries: number;
}

export interface NameStore {
  /** Orama's id store (string id <-> internal id), shared with the rest of the database. */
  idStore: { idToInternalId: Map<string, number> };
  /** By internal id: `server \u0001 toolName \u0001 alias...`, or undefined for a removed document. */
  records: (string | undefined)[];
  count: number;
  exact: HashTable;
  tails: HashTable;
}

export function emptyTable(): HashTable {
  return { hashes: new Uint32Array(0), ids: new Int32Array(0), delta: new Map(), deltaEntries: 0 };
}

/** FNV-1a over UTF-16 code units. */
export function hashKey(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * A document's record: server, tool name, and only the aliases that add a key (a model-facing
 * name like `github__list_issues` is already a spelling of the name; at 100,000 tools keeping it
 * would double the records' size for nothing).
 */
function recordOf(doc: SearchDocument): string {
  const own = new Set(nameKeys(doc.server, doc.toolName).exact);
  return [doc.server, doc.toolName, ...doc.aliases.filter((a) => !own.has(a.toLowerCase()))].join(SEPARATOR);
}

function keysOfRecord(record: string): NameKeys {
  const [server, toolName, ...aliases] = record.split(SEPARATOR);
  return nameKeys(server!, toolName!, aliases);
}

function add(table: HashTable, key: string, id: number): void {
  const h = hashKey(key);
  const entry = table.delta.get(h);
  if (entry === undefined) table.delta.set(h, id);
  else if (typeof entry === "number") table.delta.set(h, [entry, id]);
  else entry.push(id);
  table.deltaEntries++;
}

function deltaIds(entry: number | number[] | undefined): number[] {
  return entry === undefined ? [] : typeof entry === "number" ? [entry] : entry;
}

/** Internal ids of live documents whose `kind` keys include `key` (unsorted, unique). */
export function lookup(store: NameStore, kind: NameKind, key: string): number[] {
  const table = store[kind];
  const h = hashKey(key);
  const candidates = new Set<number>(deltaIds(table.delta.get(h)));
  let lo = 0;
  let hi = table.hashes.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (table.hashes[mid]! < h) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo; i < table.hashes.length && table.hashes[i] === h; i++) candidates.add(table.ids[i]!);
  return [...candidates].filter((id) => {
    const record = store.records[id];
    return record !== undefined && keysOfRecord(record)[kind].includes(key);
  });
}

/** Ids below this pack with their 32-bit hash into one exactly representable double (2^32 * 2^21 = 2^53). */
const PACKED_ID_LIMIT = 2 ** 21;

/**
 * Merges the delta into the sorted arrays, dropping removed documents and duplicate entries. The
 * frozen part is already sorted: only the delta is sorted, then the two are merged in one pass.
 */
function freezeTable(table: HashTable, live: (id: number) => boolean): void {
  const hashes: number[] = [];
  const ids: number[] = [];
  for (const [h, entry] of table.delta) {
    for (const id of deltaIds(entry)) {
      if (!live(id)) continue;
      hashes.push(h);
      ids.push(id);
    }
  }
  const [deltaHashes, deltaIdsSorted] = sortPairs(hashes, ids);
  const total = table.hashes.length + deltaHashes.length;
  const outHashes = new Uint32Array(total);
  const outIds = new Int32Array(total);
  let n = 0;
  const emit = (h: number, id: number) => {
    if (!live(id) || (n > 0 && outHashes[n - 1] === h && outIds[n - 1] === id)) return;
    outHashes[n] = h;
    outIds[n++] = id;
  };
  let a = 0;
  let b = 0;
  while (a < table.hashes.length || b < deltaHashes.length) {
    const takeFrozen =
      b >= deltaHashes.length ||
      (a < table.hashes.length &&
        (table.hashes[a]! < deltaHashes[b]! ||
          (table.hashes[a] === deltaHashes[b] && table.ids[a]! <= deltaIdsSorted[b]!)));
    if (takeFrozen) emit(table.hashes[a]!, table.ids[a++]!);
    else emit(deltaHashes[b]!, deltaIdsSorted[b++]!);
  }
  table.hashes = outHashes.slice(0, n);
  table.ids = outIds.slice(0, n);
  table.delta = new Map();
  table.deltaEntries = 0;
}

/** (hash, id) pairs in ascending order without duplicates: a native numeric sort when ids allow it. */
function sortPairs(hashes: number[], ids: number[]): [Uint32Array, Int32Array] {
  const outHashes = new Uint32Array(hashes.length);
  const outIds = new Int32Array(hashes.length);
  let n = 0;
  const emit = (h: number, id: number) => {
    if (n > 0 && outHashes[n - 1] === h && outIds[n - 1] === id) return;
    outHashes[n] = h;
    outIds[n++] = id;
  };
  if (ids.every((id) => id < PACKED_ID_LIMIT)) {
    for (const p of Float64Array.from(hashes, (h, i) => h * PACKED_ID_LIMIT + ids[i]!).sort()) {
      const h = Math.floor(p / PACKED_ID_LIMIT);
      emit(h, p - h * PACKED_ID_LIMIT);
    }
  } else {
    for (const i of Array.from(hashes, (_, i) => i).sort((a, b) => hashes[a]! - hashes[b]! || ids[a]! - ids[b]!))
      emit(hashes[i]!, ids[i]!);
  }
  return [outHashes.subarray(0, n), outIds.subarray(0, n)];
}

/** Freezes both tables when forced or when their deltas have grown large. */
export function freezeNames(store: NameStore, force: boolean): void {
  const live = (id: number) => store.records[id] !== undefined;
  for (const kind of NAME_KINDS) {
    const table = store[kind];
    const big = table.deltaEntries >= DELTA_MIN_ENTRIES && table.deltaEntries * 2 >= table.hashes.length;
    if (table.deltaEntries > 0 && (force || big)) freezeTable(table, live);
    else if (force && table.hashes.length > 0) freezeTable(table, live);
  }
}

/** What Orama's remove reads back: every field present (so the index hears of the removal), no text. */
const REMOVED_VIEW = Object.freeze(Object.fromEntries(FIELDS.map((f) => [f, ""])));

function view(store: NameStore, id: string) {
  const internalId = store.idStore.idToInternalId.get(id);
  return internalId !== undefined && store.records[internalId] !== undefined ? REMOVED_VIEW : undefined;
}

export const nameStore: DocumentsStoreComponent<NameStore, SearchDocument> = {
  create(_orama: unknown, idStore: NameStore["idStore"]): NameStore {
    return { idStore, records: [], count: 0, exact: emptyTable(), tails: emptyTable() };
  },
  get: view,
  getMultiple: (store: NameStore, ids: string[]) => ids.map((id) => view(store, id)),
  getAll(): never {
    throw new Error("the name store keeps no documents");
  },
  store(store: NameStore, _id: string, internalId: number, doc: SearchDocument): boolean {
    if (store.records[internalId] !== undefined) return false;
    const record = recordOf(doc);
    store.records[internalId] = record;
    store.count++;
    const keys = nameKeys(doc.server, doc.toolName, doc.aliases);
    for (const kind of NAME_KINDS) for (const key of keys[kind]) add(store[kind], key, internalId);
    return true;
  },
  remove(store: NameStore, id: string, internalId?: number): boolean {
    const at = internalId ?? store.idStore.idToInternalId.get(id);
    if (at === undefined || store.records[at] === undefined) return false;
    store.records[at] = undefined;
    store.count--;
    return true;
  },
  count: (store: NameStore) => store.count,
  save(store: NameStore): NameStore {
    freezeNames(store, true);
    return store;
  },
  load(idStore: NameStore["idStore"], raw: NameStore): NameStore {
    return { ...raw, idStore };
  },
};
