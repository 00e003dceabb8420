/**
 * The tenant's audit trail: who changed keys, settings or the catalog, what, when, and at which
 * catalog revision. Entries are written by the tenant object inside the same storage transaction
 * as the change they record, so there is never a change without its entry or an entry without
 * its change. They hold ids and counts, never secrets or tool bodies.
 *
 * Growth is bounded on every write: entries beyond the newest `audit_max_entries`, and entries
 * older than `audit_max_age_days`, are dropped in the same transaction. Key events (a key created
 * or revoked) are kept apart, by age (`audit_key_max_age_days`, a year) and their own count
 * (`audit_max_key_entries`): however many other changes a key makes, who made it and when stays.
 */
import type { Limits } from "../config/limits.ts";
import type { AuditAction, AuditEntry } from "../contract/schemas.ts";
import type { Caller } from "../tenancy/keys.ts";
import type { Meta } from "./meta.ts";

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
const KEY_EVENTS: ReadonlySet<AuditAction> = new Set(["key.create", "key.revoke"]);

export class AuditLog {
  private readonly sql: SqlStorage;
  private readonly meta: Meta;
  private readonly limits: () => Limits;

  constructor(sql: SqlStorage, meta: Meta, limits: () => Limits) {
    this.sql = sql;
    this.meta = meta;
    this.limits = limits;
  }

  /**
   * Appends an entry for a change `caller` made, at the current revision, and drops what
   * retention no longer keeps. Call inside the change's transaction, after the revision moved.
   */
  record(caller: Caller, action: AuditAction, details: Record<string, unknown>): void {
    const actor: AuditEntry["actor"] = caller.kind === "operator" ? "operator" : `key:${caller.keyId}`;
    const limits = this.limits();
    const now = Date.now();
    const keyEvent = KEY_EVENTS.has(action) ? 1 : 0;
    this.sql.exec(
      `INSERT INTO audit_log (at, actor, action, revision, details, key_event) VALUES (?, ?, ?, ?, ?, ?)`,
      now,
      actor,
      action,
      this.meta.number("revision"),
      JSON.stringify(details),
      keyEvent,
    );
    // The newest entries of this kind are kept; the (keep + 1)-th newest and older are dropped.
    this.sql.exec(
      `DELETE FROM audit_log WHERE key_event = ? AND seq <= ` +
        `(SELECT seq FROM audit_log WHERE key_event = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)`,
      keyEvent,
      keyEvent,
      keyEvent ? limits.audit_max_key_entries : limits.audit_max_entries,
    );
    this.sql.exec(`DELETE FROM audit_log WHERE key_event = 0 AND at < ?`, now - limits.audit_max_age_days * DAY_MS);
    this.sql.exec(`DELETE FROM audit_log WHERE key_event = 1 AND at < ?`, now - limits.audit_key_max_age_days * DAY_MS);
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
