/**
 * SQL for the catalog: tool rows and servers. SQLite rows are the source of truth; the search
 * index is derived from them and can always be rebuilt from them.
 */
import type { JsonObject } from "../catalog/json.ts";
import type { Defer, ToolRow, VendorFields } from "../catalog/tool.ts";

/** SQLite in Durable Objects binds at most 100 parameters per statement. */
const IN_CHUNK = 90;

/** A tool row as SQLite holds it: JSON fields as their stored text. */
export interface ToolSql {
  id: string;
  server: string;
  name: string;
  model_name: string;
  title: string | null;
  description: string;
  input_schema: string;
  output_schema: string | null;
  annotations: string | null;
  keywords: string;
  defer: string | null;
  hash: string;
  vendor: string | null;
  [key: string]: SqlStorageValue;
}

const COLUMN_NAMES = [
  "id",
  "server",
  "name",
  "model_name",
  "title",
  "description",
  "input_schema",
  "output_schema",
  "annotations",
  "keywords",
  "defer",
  "hash",
  "vendor",
] as const;
export const COLUMNS = COLUMN_NAMES.join(", ");
/** A stored row's values in COLUMNS order, then its revision: what `INSERT ... (${COLUMNS}, revision)` binds. */
export function storedValues(
  t: { [C in (typeof COLUMN_NAMES)[number]]: SqlStorageValue } & { revision: number },
): SqlStorageValue[] {
  return [...COLUMN_NAMES.map((c) => t[c]), t.revision];
}

/** `?, ?, ...` for COLUMNS and the revision, plus `extra` more. */
export function storedPlaceholders(extra = 0): string {
  return Array.from({ length: COLUMN_NAMES.length + 1 + extra }, () => "?").join(", ");
}
const UPDATE_ALL = [...COLUMN_NAMES.slice(1), "revision"].map((c) => `${c} = excluded.${c}`).join(", ");

function fromSql(r: ToolSql): ToolRow {
  return {
    id: r.id,
    server: r.server,
    name: r.name,
    title: r.title,
    description: r.description,
    inputSchema: JSON.parse(r.input_schema) as JsonObject,
    outputSchema: r.output_schema === null ? null : (JSON.parse(r.output_schema) as JsonObject),
    annotations: r.annotations === null ? null : (JSON.parse(r.annotations) as JsonObject),
    keywords: JSON.parse(r.keywords) as string[],
    defer: r.defer as Defer | null,
    hash: r.hash,
    modelName: r.model_name,
    vendor: r.vendor === null ? null : (JSON.parse(r.vendor) as VendorFields),
  };
}

