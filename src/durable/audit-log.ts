/**
 * The tenant's audit trail: who changed keys, settings or the catalog, what, when, and at which
 * catalog revision. Entries are written by the tenant object inside the same storage transaction
 * as the change they record, so there is never a change without its entry or an entry without
 * its change. They hold ids and counts, never secrets or tool bodies.
 *
 * Growth is bounded on every write: entries beyond the newest `audit_max_entries`, and entries
 * older than `audit_max_age_days`, are dropped in the same transaction.
 */
import type { Limits } from "../config/limits.ts";

export const AUDIT_ACTIONS = [
  "tenant.create",
  "key.create",
  "key.revoke",
  "settings.update",
  "synonyms.replace",
  "tools.upsert",
  "server.replace",
  "server.delete",
  "tool.delete",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** `operator`, or `key:<key id>` for a tenant key. */
export type AuditActor = string;

export interface AuditEntry {
  seq: number;
  at: string;
  actor: AuditActor;
  action: AuditAction;
  /** The catalog revision once the change was made. */
  revision: number;
  details: Record<string, unknown>;
}

interface AuditSql {
  seq: number;
  at: number;
  actor: string;
  action: string;
  revision: number;
  details: string;
  [key: string]: SqlStorageValue;
}

const DAY_MS = 24 * 3600 * 1000;

export class AuditLog {
  private readonly sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.sql = sql;
  }

  /** Appends an entry and drops what retention no longer keeps. Call inside the change's transaction. */
  record(entry: { actor: AuditActor; action: AuditAction; revision: number; details: Record<string, unknown> }, limits: Limits, now = Date.now()): void {
    const { seq } = this.sql
      .exec<{ seq: number }>(
        `INSERT INTO audit_log (at, actor, action, revision, details) VALUES (?, ?, ?, ?, ?) RETURNING seq`,
        now,
        entry.actor,
        entry.action,
        entry.revision,
        JSON.stringify(entry.details),
      )
      .one();
    this.sql.exec(`DELETE FROM audit_log WHERE seq <= ?`, seq - limits.audit_max_entries);
    this.sql.exec(`DELETE FROM audit_log WHERE at < ?`, now - limits.audit_max_age_days * DAY_MS);
  }

  /** Newest first; `before` (exclusive) continues a previous page. */
  page(options: { before?: number | undefined; limit: number }): { entries: AuditEntry[]; more: boolean } {
    const rows = this.sql
      .exec<AuditSql>(
        `SELECT seq, at, actor, action, revision, details FROM audit_log WHERE seq < ? ORDER BY seq DESC LIMIT ?`,
        options.before ?? Number.MAX_SAFE_INTEGER,
        options.limit + 1,
      )
      .toArray();
    return {
      entries: rows.slice(0, options.limit).map((r) => ({
        seq: r.seq,
        at: new Date(r.at).toISOString(),
        actor: r.actor,
        action: r.action as AuditAction,
        revision: r.revision,
        details: JSON.parse(r.details) as Record<string, unknown>,
      })),
      more: rows.length > options.limit,
    };
  }
}
