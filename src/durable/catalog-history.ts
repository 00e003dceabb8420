/**
 * The catalog's history: one row per revision (who, when, what, counts) and, for every revision, the before-images
 * of the tools and servers it changed (`present` 0: the tool or server did not exist before it). Every catalog write
 * saves them in its own transaction, before it changes anything, so the catalog at any kept revision R is the
 * current catalog with, for each tool touched after R, the before-image of the first revision after R that touched
 * it (nothing changed that tool between R and then). Rebuilding R costs the changes made since R, not the catalog.
 *
 * Retention (limits `history_max_revisions` and `history_max_age_days`): the newest revisions by count, and every
 * revision that was the current catalog at some moment within the age window; the alarm prunes the rest in bounded
 * steps. A backup in progress keeps the revision it reads.
 *
 * Statements stay within Durable Object SQLite's bounds: ids travel as one JSON array parameter (`json_each`), at
 * most ID_CHUNK at a time, and rows are copied inside SQLite (`INSERT ... SELECT`), never through statement text.
 */
import type { Limits } from "../config/limits.ts";
import type { Defer } from "../catalog/tool.ts";
import type { CatalogDiff, RevisionAction } from "../contract/history-schemas.ts";
import { TOOL_FIELDS } from "../contract/history-schemas.ts";
import type { Caller } from "../tenancy/keys.ts";
import { COLUMNS, type ToolSql } from "./catalog-repo.ts";
import type { Meta } from "./meta.ts";

/** Ids per statement: one JSON parameter, well under the 2 MB value and 100 KB statement bounds. */
export const ID_CHUNK = 500;
const DAY_MS = 24 * 3600 * 1000;
/** History rows one alarm deletes at most; the alarm comes back for the rest. */
const PRUNE_ROWS_PER_RING = 50_000;
const PRUNE_BATCH = 5_000;

export interface RevisionCounts {
  added: number;
  updated: number;
  removed: number;
}

export interface RevisionRecord extends RevisionCounts {
  revision: number;
  at: number;
  actor: string;
  action: RevisionAction;
  details: Record<string, unknown>;
  bytes: number;
}

/** A tool's stored columns, with the revision that wrote them. */
export type StoredTool = ToolSql & { revision: number };
/** A tool's stored columns at some revision, or null when it did not exist then. */
export type ToolState = StoredTool | null;

export interface HistoryStats {
  revisions: number;
  oldest_revision: number;
  tool_versions: number;
  bytes: number;
}

const HISTORY_COLUMNS = COLUMNS.split(", ")
  .filter((c) => c !== "id")
  .join(", ");
/** The byte size of a before-image: its text columns, plus a fixed allowance for the row and its index entries. */
const ROW_BYTES =
  "96 + length(CAST(id AS BLOB)) + " +
  COLUMNS.split(", ")
    .filter((c) => c !== "id")
    .map((c) => `COALESCE(length(CAST(${c} AS BLOB)), 0)`)
    .join(" + ");

