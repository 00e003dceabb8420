/**
 * The contract between the index and Orama: every behaviour of Orama that src/search/orama.ts relies on, each a
 * named test over small recording components. An Orama upgrade that changes one fails here, by name, instead of
 * somewhere in a search. (The real components are tested through the index: test/search/*.)
 */
import { describe, expect, it } from "vitest";
import {
  type DocumentsStoreComponent,
  type FieldTokenizer,
  type IndexComponent,
  OramaDb,
} from "../../src/search/orama.ts";

const PACKAGE = Object.values(
  import.meta.glob("../../package.json", { query: "?raw", import: "default", eager: true }),
)[0] as string;

const FIELDS = ["title", "body"] as const;
type Doc = { id: string; title: string; body: string };

interface IndexData {
  calls: string[];
  terms: Map<number, string[]>;
}
interface DocsData {
  idStore: { idToInternalId: Map<string, number> };
  docs: Map<number, Doc>;
  calls: string[];
}

/** An index component that records what Orama calls, and the terms our tokenizer gave for each internal id. */
function recordingIndex(): IndexComponent<IndexData> {
  return {
    create: () => ({ calls: [], terms: new Map() }),
    beforeInsert(store, prop, id) {
      store.calls.push(`beforeInsert ${prop} ${id}`);
    },
    insert(_impl, store, prop, id, internalId, value, _type, _lang, tokenizer: FieldTokenizer) {
      store.calls.push(`insert ${prop} ${id} ${internalId}`);
      const terms = tokenizer.tokenize(String(value), undefined, prop, false);
      store.terms.set(internalId, [...(store.terms.get(internalId) ?? []), ...terms]);
    },
    remove(_impl, store, prop, id, internalId) {
      store.calls.push(`remove ${prop} ${id} ${internalId}`);
      return true;
    },
    getSearchableProperties: () => [...FIELDS],
    getSearchablePropertiesWithTypes: () => ({ title: "string", body: "string" }),
    save: (store) => ({ ...store, calls: [...store.calls, "save"] }),
    load: (_ids, raw) => ({ ...raw, calls: [...raw.calls, "load"] }),
  };
}

/** A documents store that keeps whole documents and records what Orama calls. */
function recordingDocs(): DocumentsStoreComponent<DocsData, Doc> {
  const view = (store: DocsData, id: string) => {
    const internalId = store.idStore.idToInternalId.get(id);
    return internalId === undefined ? undefined : store.docs.get(internalId);
  };
  return {
    create: (_orama, idStore) => ({ idStore, docs: new Map(), calls: [] }),
    get: view,
    getMultiple: (store, ids) => ids.map((id) => view(store, id)),
    getAll(): never {
      throw new Error("not used");
    },
    store(store, id, internalId, doc) {
      store.calls.push(`store ${id} ${internalId}`);
      store.docs.set(internalId, doc);
      return true;
    },
    remove(store, id, internalId) {
      store.calls.push(`remove ${id} ${internalId}`);
      return store.docs.delete(internalId!);
    },
    count: (store) => store.docs.size,
    save: (store) => store,
    load: (idStore, raw) => ({ ...raw, idStore }),
  };
}

function database() {
  return OramaDb.create<IndexData, DocsData, Doc>(FIELDS, {
    tokenize: (raw, prop) => raw.split(" ").map((w) => `${prop}:${w}`),
    index: recordingIndex(),
    documentsStore: recordingDocs(),
  });
}

const a: Doc = { id: "a", title: "read file", body: "reads a file" };
const b: Doc = { id: "b", title: "write file", body: "writes a file" };

describe("Orama as the index uses it (src/search/orama.ts)", () => {
  it("is pinned to one exact version in package.json", () => {
    const { dependencies, devDependencies } = JSON.parse(PACKAGE);
    expect({ ...dependencies, ...devDependencies }["@orama/orama"]).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it("create: keeps the index and documents store components' data as db.data.index and db.data.docs", () => {
    const db = database();
    expect(db.index).toEqual({ calls: [], terms: new Map() });
    expect(db.docs.docs).toEqual(new Map());
  });

  it("create: hands the documents store the database's id store, shared as ids are assigned", () => {
    const db = database();
    db.insert([a]);
    expect(db.docs.idStore).toBe(db.ids);
    expect(db.docs.idStore.idToInternalId.get("a")).toBe(1);
  });

  it("internal ids: from 1 in insertion order; internalIdToId[i - 1] is the id and idToInternalId maps back", () => {
    const db = database();
    db.insert([a, b]);
    expect(db.ids.internalIdToId).toEqual(["a", "b"]);
    expect([...db.ids.idToInternalId]).toEqual([
      ["a", 1],
      ["b", 2],
    ]);
  });

  it("insert: beforeInsert then insert once per field in schema order, with the id, internal id and value", () => {
    const db = database();
    db.insert([a]);
    expect(db.index.calls).toEqual([
      "beforeInsert title a",
      "insert title a 1",
      "beforeInsert body a",
      "insert body a 1",
    ]);
  });

  it("insert: the index component's tokenizer is ours, called with the field being indexed", () => {
    const db = database();
    db.insert([a]);
    expect(db.index.terms.get(1)).toEqual(["title:read", "title:file", "body:reads", "body:a", "body:file"]);
  });

  it("insert: the documents store gets the whole document under its internal id", () => {
    const db = database();
    db.insert([a]);
    expect(db.docs.calls).toEqual(["store a 1"]);
    expect(db.docs.docs.get(1)).toEqual(a);
  });

  it("remove: the index hears of each field with the internal id, then the documents store removes it", () => {
    const db = database();
    db.insert([a, b]);
    db.index.calls.length = 0;
    db.remove(["a"]);
    expect(db.index.calls).toEqual(["remove title a 1", "remove body a 1"]);
    expect(db.docs.calls).toEqual(["store a 1", "store b 2", "remove a 1"]);
  });

  it("count: the documents store's count", () => {
    const db = database();
    db.insert([a, b]);
    db.remove(["b"]);
    expect(db.count).toBe(1);
  });

  it("internal ids: an id removed and inserted again gets its internal id back; no other document takes it", () => {
    const db = database();
    db.insert([a, b]);
    db.remove(["a"]);
    db.insert([{ id: "c", title: "c", body: "c" }]);
    db.insert([a]);
    expect(db.ids.idToInternalId.get("a")).toBe(1);
    expect(db.ids.idToInternalId.get("c")).toBe(3);
  });

  it("save: each component's save result, and the ids by internal id", () => {
    const db = database();
    db.insert([a, b]);
    const saved = db.save();
    expect(saved.ids).toEqual(["a", "b"]);
    expect(saved.index.calls.at(-1)).toBe("save");
    expect(saved.docs.docs.get(2)).toEqual(b);
  });

  it("load: each component's load with its raw part; ids set after it are the database's, not mapped back", () => {
    const source = database();
    source.insert([a, b]);
    const db = database();
    db.load(source.save());
    expect(db.index.calls.slice(-2)).toEqual(["save", "load"]);
    expect(db.docs.docs.get(1)).toEqual(a);
    expect(db.docs.idStore).toBe(db.ids);
    expect(db.ids.internalIdToId).toEqual(["a", "b"]);
    expect(db.ids.idToInternalId.size).toBe(0);
    expect(db.count).toBe(2);
  });
});
