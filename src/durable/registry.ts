/**
 * The tenant registry: one Durable Object (named "registry") that lists the deployment's tenants for the operator
 * (id, creation, tool count, last catalog write) and keeps the operator's own audit trail (tenants created, restored,
 * deleted), outside every tenant.
 *
 * A tenant's object is the truth about whether it exists; the registry is an index of those objects, kept in step
 * across the two objects like this (a transaction cannot span two objects):
 *
 * - **Intent first.** Creating, restoring or deleting a tenant first records the intent here (`creating`,
 *   `deleting`), then does the work in the tenant's object, then settles the row here (`active`, or gone). Only
 *   `active` rows are listed, so the list never shows a tenant whose creation is unfinished or whose deletion began.
 * - **Repair.** An intent left unsettled (the Worker died between the steps) is settled by this object's alarm within
 *   REPAIR_AFTER_MS: it asks the tenant's object whether the tenant exists and finishes a deletion (erasing is safe to
 *   repeat). Every step is idempotent, so a client's retry settles it too.
 * - **Reports.** A tenant's object reports its tool count and last write (its alarm, after writes settle), and so
 *   registers itself if the registry does not know it (a tenant created before the registry existed); a report for
 *   a tenant being deleted is ignored.
 */
import { DurableObject } from "cloudflare:workers";
import { loadConfig } from "../config/env.ts";

/** An unsettled intent older than this is settled by the alarm. */
const REPAIR_AFTER_MS = 30_000;
const DAY_MS = 24 * 3600 * 1000;

type RowState = "creating" | "active" | "deleting";

export interface TenantListing {
  id: string;
  created_at: number | null;
  tools: number;
  revision: number;
  last_write_at: number | null;
}

/** What a tenant's object says about itself. */
export interface TenantReport {
  exists: boolean;
  created_at: number | null;
  tools: number;
  revision: number;
  last_write_at: number | null;
}

export type OperatorAction = "tenant.create" | "tenant.restore" | "tenant.delete";

export interface OperatorAuditEntry {
  seq: number;
  at: number;
  action: OperatorAction;
  tenant: string;
  details: Record<string, unknown>;
}

/** What the registry needs of a tenant's object (the methods of TenantObject it calls). */
interface TenantSide {
  registryReport(): Promise<TenantReport>;
  eraseTenant(): Promise<{ existed: boolean; tools: number }>;
}

const MIGRATIONS: string[][] = [
  [
    `CREATE TABLE tenants (
       id TEXT PRIMARY KEY, state TEXT NOT NULL, since INTEGER NOT NULL, created_at INTEGER,
       tools INTEGER NOT NULL DEFAULT 0, revision INTEGER NOT NULL DEFAULT 0, last_write_at INTEGER)`,
    `CREATE INDEX tenants_by_state ON tenants (state, since)`,
    `CREATE TABLE operator_audit (
       seq INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, action TEXT NOT NULL, tenant TEXT NOT NULL,
       details TEXT NOT NULL)`,
    `CREATE INDEX operator_audit_by_time ON operator_audit (at)`,
  ],
];

