/**
 * Binary snapshot of an index, so that a cold Durable Object restores instead of re-analysing
 * every tool. Layout (little-endian, every section starting on a 4-byte boundary):
 *
 *   u32 magic "TSIX" | u32 format | u32 index version | u32 section count | u32 byte length per section
 *   | sections, in SECTIONS order
 *
 * Strings (ids, name records, terms) are NUL-joined UTF-8, one decode and one split each; numbers
 * are the typed arrays of the index as they lie in memory. Restoring the postings arena, its
 * offsets and counts and the name tables is taking views over these bytes: nothing to parse,
 * nothing to insert.
 * Those sections come first and contiguous, so that one copy keeps them and lets the rest go.
 *
 * The last section is the usage field (what tools learned from use, usage.ts) as JSON, with the learned-state version
 * it reflects, so that the tenant can tell a snapshot whose learned part is stale (it then reloads only that part).
 *
 * Encoding yields parts (the header, then each section with its padding) that mostly are views
 * of the index's own arrays: writing a snapshot does not hold a second copy of the postings.
 */
import { FIELDS, type Field } from "../catalog/fields.ts";
import { emptyTable, type HashTable } from "./name-store.ts";
import type { Saved } from "./orama.ts";
import { createPostingsStore, frozenEntries, type PostingsStore } from "./postings.ts";
import { UsageField, type SavedUsage } from "./usage.ts";

const MAGIC = 0x58495354; // "TSIX" read as a little-endian u32
/** Bump when the byte layout changes. Changes to analysis are covered by INDEX_VERSION. */
export const SNAPSHOT_FORMAT = 4;

const SECTIONS = [
  // Kept as views after a restore (see RETAINED):
  "offsets",
  "counts",
  "exact:hashes",
  "exact:ids",
  "tails:hashes",
  "tails:ids",
  "postings",
  // Read into other structures:
  ...FIELDS.map((f) => `length:${f}` as const),
  "meta",
  "ids",
  "records",
  "terms",
  "usage",
] as const;
type Section = (typeof SECTIONS)[number];
/** The leading sections that the restored index keeps as views. */
const RETAINED = 7;

const FIXED_HEADER = 16;
const NUL = "\u0000";

interface Meta {
  /** Internal ids in use: 1..slots (Orama never reuses an id for another document). */
  slots: number;
  docs: number;
  count: number;
  totals: Record<Field, number>;
}

export class SnapshotError extends Error {}

interface SavedNames {
  records: (string | undefined)[];
  count: number;
  exact: HashTable;
  tails: HashTable;
}

/** What a snapshot holds: the database's saved state and the usage field. */
type SavedIndex = Saved<PostingsStore, SavedNames> & { usage: SavedUsage };

/** The snapshot as parts to be written in order; most are views of the index's arrays. */
export function encodeSnapshotParts(saved: SavedIndex, indexVersion: number): Uint8Array[] {
  const { index: store, docs: names, ids } = saved;
  const slots = ids.length;
  const meta: Meta = { slots, docs: store.docs, count: names.count, totals: store.totals };
  const records = Array.from({ length: slots }, (_, i) => names.records[i + 1] ?? "");
  const sections: Record<Section, Uint8Array> = {
    offsets: bytesOf(store.offsets),
    counts: bytesOf(store.counts),
    postings: store.postings,
    "exact:hashes": bytesOf(names.exact.hashes),
    "exact:ids": bytesOf(names.exact.ids),
    "tails:hashes": bytesOf(names.tails.hashes),
    "tails:ids": bytesOf(names.tails.ids),
    ...(Object.fromEntries(FIELDS.map((f) => [`length:${f}`, bytesOf(sized(store.lengths[f], slots + 1))])) as Record<
      `length:${Field}`,
      Uint8Array
    >),
    meta: utf8(JSON.stringify(meta)),
    ids: utf8(joined(ids)),
    records: utf8(joined(records)),
    terms: utf8(joined(store.terms)),
    usage: utf8(JSON.stringify(saved.usage)),
  };
  const header = new Uint8Array(FIXED_HEADER + 4 * SECTIONS.length);
  const view = new DataView(header.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, SNAPSHOT_FORMAT, true);
  view.setUint32(8, indexVersion, true);
  view.setUint32(12, SECTIONS.length, true);
  const parts: Uint8Array[] = [header];
  SECTIONS.forEach((s, i) => {
    const bytes = sections[s];
    view.setUint32(FIXED_HEADER + 4 * i, bytes.byteLength, true);
    parts.push(bytes);
    if (bytes.byteLength % 4 !== 0) parts.push(new Uint8Array(align4(bytes.byteLength) - bytes.byteLength));
  });
  return parts;
}

