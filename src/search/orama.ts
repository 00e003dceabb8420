/**
 * The seam to Orama: the one module that imports `@orama/orama` (pinned to one exact version in package.json).
 *
 * The index keeps Orama's database (internal ids, insert and remove driving our components, save and load).
 * It also relies on what no public API exposes: the id store's two maps, the
 * components' data on the database, the hooks Orama calls on an `index` and a `documentsStore` component, and the
 * raw form `save` and `load` exchange. Each of these is named here, and test/search/orama.test.ts checks each
 * against the installed Orama, so an upgrade that changes one fails a named test rather than a search.
 */
import {
  type AnyOrama,
  count,
  create,
  type IDocumentsStore,
  type IIndex,
  insertMultiple,
  load,
  type RawData,
  removeMultiple,
  save,
  type Tokenizer,
} from "@orama/orama";

/** Orama's id store: document `i` (internal ids start at 1) is `internalIdToId[i - 1]`; `idToInternalId` maps back. */
export interface IdStore {
  internalIdToId: string[];
  idToInternalId: Map<string, number>;
}

/** What Orama hands an index component to analyse a field's value: the `tokenize` given to `OramaDb.create`. */
export interface FieldTokenizer {
  tokenize(raw: string, language: string | undefined, prop: string, withCache: boolean): string[];
}

/**
 * The hooks of Orama's `index` component that Orama calls on insert, remove, save and load. Orama calls `insert` and
 * `remove` once per field of a document, in schema order. Orama's own search (and with it the component's search
 * hooks) is not used: scoring reads the component's data directly.
 */
export interface IndexComponent<S> {
  create(): S;
  beforeInsert(
    store: S,
    prop: string,
    id: string,
    value: unknown,
    type: unknown,
    lang: unknown,
    tok: unknown,
    docsCount: number,
  ): void;
  insert(
    impl: unknown,
    store: S,
    prop: string,
    id: string,
    internalId: number,
    value: unknown,
    type: unknown,
    lang: string | undefined,
    tokenizer: FieldTokenizer,
  ): void;
  remove(impl: unknown, store: S, prop: string, id: string, internalId: number, value: unknown, type: unknown): boolean;
  getSearchableProperties(): string[];
  getSearchablePropertiesWithTypes(): Record<string, "string">;
  save(store: S): S;
  load(idStore: unknown, raw: S): S;
}

/**
 * The hooks of Orama's `documentsStore` component. `create` and `load` receive the database's id store (shared, so
 * the component sees ids as they are assigned); `get` answers what `remove` reads back before it calls the index.
 */
export interface DocumentsStoreComponent<S, D> {
  create(orama: unknown, idStore: Pick<IdStore, "idToInternalId">): S;
  get(store: S, id: string): object | undefined;
  getMultiple(store: S, ids: string[]): (object | undefined)[];
  getAll(store: S): never;
  store(store: S, id: string, internalId: number, doc: D): boolean;
  remove(store: S, id: string, internalId?: number): boolean;
  count(store: S): number;
  save(store: S): S;
  load(idStore: Pick<IdStore, "idToInternalId">, raw: S): S;
}

/** A database's state as `save` gives it and `load` takes it: what a snapshot holds. */
export interface Saved<I, S> {
  /** Document ids by internal id (index 0 is internal id 1). */
  ids: string[];
  index: I;
  docs: S;
}

/** An Orama database of string fields, with our tokenizer, index and documents store, and no sorter. */
export class OramaDb<I, S, D extends object> {
  private readonly db: AnyOrama;

  private constructor(db: AnyOrama) {
    this.db = db;
  }

  static create<I, S, D extends object>(
    fields: readonly string[],
    components: {
      tokenize: (raw: string, prop: string) => string[];
      index: IndexComponent<I>;
      documentsStore: DocumentsStoreComponent<S, D>;
    },
  ): OramaDb<I, S, D> {
    const tokenizer: Tokenizer = {
      language: "english",
      normalizationCache: new Map(),
      // Orama passes the field being indexed.
      tokenize: (raw: string, _language?: string, prop?: string) => components.tokenize(raw, prop ?? ""),
    };
    const db = create({
      schema: Object.fromEntries(fields.map((f) => [f, "string"])) as Record<string, "string">,
      sort: { enabled: false },
      components: {
        tokenizer,
        index: components.index as unknown as IIndex<AnyOrama["data"]["index"]>,
        documentsStore: components.documentsStore as unknown as IDocumentsStore<AnyOrama["data"]["docs"]>,
      },
    }) as AnyOrama;
    return new OramaDb(db);
  }

  /** Inserts documents (their ids must not be present: remove them first). */
  insert(docs: D[]): void {
    insertMultiple(this.db, docs as never[]);
  }

  remove(ids: string[]): void {
    removeMultiple(this.db, ids);
  }

  get count(): number {
    return count(this.db);
  }

  /** The database's id store, read and filled in place. */
  get ids(): IdStore {
    return this.db.internalDocumentIDStore;
  }

  /** The index component's data, as its `create` or `load` returned it. */
  get index(): I {
    return this.db.data.index as unknown as I;
  }

  /** The documents store's data, as its `create` or `load` returned it. */
  get docs(): S {
    return this.db.data.docs as unknown as S;
  }

  /** The components' `save` results and the ids by internal id. */
  save(): Saved<I, S> {
    const raw = save(this.db);
    return {
      ids: (raw.internalDocumentIDStore as { internalIdToId: string[] }).internalIdToId,
      index: raw.index as unknown as I,
      docs: raw.docs as unknown as S,
    };
  }

  /**
   * Loads a saved state into this (new) database. The ids are set after the load, not through it: Orama's load would
   * also fill the id -> internal id map, a fifth of a restore at 100,000 tools; the caller fills it when it needs it.
   */
  load(saved: Saved<I, unknown>): void {
    const raw = {
      internalDocumentIDStore: { internalIdToId: [] },
      index: saved.index,
      docs: saved.docs,
      sorting: { enabled: false },
      pinning: { rules: [] },
      language: "english",
    } as unknown as RawData;
    load(this.db, raw);
    this.db.internalDocumentIDStore.internalIdToId = saved.ids;
  }
}
