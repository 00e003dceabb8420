/**
 * Binary snapshot of an index, so that a cold Durable Object restores instead of re-analysing
 * every tool. Layout (little-endian):
 *
 *   "TSIX" | u32 format | u32 headerBytes | header JSON | pad to 4 | i32 offsets[terms + 1] | i32 postings[]
 *
 * The header holds strings (ids, search text, terms, lengths); posting lists, the bulk of the
 * index, are one Int32Array so that restoring them is a copy, not a parse.
 */
import type { RawData } from "@orama/orama";
import { FIELDS, type Field, type SearchDocument } from "./document.ts";
import { createPostingsStore, type PostingsStore } from "./postings.ts";

const MAGIC = 0x58495354; // "TSIX" read as a little-endian u32
/** Bump when the byte layout changes. Changes to analysis are covered by INDEX_VERSION. */
const FORMAT = 1;

interface Header {
  indexVersion: number;
  ids: string[];
  docs: SearchDocument[];
  docIds: number[];
  lengths: Record<Field, number[]>;
  totals: Record<Field, number>;
  docCount: number;
  terms: string[];
}

export class SnapshotError extends Error {}

interface OramaDocs {
  docs: Record<number, SearchDocument>;
  count: number;
}

export function encodeSnapshot(raw: RawData, indexVersion: number): Uint8Array {
  const store = raw.index as unknown as PostingsStore;
  const docsRaw = raw.docs as unknown as OramaDocs;
  const docIds = Object.keys(docsRaw.docs).map(Number);
  const terms = [...store.terms.keys()];
  const header: Header = {
    indexVersion,
    ids: (raw.internalDocumentIDStore as { internalIdToId: string[] }).internalIdToId,
    docs: docIds.map((id) => docsRaw.docs[id]!),
    docIds,
    lengths: Object.fromEntries(FIELDS.map((f) => [f, Array.from(store.lengths[f], (n) => n ?? 0)])) as Record<Field, number[]>,
    totals: store.totals,
    docCount: store.docs,
    terms,
  };
  const json = new TextEncoder().encode(JSON.stringify(header));
  const offsets = new Int32Array(terms.length + 1);
  let total = 0;
  terms.forEach((term, i) => {
    offsets[i] = total;
    total += store.terms.get(term)!.length;
  });
  offsets[terms.length] = total;
  const headerEnd = align4(12 + json.length);
  const bytes = new Uint8Array(headerEnd + offsets.byteLength + total * 4);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, FORMAT, true);
  view.setUint32(8, json.length, true);
  bytes.set(json, 12);
  bytes.set(new Uint8Array(offsets.buffer), headerEnd);
  const postings = new Int32Array(bytes.buffer, headerEnd + offsets.byteLength, total);
  let at = 0;
  for (const term of terms) {
    const list = store.terms.get(term)!;
    postings.set(list, at);
    at += list.length;
  }
  return bytes;
}

/** Reads a snapshot back into Orama's raw form. Throws SnapshotError on anything unexpected. */
export function decodeSnapshot(bytes: Uint8Array, indexVersion: number): RawData {
  if (bytes.byteLength < 12) throw new SnapshotError("snapshot too short");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== MAGIC) throw new SnapshotError("not an index snapshot");
  if (view.getUint32(4, true) !== FORMAT) throw new SnapshotError("snapshot format differs");
  const jsonLength = view.getUint32(8, true);
  if (12 + jsonLength > bytes.byteLength) throw new SnapshotError("snapshot header truncated");
  let header: Header;
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + jsonLength))) as Header;
  } catch {
    throw new SnapshotError("snapshot header unreadable");
  }
  if (header.indexVersion !== indexVersion) throw new SnapshotError("snapshot index version differs");
  // Copy into an aligned buffer: the bytes may come from storage at any offset.
  const headerEnd = align4(12 + jsonLength);
  const termCount = header.terms.length;
  const binary = bytes.slice(headerEnd);
  if (binary.byteLength < (termCount + 1) * 4) throw new SnapshotError("snapshot postings truncated");
  const offsets = new Int32Array(binary.buffer, 0, termCount + 1);
  const postingsLength = offsets[termCount]!;
  if (binary.byteLength !== (termCount + 1 + postingsLength) * 4) throw new SnapshotError("snapshot postings truncated");
  const postings = new Int32Array(binary.buffer, (termCount + 1) * 4, postingsLength);

  const store = createPostingsStore();
  header.terms.forEach((term, i) => store.terms.set(term, Array.from(postings.subarray(offsets[i]!, offsets[i + 1]!))));
  store.lengths = header.lengths;
  store.totals = header.totals;
  store.docs = header.docCount;
  const docs: Record<number, SearchDocument> = {};
  header.docIds.forEach((id, i) => (docs[id] = header.docs[i]!));
  return {
    internalDocumentIDStore: { internalIdToId: header.ids },
    index: store,
    docs: { docs, count: header.docIds.length },
    sorting: { enabled: false },
    pinning: { rules: [] },
    language: "english",
  } as unknown as RawData;
}

function align4(n: number): number {
  return (n + 3) & ~3;
}
