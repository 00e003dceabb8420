/**
 * Lists derived from the catalog rows, computed on demand and cached by catalog revision:
 * the always-loaded set, the deferred list and the token figures. None of them is stored as a
 * list of its own; the rule that partitions the rows is `isAlwaysLoaded` (src/sessions/).
 */
import { definitionText, type TokenCounter } from "../catalog/tokens.ts";
import type { Defer } from "../catalog/tool.ts";
import { isAlwaysLoaded } from "../sessions/always-loaded.ts";
import { deferredLine, type DeferredLine } from "../sessions/deferred-list.ts";
import type { Meta } from "./meta.ts";

export interface AlwaysLoadedSet {
  /** Tool ids, sorted. */
  ids: string[];
  has: ReadonlySet<string>;
  /** Model-facing names of the always-loaded tools, in `ids` order. */
  names: string[];
  /** Servers with at least one deferred tool, sorted. */
  deferredServers: string[];
  deferredCount: number;
}

export interface TokenTotals {
  tools: { total: number; always_loaded: number; deferred: number };
  tokens: { catalog: number; always_loaded: number; deferred_definitions: number; deferred_list: number };
  /** Per server: tokens of its definitions, of those always loaded, and how many of its tools are always loaded. */
  servers: Map<string, { definitions: number; always_loaded: number; always_loaded_tools: number }>;
}

interface FactsSql {
  id: string;
  server: string;
  model_name: string;
  defer: string | null;
  defer_tools: string | null;
  [key: string]: SqlStorageValue;
}

const FACTS = `SELECT t.id AS id, t.server AS server, t.model_name AS model_name, t.defer AS defer,
                      s.defer_tools AS defer_tools
                 FROM tools t LEFT JOIN servers s ON s.name = t.server`;

const IN_CHUNK = 90;

function facts(r: { defer: string | null; defer_tools: string | null }) {
  return { defer: r.defer as Defer | null, serverDefer: r.defer_tools as Defer | null };
}

export class CatalogViews {
  private readonly sql: SqlStorage;
  private readonly meta: Meta;
  private always: { key: string; set: AlwaysLoadedSet } | null = null;
  private totals: { key: string; totals: TokenTotals } | null = null;

  constructor(sql: SqlStorage, meta: Meta) {
    this.sql = sql;
    this.meta = meta;
  }

  private key(tenantDefault: Defer): string {
    return `${this.meta.number("revision")}:${tenantDefault}`;
  }

  alwaysLoaded(tenantDefault: Defer): AlwaysLoadedSet {
    const key = this.key(tenantDefault);
    if (this.always?.key === key) return this.always.set;
    const ids: string[] = [];
    const names: string[] = [];
    const deferredServers = new Set<string>();
    let deferredCount = 0;
    for (const r of this.sql.exec<FactsSql>(`${FACTS} ORDER BY t.id`)) {
      if (isAlwaysLoaded(facts(r), tenantDefault)) {
        ids.push(r.id);
        names.push(r.model_name);
      } else {
        deferredServers.add(r.server);
        deferredCount += 1;
      }
    }
    const set: AlwaysLoadedSet = {
      ids,
      names,
      has: new Set(ids),
      deferredServers: [...deferredServers].sort(),
      deferredCount,
    };
    this.always = { key, set };
    return set;
  }

  /**
   * Catalog tools a name refers to: a tool id (`server::name`), else a model-facing name, else
   * every tool with that bare name (sorted by id).
   */
  idsFor(ref: string): string[] {
    const ids = (query: string) =>
      this.sql
        .exec<{ id: string }>(query, ref)
        .toArray()
        .map((r) => r.id);
    if (ref.includes("::")) return ids(`SELECT id FROM tools WHERE id = ?`);
    const byModelName = ids(`SELECT id FROM tools WHERE model_name = ?`);
    return byModelName.length ? byModelName : ids(`SELECT id FROM tools WHERE name = ? ORDER BY id`);
  }