export class TenantRegistry extends DurableObject<Env> {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    void ctx.blockConcurrencyWhile(async () => {
      this.sql.exec(`CREATE TABLE IF NOT EXISTS _migrations (applied INTEGER NOT NULL)`);
      const applied = this.sql.exec<{ applied: number }>(`SELECT applied FROM _migrations`).toArray()[0]?.applied;
      for (let i = applied ?? 0; i < MIGRATIONS.length; i++) for (const s of MIGRATIONS[i]!) this.sql.exec(s);
      if (applied === undefined) this.sql.exec(`INSERT INTO _migrations (applied) VALUES (?)`, MIGRATIONS.length);
      else this.sql.exec(`UPDATE _migrations SET applied = ?`, MIGRATIONS.length);
    });
  }

  private state(id: string): RowState | null {
    return (
      (this.sql.exec<{ state: string }>(`SELECT state FROM tenants WHERE id = ?`, id).toArray()[0]?.state as
        | RowState
        | undefined) ?? null
    );
  }

  /**
   * Records the intent to create (or restore) `id` before the tenant's object is asked to. Returns the row's state
   * before: `deleting` means a deletion is unfinished, which the caller finishes first.
   */
  async intendCreate(id: string): Promise<RowState | null> {
    const before = this.state(id);
    if (before === null)
      this.sql.exec(`INSERT INTO tenants (id, state, since) VALUES (?, 'creating', ?)`, id, Date.now());
    if (before !== "active") await this.repairSoon();
    return before;
  }

  /** Records the intent to delete `id`; returns the row's state before (null: the registry did not list it). */
  async intendDelete(id: string): Promise<RowState | null> {
    const before = this.state(id);
    this.sql.exec(
      `INSERT INTO tenants (id, state, since) VALUES (?, 'deleting', ?)
         ON CONFLICT (id) DO UPDATE SET state = 'deleting', since = excluded.since`,
      id,
      Date.now(),
    );
    await this.repairSoon();
    return before;
  }

  /** The tenant's object created (or restored) it: listed from now on, with an operator audit entry. */
  created(id: string, report: TenantReport, action: OperatorAction, details: Record<string, unknown> = {}): void {
    this.ctx.storage.transactionSync(() => {
      this.upsertActive(id, report);
      this.audit(action, id, details);
    });
  }

  /** Creating `id` failed in its object (refused): the intent goes, unless the tenant is listed already. */
  abandoned(id: string): void {
    this.sql.exec(`DELETE FROM tenants WHERE id = ? AND state = 'creating'`, id);
  }

  /** The tenant's object erased it: unlisted, with an operator audit entry (`details` null: nothing existed). */
  deleted(id: string, details: Record<string, unknown> | null): void {
    this.ctx.storage.transactionSync(() => {
      this.sql.exec(`DELETE FROM tenants WHERE id = ?`, id);
      if (details) this.audit("tenant.delete", id, details);
    });
  }

  /**
   * A tenant's object reports its figures (and so registers itself when the registry lost or never had it). A
   * report for a tenant being deleted, or for one that does not exist, changes nothing.
   */
  report(id: string, report: TenantReport): void {
    if (!report.exists) return;
    const state = this.state(id);
    if (state === "deleting") return;
    this.upsertActive(id, report);
  }

  /** Listed tenants by id, after `after`, at most `limit`. */
  list(after: string | null, limit: number): { tenants: TenantListing[]; more: boolean } {
    const rows = this.sql
      .exec<TenantListing & { [key: string]: SqlStorageValue }>(
        `SELECT id, created_at, tools, revision, last_write_at FROM tenants
           WHERE state = 'active' AND id > ? ORDER BY id LIMIT ?`,
        after ?? "",
        limit + 1,
      )
      .toArray();
    return {
      tenants: rows.slice(0, limit).map((r) => ({
        id: r.id,
        created_at: r.created_at,
        tools: r.tools,
        revision: r.revision,
        last_write_at: r.last_write_at,
      })),
      more: rows.length > limit,
    };
  }

  /** The operator's audit trail, newest first; `before` (exclusive) continues a page. */
  auditPage(before: number | null, limit: number): { entries: OperatorAuditEntry[]; more: boolean } {
    const rows = this.sql
      .exec<{ seq: number; at: number; action: string; tenant: string; details: string }>(
        `SELECT seq, at, action, tenant, details FROM operator_audit WHERE seq < ? ORDER BY seq DESC LIMIT ?`,
        before ?? Number.MAX_SAFE_INTEGER,
        limit + 1,
      )
      .toArray();
    return {
      entries: rows.slice(0, limit).map((r) => ({
        seq: r.seq,
        at: r.at,
        action: r.action as OperatorAction,
        tenant: r.tenant,
        details: JSON.parse(r.details) as Record<string, unknown>,
      })),
      more: rows.length > limit,
    };
  }

  /** Settles intents older than REPAIR_AFTER_MS by asking the tenants' objects; plans itself for the rest. */
  override async alarm(): Promise<void> {
    const cutoff = Date.now() - REPAIR_AFTER_MS;
    const stale = this.sql
      .exec<{ id: string; state: string }>(
        `SELECT id, state FROM tenants WHERE state != 'active' AND since <= ? ORDER BY since LIMIT 100`,
        cutoff,
      )
      .toArray();
    for (const { id, state } of stale) {
      const tenant = this.tenant(id);
      if (state === "deleting") {
        const erased = await tenant.eraseTenant();
        // Another request may have settled it meanwhile; only a row still being deleted goes.
        if (this.state(id) === "deleting") this.deleted(id, { ...erased, finished_by: "repair" });
      } else {
        const report = await tenant.registryReport();
        if (this.state(id) !== "creating") continue;
        if (report.exists) this.created(id, report, "tenant.create", { finished_by: "repair" });
        else this.abandoned(id);
      }
    }
    await this.repairSoon();
  }

  private async repairSoon(): Promise<void> {
    const next = this.sql
      .exec<{ since: number | null }>(`SELECT MIN(since) AS since FROM tenants WHERE state != 'active'`)
      .one().since;
    if (next === null) return;
    const at = Math.max(next + REPAIR_AFTER_MS, Date.now() + 1_000);
    const planned = await this.ctx.storage.getAlarm();
    if (planned === null || planned > at) await this.ctx.storage.setAlarm(at);
  }

  private tenant(id: string): TenantSide {
    return this.env.TENANTS.get(this.env.TENANTS.idFromName(id)) as unknown as TenantSide;
  }

  private upsertActive(id: string, r: TenantReport): void {
    this.sql.exec(
      `INSERT INTO tenants (id, state, since, created_at, tools, revision, last_write_at)
         VALUES (?, 'active', ?, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET state = 'active', since = excluded.since, created_at = excluded.created_at,
           tools = excluded.tools, revision = excluded.revision, last_write_at = excluded.last_write_at`,
      id,
      Date.now(),
      r.created_at,
      r.tools,
      r.revision,
      r.last_write_at,
    );
  }

  /** One operator audit entry, with the same retention as tenants' trails (audit_max_entries, audit_max_age_days). */
  private audit(action: OperatorAction, tenant: string, details: Record<string, unknown>): void {
    const limits = loadConfig(this.env).limits;
    const now = Date.now();
    const { seq } = this.sql
      .exec<{ seq: number }>(
        `INSERT INTO operator_audit (at, action, tenant, details) VALUES (?, ?, ?, ?) RETURNING seq`,
        now,
        action,
        tenant,
        JSON.stringify(details),
      )
      .one();
    this.sql.exec(`DELETE FROM operator_audit WHERE seq <= ?`, seq - limits.audit_max_entries);
    this.sql.exec(`DELETE FROM operator_audit WHERE at < ?`, now - limits.audit_max_age_days * DAY_MS);
  }
}

/** The deployment's one registry object. */
export function registryOf(env: Env): DurableObjectStub<TenantRegistry> {
  return env.REGISTRY.get(env.REGISTRY.idFromName("registry"));
}