export function encodeSnapshot(saved: SavedIndex, indexVersion: number): Uint8Array {
  return concat(encodeSnapshotParts(saved, indexVersion));
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/** Reads a snapshot back into the state a database loads. Throws SnapshotError on anything unexpected. */
export function decodeSnapshot(
  input: Uint8Array,
  indexVersion: number,
): Saved<PostingsStore, SavedNames> & { usage: UsageField } {
  // Views need 4-byte alignment; bytes from storage usually start a fresh buffer, else copy once.
  const bytes = input.byteOffset % 4 === 0 ? input : input.slice();
  if (bytes.byteLength < FIXED_HEADER) throw new SnapshotError("snapshot too short");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== MAGIC) throw new SnapshotError("not an index snapshot");
  if (view.getUint32(4, true) !== SNAPSHOT_FORMAT) throw new SnapshotError("snapshot format differs");
  if (view.getUint32(8, true) !== indexVersion) throw new SnapshotError("snapshot index version differs");
  if (view.getUint32(12, true) !== SECTIONS.length) throw new SnapshotError("snapshot sections differ");
  const sections = {} as Record<Section, Uint8Array>;
  let at = FIXED_HEADER + 4 * SECTIONS.length;
  SECTIONS.forEach((s, i) => {
    const length = view.getUint32(FIXED_HEADER + 4 * i, true);
    if (at + length > bytes.byteLength) throw new SnapshotError(`snapshot truncated in ${s}`);
    sections[s] = bytes.subarray(at, at + length);
    at += align4(length);
  });
  if (at !== bytes.byteLength) throw new SnapshotError("snapshot has trailing bytes");
  keepRetainedOnly(sections);

  const meta = parseMeta(sections.meta);
  const ids = strings(sections.ids, meta.slots, "ids");
  const records = strings(sections.records, meta.slots, "records");
  const store = createPostingsStore();
  store.terms = strings(sections.terms, -1, "terms");
  store.offsets = int32(sections.offsets, store.terms.length + 1, "offsets");
  store.counts = int32(sections.counts, store.terms.length, "counts");
  store.frozenEntries = frozenEntries(store.counts);
  store.postings = sections.postings;
  checkOffsets(store.offsets, store.postings.length);
  // Copied: the lengths are written in place as documents are added.
  for (const f of FIELDS) store.lengths[f] = int32(sections[`length:${f}`], meta.slots + 1, `length:${f}`).slice();
  store.totals = meta.totals;
  store.docs = meta.docs;
  store.dead = new Uint8Array(meta.slots + 1);

  const names: SavedNames = {
    records: recordsById(records),
    count: meta.count,
    exact: table(sections, "exact"),
    tails: table(sections, "tails"),
  };
  return { ids, index: store, docs: names, usage: parseUsage(sections.usage, meta.slots) };
}

function parseUsage(bytes: Uint8Array, slots: number): UsageField {
  try {
    const saved = JSON.parse(new TextDecoder().decode(bytes)) as SavedUsage;
    if (!Number.isInteger(saved.version) || !Array.isArray(saved.tools)) throw new Error();
    return UsageField.load(saved, slots);
  } catch {
    throw new SnapshotError("snapshot usage unreadable");
  }
}