  /** A page of the deferred list, by tool id after `after`. */
  deferredPage(
    tenantDefault: Defer,
    options: { after?: string | undefined; server?: string | undefined; limit: number },
  ): { lines: DeferredLine[]; next: string | null } {
    const where: string[] = [];
    const params: string[] = [];
    if (options.after !== undefined) {
      where.push("t.id > ?");
      params.push(options.after);
    }
    if (options.server !== undefined) {
      where.push("t.server = ?");
      params.push(options.server);
    }
    const cursor = this.sql.exec<{ id: string; description: string; defer: string | null; defer_tools: string | null }>(
      `SELECT t.id AS id, t.description AS description, t.defer AS defer, s.defer_tools AS defer_tools
         FROM tools t LEFT JOIN servers s ON s.name = t.server
         ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY t.id`,
      ...params,
    );
    const lines: DeferredLine[] = [];
    for (const r of cursor) {
      if (isAlwaysLoaded(facts(r), tenantDefault)) continue;
      if (lines.length === options.limit) return { lines, next: lines.at(-1)!.tool_id };
      lines.push(deferredLine(r.id, r.description));
    }
    return { lines, next: null };
  }

  /**
   * Token figures of the catalog. Per-tool counts are kept in `tool_tokens` keyed by content hash,
   * so only new or changed tools are ever tokenized; the totals are cached by revision.
   */
  tokenTotals(count: TokenCounter, tenantDefault: Defer): TokenTotals {
    const key = this.key(tenantDefault);
    if (this.totals?.key === key) return this.totals.totals;
    this.countMissing(count);
    const totals: TokenTotals = {
      tools: { total: 0, always_loaded: 0, deferred: 0 },
      tokens: { catalog: 0, always_loaded: 0, deferred_definitions: 0, deferred_list: 0 },
      servers: new Map(),
    };
    for (const r of this.sql.exec<{
      server: string;
      defer: string | null;
      defer_tools: string | null;
      definition: number;
      line: number;
    }>(
      `SELECT t.server AS server, t.defer AS defer, s.defer_tools AS defer_tools, k.definition AS definition,
              k.line AS line
         FROM tools t LEFT JOIN servers s ON s.name = t.server JOIN tool_tokens k ON k.id = t.id`,
    )) {
      totals.tools.total += 1;
      totals.tokens.catalog += r.definition;
      const server = totals.servers.get(r.server) ?? { definitions: 0, always_loaded: 0, always_loaded_tools: 0 };
      totals.servers.set(r.server, server);
      server.definitions += r.definition;
      if (isAlwaysLoaded(facts(r), tenantDefault)) {
        server.always_loaded += r.definition;
        server.always_loaded_tools += 1;
        totals.tools.always_loaded += 1;
        totals.tokens.always_loaded += r.definition;
      } else {
        totals.tools.deferred += 1;
        totals.tokens.deferred_definitions += r.definition;
        totals.tokens.deferred_list += r.line;
      }
    }
    this.totals = { key, totals };
    return totals;
  }

  /**
   * Counts tokens of tools that have no count for their current content. The stale ids are read
   * first and the rows fetched a chunk at a time, so a large catalog's schemas are never all in
   * memory at once.
   */
  private countMissing(count: TokenCounter): void {
    const stale = this.sql
      .exec<{ id: string }>(
        `SELECT t.id AS id FROM tools t LEFT JOIN tool_tokens k ON k.id = t.id WHERE k.hash IS ` +
          `NULL OR k.hash <> t.hash`,
      )
      .toArray()
      .map((r) => r.id);
    for (let i = 0; i < stale.length; i += IN_CHUNK) {
      const part = stale.slice(i, i + IN_CHUNK);
      const rows = this.sql
        .exec<{
          id: string;
          hash: string;
          model_name: string;
          description: string;
          input_schema: string;
        }>(
          `SELECT id, hash, model_name, description, input_schema FROM tools WHERE ` +
            `id IN (${part.map(() => "?").join(", ")})`,
          ...part,
        )
        .toArray();
      for (const r of rows) {
        const definition = count(
          definitionText({
            modelName: r.model_name,
            description: r.description,
            inputSchema: JSON.parse(r.input_schema),
          }),
        );
        // One line of the deferred list, plus its newline.
        const line = count(deferredLine(r.id, r.description).line) + 1;
        this.sql.exec(
          `INSERT OR REPLACE INTO tool_tokens (id, hash, definition, line) VALUES (?, ?, ?, ?)`,
          r.id,
          r.hash,
          definition,
          line,
        );
      }
    }
  }

  /** Forgets cached counts of tools that left the catalog (same transaction as the catalog write). */
  forgetTools(ids: readonly string[]): void {
    for (let i = 0; i < ids.length; i += IN_CHUNK) {
      const part = ids.slice(i, i + IN_CHUNK);
      this.sql.exec(`DELETE FROM tool_tokens WHERE id IN (${part.map(() => "?").join(", ")})`, ...part);
    }
  }
}