function chunks<T>(items: readonly T[], size = IN_CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function placeholders(n: number): string {
  return Array.from({ length: n }, () => "?").join(", ");
}

export class CatalogRepo {
  private readonly sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.sql = sql;
  }

  getTool(id: string): ToolRow | null {
    const r = this.sql.exec<ToolSql>(`SELECT ${COLUMNS} FROM tools WHERE id = ?`, id).toArray()[0];
    return r ? fromSql(r) : null;
  }

  /** Rows for the given ids, in the order given (missing ids skipped). */
  getTools(ids: readonly string[]): ToolRow[] {
    const found = new Map<string, ToolRow>();
    for (const part of chunks(ids)) {
      for (const r of this.sql.exec<ToolSql>(
        `SELECT ${COLUMNS} FROM tools WHERE id IN (${placeholders(part.length)})`,
        ...part,
      )) {
        found.set(r.id, fromSql(r));
      }
    }
    return ids.flatMap((id) => found.get(id) ?? []);
  }

  getByModelName(name: string): ToolRow | null {
    const r = this.sql.exec<ToolSql>(`SELECT ${COLUMNS} FROM tools WHERE model_name = ?`, name).toArray()[0];
    return r ? fromSql(r) : null;
  }

  /** Content hashes and model-facing names of the given ids that exist. */
  stored(ids: readonly string[]): Map<string, { hash: string; modelName: string }> {
    const out = new Map<string, { hash: string; modelName: string }>();
    for (const part of chunks(ids)) {
      for (const r of this.sql.exec<{ id: string; hash: string; model_name: string }>(
        `SELECT id, hash, model_name FROM tools WHERE id IN (${placeholders(part.length)})`,
        ...part,
      )) {
        out.set(r.id, { hash: r.hash, modelName: r.model_name });
      }
    }
    return out;
  }

  /** Which tool currently holds each of the given model-facing names. */
  modelNameOwners(names: readonly string[]): Map<string, string> {
    const out = new Map<string, string>();
    for (const part of chunks(names)) {
      for (const r of this.sql.exec<{ id: string; model_name: string }>(
        `SELECT id, model_name FROM tools WHERE model_name IN (${placeholders(part.length)})`,
        ...part,
      )) {
        out.set(r.model_name, r.id);
      }
    }
    return out;
  }

  /** The tool holding a model-facing name, if any. */
  modelNameOwner(name: string): string | null {
    return this.sql.exec<{ id: string }>(`SELECT id FROM tools WHERE model_name = ?`, name).toArray()[0]?.id ?? null;
  }

  writeTools(rows: readonly ToolRow[], revision: number): void {
    for (const t of rows) {
      this.sql.exec(
        // Not INSERT OR REPLACE: that would silently delete another tool holding the same model_name.
        `INSERT INTO tools (${COLUMNS}, revision) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (id) DO UPDATE SET ${UPDATE_ALL}`,
        t.id,
        t.server,
        t.name,
        t.modelName,
        t.title,
        t.description,
        JSON.stringify(t.inputSchema),
        t.outputSchema === null ? null : JSON.stringify(t.outputSchema),
        t.annotations === null ? null : JSON.stringify(t.annotations),
        JSON.stringify(t.keywords),
        t.defer,
        t.hash,
        t.vendor === null ? null : JSON.stringify(t.vendor),
        revision,
      );
    }
  }

  /** Writes rows exactly as stored elsewhere (a rollback's before-images, a restore): columns as text. */
  insertStored(rows: readonly (ToolSql & { revision: number })[]): void {
    for (const t of rows) {
      this.sql.exec(`INSERT INTO tools (${COLUMNS}, revision) VALUES (${storedPlaceholders()})`, ...storedValues(t));
    }
  }

  deleteTools(ids: readonly string[]): void {
    for (const part of chunks(ids))
      this.sql.exec(`DELETE FROM tools WHERE id IN (${placeholders(part.length)})`, ...part);
  }

  serverToolIds(server: string): string[] {
    return this.sql
      .exec<{ id: string }>(`SELECT id FROM tools WHERE server = ?`, server)
      .toArray()
      .map((r) => r.id);
  }

  /** The names among `names` that are not servers of this catalog yet (each once). */
  missingServers(names: Iterable<string>): string[] {
    const wanted = [...new Set(names)];
    const known = new Set<string>();
    for (const part of chunks(wanted)) {
      for (const r of this.sql.exec<{ name: string }>(
        `SELECT name FROM servers WHERE name IN (${placeholders(part.length)})`,
        ...part,
      ))
        known.add(r.name);
    }
    return wanted.filter((name) => !known.has(name));
  }

  countServers(): number {
    return this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM servers`).one().n;
  }

  ensureServers(names: Iterable<string>): void {
    for (const name of new Set(names)) this.sql.exec(`INSERT OR IGNORE INTO servers (name) VALUES (?)`, name);
  }

  setServerDefer(server: string, deferTools: Defer): void {
    this.sql.exec(
      `INSERT INTO servers (name, defer_tools) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET ` +
        `defer_tools = excluded.defer_tools`,
      server,
      deferTools,
    );
  }

  /** The server's stored deferTools; null when the server is not in the catalog. */
  serverDefer(server: string): Defer | null {
    return (
      (this.sql.exec<{ defer_tools: string }>(`SELECT defer_tools FROM servers WHERE name = ?`, server).toArray()[0]
        ?.defer_tools as Defer | undefined) ?? null
    );
  }

  serverExists(server: string): boolean {
    return this.sql.exec(`SELECT 1 FROM servers WHERE name = ?`, server).toArray().length > 0;
  }

  /** Removes a server row alone (its tools are removed by the caller). */
  dropServer(server: string): void {
    this.sql.exec(`DELETE FROM servers WHERE name = ?`, server);
  }

  deleteServer(server: string): void {
    this.sql.exec(`DELETE FROM tools WHERE server = ?`, server);
    this.sql.exec(`DELETE FROM servers WHERE name = ?`, server);
  }

  /** A page of tools ordered by id, after `after` (exclusive). */
  listTools(options: { after?: string | undefined; server?: string | undefined; limit: number }): ToolRow[] {
    const where: string[] = [];
    const params: string[] = [];
    if (options.after !== undefined) {
      where.push("id > ?");
      params.push(options.after);
    }
    if (options.server !== undefined) {
      where.push("server = ?");
      params.push(options.server);
    }
    const clause = where.length ? `WHERE ${where.join(" AND ")}` : "";
    return this.sql
      .exec<ToolSql>(`SELECT ${COLUMNS} FROM tools ${clause} ORDER BY id LIMIT ?`, ...params, options.limit)
      .toArray()
      .map(fromSql);
  }

  servers(): { name: string; defer_tools: Defer; tools: number }[] {
    return this.sql
      .exec<{ name: string; defer_tools: string; tools: number }>(
        `SELECT s.name AS name, s.defer_tools AS defer_tools, COUNT(t.id) AS tools
           FROM servers s LEFT JOIN tools t ON t.server = s.name GROUP BY s.name ORDER BY s.name`,
      )
      .toArray()
      .map((r) => ({ name: r.name, defer_tools: r.defer_tools as Defer, tools: r.tools }));
  }

  /** Per server: its tool count and its first `shown` tool names (by id), for namespace descriptions. */
  serverSummaries(servers: Iterable<string>, shown: number): { name: string; tools: number; names: string[] }[] {
    return [...new Set(servers)].map((name) => ({
      name,
      tools: this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM tools WHERE server = ?`, name).one().n,
      names: this.sql
        .exec<{ name: string }>(`SELECT name FROM tools WHERE server = ? ORDER BY id LIMIT ?`, name, shown)
        .toArray()
        .map((r) => r.name),
    }));
  }

  /** Tools in the catalog; of one server and with ids up to `upTo` when given. */
  countTools(options: { server?: string | undefined; upTo?: string | undefined } = {}): number {
    const where: string[] = [];
    const params: string[] = [];
    if (options.server !== undefined) {
      where.push("server = ?");
      params.push(options.server);
    }
    if (options.upTo !== undefined) {
      where.push("id <= ?");
      params.push(options.upTo);
    }
    const clause = where.length ? ` WHERE ${where.join(" AND ")}` : "";
    return this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM tools${clause}`, ...params).one().n;
  }

  /** Every row, for rebuilding the index. */
  *allTools(): Generator<ToolRow> {
    for (const r of this.sql.exec<ToolSql>(`SELECT ${COLUMNS} FROM tools`)) yield fromSql(r);
  }
}