/** Records indexed by internal id (from 1); removed documents' empty records become holes. */
function recordsById(records: string[]): (string | undefined)[] {
  const out = new Array<string | undefined>(records.length + 1);
  for (let i = 0; i < records.length; i++) if (records[i] !== "") out[i + 1] = records[i];
  return out;
}

/**
 * Moves the retained sections (contiguous, at the front) into a buffer of their own when the rest
 * is worth freeing: the strings and lengths are decoded into other structures, and views would
 * otherwise keep their bytes alive for the life of the index.
 */
function keepRetainedOnly(sections: Record<Section, Uint8Array>): void {
  const first = sections[SECTIONS[0]];
  const last = sections[SECTIONS[RETAINED - 1]!];
  const start = first.byteOffset;
  const end = last.byteOffset + last.byteLength;
  if (end - start >= 0.9 * first.buffer.byteLength) return;
  const copy = new Uint8Array(first.buffer.slice(start, end));
  for (const s of SECTIONS.slice(0, RETAINED))
    sections[s] = copy.subarray(
      sections[s].byteOffset - start,
      sections[s].byteOffset - start + sections[s].byteLength,
    );
}

function parseMeta(bytes: Uint8Array): Meta {
  try {
    const meta = JSON.parse(new TextDecoder().decode(bytes)) as Meta;
    if (!Number.isInteger(meta.slots) || !Number.isInteger(meta.docs) || typeof meta.totals !== "object")
      throw new Error();
    return meta;
  } catch {
    throw new SnapshotError("snapshot meta unreadable");
  }
}

function table(sections: Record<Section, Uint8Array>, kind: "exact" | "tails"): HashTable {
  const t = emptyTable();
  const hashes = sections[`${kind}:hashes`];
  t.hashes = new Uint32Array(hashes.buffer, hashes.byteOffset, hashes.byteLength >> 2);
  t.ids = int32(sections[`${kind}:ids`], t.hashes.length, `${kind}:ids`);
  return t;
}

function checkOffsets(offsets: Int32Array, postings: number): void {
  if (offsets[0] !== 0 || offsets[offsets.length - 1] !== postings)
    throw new SnapshotError("snapshot offsets inconsistent");
  for (let i = 1; i < offsets.length; i++)
    if (offsets[i]! < offsets[i - 1]!) throw new SnapshotError("snapshot offsets inconsistent");
}

function int32(bytes: Uint8Array, expected: number, what: string): Int32Array {
  if (bytes.byteLength % 4 !== 0) throw new SnapshotError(`snapshot ${what} misaligned`);
  const array = new Int32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 2);
  if (expected >= 0 && array.length !== expected)
    throw new SnapshotError(`snapshot ${what} has ${array.length} entries, expected ${expected}`);
  return array;
}

function strings(bytes: Uint8Array, expected: number, what: string): string[] {
  const text = new TextDecoder().decode(bytes);
  const list = bytes.byteLength === 0 ? [] : text.split(NUL);
  // An empty section is either no strings or one empty string: only `expected` can tell.
  const out = list.length === 0 && expected === 1 ? [""] : list;
  if (expected >= 0 && out.length !== expected)
    throw new SnapshotError(`snapshot ${what} has ${out.length} entries, expected ${expected}`);
  return out;
}

function joined(list: readonly string[]): string {
  for (const s of list) if (s.includes(NUL)) throw new Error("index strings must not contain NUL");
  return list.join(NUL);
}

function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/** The first `n` entries, zero-padded when the array is shorter. */
function sized(array: Int32Array, n: number): Int32Array {
  if (array.length >= n) return array.subarray(0, n);
  const out = new Int32Array(n);
  out.set(array);
  return out;
}

function bytesOf(array: Int32Array | Uint32Array): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

function align4(n: number): number {
  return (n + 3) & ~3;
}