export function chunked<T>(items: readonly T[], size = ID_CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

interface HistorySql extends ToolSql {
  present: number;
  row_revision: number;
}

interface RevisionSql {
  revision: number;
  at: number;
  actor: string;
  action: string;
  added: number;
  updated: number;
  removed: number;
  details: string;
  bytes: number;
  [key: string]: SqlStorageValue;
}

export class CatalogHistory {
  private readonly sql: SqlStorage;
  private readonly meta: Meta;
  private readonly limits: () => Limits;

  constructor(sql: SqlStorage, meta: Meta, limits: () => Limits) {
    this.sql = sql;
    this.meta = meta;
    this.limits = limits;
  }

  // ---- writing ------------------------------------------------------------------------------------

  /**
   * Saves the tools `ids` as they are now (or that they do not exist) as the before-images of `revision`, the
   * revision about to change them. The first save of an id for a revision wins; call inside the write's transaction,
   * before it changes the rows.
   */
  saveTools(revision: number, ids: readonly string[]): void {
    for (const part of chunked(ids)) {
      const json = JSON.stringify(part);
      this.sql.exec(
        `INSERT OR IGNORE INTO tool_history (revision, id, present, ${HISTORY_COLUMNS}, row_revision)
           SELECT ?, id, 1, ${HISTORY_COLUMNS}, revision FROM tools WHERE id IN (SELECT value FROM json_each(?))`,
        revision,
        json,
      );
      this.sql.exec(
        `INSERT OR IGNORE INTO tool_history (revision, id, present)
           SELECT ?, j.value, 0 FROM json_each(?) j WHERE j.value NOT IN (SELECT id FROM tools)`,
        revision,
        json,
      );
    }
  }

  /** The same for servers (name and defer_tools). */
  saveServers(revision: number, names: readonly string[]): void {
    for (const part of chunked([...new Set(names)])) {
      const json = JSON.stringify(part);
      this.sql.exec(
        `INSERT OR IGNORE INTO server_history (revision, name, present, defer_tools)
           SELECT ?, j.value, s.name IS NOT NULL, s.defer_tools FROM json_each(?) j
             LEFT JOIN servers s ON s.name = j.value`,
        revision,
        json,
      );
    }
  }

  /** Records the revision a change made (after its before-images), with what the history of it costs. */
  record(
    revision: number,
    caller: Caller | "system",
    action: RevisionAction,
    counts: RevisionCounts,
    details: Record<string, unknown> = {},
  ): void {
    const actor = caller === "system" ? "system" : caller.kind === "operator" ? "operator" : `key:${caller.keyId}`;
    const bytes =
      this.sql
        .exec<{ n: number | null }>(`SELECT SUM(${ROW_BYTES}) AS n FROM tool_history WHERE revision = ?`, revision)
        .one().n ?? 0;
    const servers = this.sql
      .exec<{ n: number }>(`SELECT COUNT(*) AS n FROM server_history WHERE revision = ?`, revision)
      .one().n;
    this.sql.exec(
      `INSERT INTO catalog_revisions (revision, at, actor, action, added, updated, removed, details, bytes)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      revision,
      Date.now(),
      actor,
      action,
      counts.added,
      counts.updated,
      counts.removed,
      JSON.stringify(details),
      bytes + servers * 64,
    );
  }

  // ---- reading ------------------------------------------------------------------------------------

  /** The oldest revision that can still be rebuilt (the current one when history holds nothing older). */
  oldest(): number {
    return (
      this.sql.exec<{ r: number | null }>(`SELECT MIN(revision) AS r FROM catalog_revisions`).one().r ??
      this.meta.number("revision")
    );
  }

  get(revision: number): RevisionRecord | null {
    const r = this.sql.exec<RevisionSql>(`SELECT * FROM catalog_revisions WHERE revision = ?`, revision).toArray()[0];
    return r ? toRecord(r) : null;
  }

  /** Newest first; `before` (exclusive) continues a previous page. */
  page(options: { before?: number | undefined; limit: number }): { revisions: RevisionRecord[]; more: boolean } {
    const rows = this.sql
      .exec<RevisionSql>(
        `SELECT * FROM catalog_revisions WHERE revision < ? ORDER BY revision DESC LIMIT ?`,
        options.before ?? Number.MAX_SAFE_INTEGER,
        options.limit + 1,
      )
      .toArray();
    return { revisions: rows.slice(0, options.limit).map(toRecord), more: rows.length > options.limit };
  }

  stats(): HistoryStats {
    const revisions = this.sql
      .exec<{ n: number; bytes: number | null }>(`SELECT COUNT(*) AS n, SUM(bytes) AS bytes FROM catalog_revisions`)
      .one();
    const versions = this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM tool_history`).one().n;
    return {
      revisions: revisions.n,
      oldest_revision: this.oldest(),
      tool_versions: versions,
      bytes: revisions.bytes ?? 0,
    };
  }

  /**
   * The tools `ids` as they were at revision `at` (a kept revision, at most the current one): the before-image of
   * the first revision after `at` that touched each, else the row as it is now. Null: it did not exist then.
   */
  states(ids: readonly string[], at: number): Map<string, ToolState> {
    const out = new Map<string, ToolState>();
    for (const part of chunked(ids)) {
      const json = JSON.stringify(part);
      for (const r of this.sql.exec<StoredTool>(
        `SELECT ${COLUMNS}, revision FROM tools WHERE id IN (SELECT value FROM json_each(?))`,
        json,
      ))
        out.set(r.id, { ...r });
      // One aggregate (MIN) per group: SQLite takes the bare columns from the row that holds the minimum.
      for (const r of this.sql.exec<HistorySql & { first: number }>(
        `SELECT id, MIN(revision) AS first, present, ${HISTORY_COLUMNS}, row_revision FROM tool_history
           WHERE revision > ? AND id IN (SELECT value FROM json_each(?)) GROUP BY id`,
        at,
        json,
      )) {
        out.set(r.id, r.present ? historyRow(r) : null);
      }
    }
    return new Map(ids.map((id) => [id, out.get(id) ?? null]));
  }

  /** Every server as it was at revision `at`: name to defer_tools, sorted by name. */
  serversAt(at: number): Map<string, Defer> {
    const servers = new Map<string, Defer>();
    for (const r of this.sql.exec<{ name: string; defer_tools: string }>(`SELECT name, defer_tools FROM servers`))
      servers.set(r.name, r.defer_tools as Defer);
    for (const r of this.sql.exec<{ name: string; first: number; present: number; defer_tools: string | null }>(
      `SELECT name, MIN(revision) AS first, present, defer_tools FROM server_history WHERE revision > ? GROUP BY name`,
      at,
    )) {
      if (r.present) servers.set(r.name, r.defer_tools as Defer);
      else servers.delete(r.name);
    }
    return new Map([...servers].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  /** Ids of tools some revision after `since` touched, by id, after `after` (exclusive), at most `limit`. */
  touched(since: number, after: string | null, limit: number): string[] {
    return this.sql
      .exec<{ id: string }>(
        `SELECT DISTINCT id FROM tool_history WHERE revision > ? AND id > ? ORDER BY id LIMIT ?`,
        since,
        after ?? "",
        limit,
      )
      .toArray()
      .map((r) => r.id);
  }

  /** Tool ids that existed at `at` or were touched since, by id, after `after`: the candidates of a read at `at`. */
  idsAt(at: number, after: string | null, limit: number): string[] {
    return this.sql
      .exec<{ id: string }>(
        `SELECT id FROM (SELECT id FROM tools WHERE id > ?1
                         UNION SELECT id FROM tool_history WHERE revision > ?2 AND id > ?1)
           ORDER BY id LIMIT ?3`,
        after ?? "",
        at,
        limit,
      )
      .toArray()
      .map((r) => r.id);
  }

  /**
   * A page of the differences between revisions `from` and `to` (both kept): the tools touched after the older of
   * the two, by id after `after`, at most `limit` of them compared; servers on the first page only.
   */
  diff(from: number, to: number, after: string | null, limit: number): CatalogDiff {
    const ids = this.touched(Math.min(from, to), after, limit + 1);
    const page = ids.slice(0, limit);
    const a = this.states(page, from);
    const b = this.states(page, to);
    const out: CatalogDiff = { from, to, added: [], removed: [], changed: [], servers: null, next_cursor: null };
    for (const id of page) {
      const x = a.get(id) ?? null;
      const y = b.get(id) ?? null;
      if (!x && y) out.added.push(id);
      else if (x && !y) out.removed.push(id);
      else if (x && y) {
        const fields = TOOL_FIELDS.filter((f) => x[FIELD_COLUMNS[f]] !== y[FIELD_COLUMNS[f]]);
        if (fields.length > 0) out.changed.push({ tool_id: id, fields });
      }
    }
    if (after === null) {
      const sa = this.serversAt(from);
      const sb = this.serversAt(to);
      out.servers = {
        added: [...sb.keys()].filter((n) => !sa.has(n)),
        removed: [...sa.keys()].filter((n) => !sb.has(n)),
        changed: [...sb]
          .filter(([n, d]) => sa.has(n) && sa.get(n) !== d)
          .map(([server, d]) => ({ server, from: sa.get(server)!, to: d })),
      };
    }
    if (ids.length > limit) out.next_cursor = page.at(-1)!;
    return out;
  }

  // ---- retention ----------------------------------------------------------------------------------

  /**
   * Drops what retention no longer keeps, at most PRUNE_ROWS_PER_RING history rows per call. Returns when it should
   * run again: now-ish when rows are left, else when the next revision leaves the age window, or null.
   */
  prune(now: number): { removed: number; again: number | null } {
    const limits = this.limits();
    const byCount =
      this.sql
        .exec<{ r: number }>(
          `SELECT revision AS r FROM catalog_revisions ORDER BY revision DESC LIMIT 1 OFFSET ?`,
          limits.history_max_revisions - 1,
        )
        .toArray()[0]?.r ?? null;
    const cutoff = now - limits.history_max_age_days * DAY_MS;
    // The revision that was current at the cutoff: every later state was live within the window.
    const byAge =
      this.sql
        .exec<{ r: number | null }>(`SELECT MAX(revision) AS r FROM catalog_revisions WHERE at <= ?`, cutoff)
        .one().r ?? null;
    let keep = Math.max(byCount ?? -1, byAge ?? -1);
    // A backup being read keeps the revision it reads.
    const reading = this.sql
      .exec<{ r: number | null }>(`SELECT MIN(revision) AS r FROM backups WHERE expires_at > ?`, now)
      .one().r;
    if (reading !== null) keep = Math.min(keep, reading);
    let removed = 0;
    if (keep >= 0) {
      this.sql.exec(`DELETE FROM catalog_revisions WHERE revision < ?`, keep);
      for (const table of ["tool_history", "server_history"]) {
        while (removed < PRUNE_ROWS_PER_RING) {
          const n = this.sql.exec(
            `DELETE FROM ${table} WHERE seq IN (SELECT seq FROM ${table} WHERE revision <= ? LIMIT ?)`,
            keep,
            PRUNE_BATCH,
          ).rowsWritten;
          removed += n;
          if (n < PRUNE_BATCH) break;
        }
      }
    }
    if (removed >= PRUNE_ROWS_PER_RING) return { removed, again: now + 1_000 };
    // The next revision to leave: the oldest kept one goes once its successor is older than the window.
    const successor = this.sql
      .exec<{ at: number }>(
        `SELECT at FROM catalog_revisions WHERE revision > ? ORDER BY revision LIMIT 1`,
        Math.max(keep, this.oldest()),
      )
      .toArray()[0];
    return { removed, again: successor ? successor.at + limits.history_max_age_days * DAY_MS + 1 : null };
  }
}

/** The stored column of each field a diff names. */
const FIELD_COLUMNS: Record<(typeof TOOL_FIELDS)[number], keyof ToolSql> = {
  title: "title",
  description: "description",
  inputSchema: "input_schema",
  outputSchema: "output_schema",
  annotations: "annotations",
  keywords: "keywords",
  defer: "defer",
  vendor: "vendor",
  model_name: "model_name",
};

function toRecord(r: RevisionSql): RevisionRecord {
  return {
    revision: r.revision,
    at: r.at,
    actor: r.actor,
    action: r.action as RevisionAction,
    added: r.added,
    updated: r.updated,
    removed: r.removed,
    details: JSON.parse(r.details) as Record<string, unknown>,
    bytes: r.bytes,
  };
}

function historyRow(r: HistorySql): StoredTool {
  return {
    id: r.id,
    server: r.server,
    name: r.name,
    model_name: r.model_name,
    title: r.title,
    description: r.description,
    input_schema: r.input_schema,
    output_schema: r.output_schema,
    annotations: r.annotations,
    keywords: r.keywords,
    defer: r.defer,
    hash: r.hash,
    vendor: r.vendor,
    revision: r.row_revision,
  };
}
