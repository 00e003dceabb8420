/**
 * Restoring a backup (POST .../restore) into a tenant that does not exist or is empty: all of it or nothing.
 *
 * The Worker reads the stream a batch of lines at a time and hands each batch here; batches are staged in tables of
 * their own (`restore_*`, outside the schema, so a tenant that does not exist gains no schema from them) and nothing
 * of the tenant changes until the commit, which moves everything into place in one transaction after the Worker has
 * checked the checksum and the counts. A restore that fails, is aborted or is interrupted (the object reset, the
 * client gone) leaves the staging tables, which the next restore replaces and the alarm drops after
 * STALE_RESTORE_MS; a tenant that did not exist then holds nothing at all again.
 */
import type { BackupHeader, RestoreRecord, RestoreResult } from "../contract/backup.ts";
import { limitNote } from "../config/limits.ts";
import { fail, ok, type Result } from "../errors.ts";
import { COLUMNS, storedPlaceholders, storedValues } from "./catalog-repo.ts";
import { migrate } from "./schema.ts";
import type { TenantParts } from "./tenant-parts.ts";

/** A restore without a batch for this long is abandoned: the alarm drops its staging. */
const STALE_RESTORE_MS = 10 * 60 * 1000;

/** What a restore did (the Worker adds what to do with the keys). */
export type RestoreOutcome = Omit<RestoreResult, "keys">;

const STAGING = [
  `CREATE TABLE restore_state (
     id TEXT PRIMARY KEY, started_at INTEGER NOT NULL, touched_at INTEGER NOT NULL, header TEXT NOT NULL)`,
  `CREATE TABLE restore_tools (
     id TEXT PRIMARY KEY, server TEXT NOT NULL, name TEXT NOT NULL, model_name TEXT NOT NULL UNIQUE, title TEXT,
     description TEXT NOT NULL, input_schema TEXT NOT NULL, output_schema TEXT, annotations TEXT,
     keywords TEXT NOT NULL, defer TEXT, hash TEXT NOT NULL, vendor TEXT, revision INTEGER NOT NULL,
     line INTEGER NOT NULL)`,
  `CREATE TABLE restore_servers (name TEXT PRIMARY KEY, defer_tools TEXT NOT NULL, line INTEGER NOT NULL)`,
  `CREATE TABLE restore_keys (
     id TEXT PRIMARY KEY, hash BLOB NOT NULL, scopes TEXT NOT NULL, label TEXT, created_at INTEGER NOT NULL,
     revoked_at INTEGER, line INTEGER NOT NULL)`,
  `CREATE TABLE restore_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL, line INTEGER NOT NULL)`,
  `CREATE TABLE restore_learned (
     tool_id TEXT PRIMARY KEY, day INTEGER NOT NULL, credits INTEGER NOT NULL, credited_at INTEGER NOT NULL,
     terms TEXT NOT NULL, line INTEGER NOT NULL)`,
];
const STAGING_TABLES = [
  "restore_state",
  "restore_tools",
  "restore_servers",
  "restore_keys",
  "restore_meta",
  "restore_learned",
];

type Parts = Pick<TenantParts, "sql" | "meta" | "repo" | "history" | "auditLog" | "config" | "transaction">;

const unhex = (text: string) => Uint8Array.from(text.match(/../g)!, (h) => Number.parseInt(h, 16));

export class TenantRestore {
  private readonly tenant: Parts;

  constructor(tenant: Parts) {
    this.tenant = tenant;
  }

  private staged(): boolean {
    return (
      this.tenant.sql.exec(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'restore_state'`).toArray()
        .length > 0
    );
  }

  private count(table: string): number {
    return this.tenant.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`).one().n;
  }

  /** Why the tenant cannot take a restore (it holds a catalog, synonyms...), or null: it does not exist or is empty. */
  private notEmpty(): string | null {
    const { meta, repo } = this.tenant;
    if (!this.schemaReady() || !meta.tenantId()) return null;
    const held: string[] = [];
    const tools = repo.countTools();
    if (tools > 0) held.push(`${tools} tools`);
    const servers = repo.countServers();
    if (servers > 0) held.push(`${servers} servers`);
    if (Object.keys(JSON.parse(meta.get("synonyms") ?? "{}") as object).length > 0) held.push("synonyms");
    return held.length ? held.join(", ") : null;
  }

  private schemaReady(): boolean {
    return (
      this.tenant.sql.exec(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'`).toArray().length > 0
    );
  }

  /** Starts a restore (replacing one in progress); refused when the tenant exists and is not empty. */
  begin(header: BackupHeader, now: number): Result<{ restoreId: string }> {
    const held = this.notEmpty();
    if (held)
      return fail(
        "conflict",
        `Tenant '${this.tenant.meta.tenantId()}' is not empty (it holds ${held}): a backup restores into a tenant ` +
          `that does not exist yet or is empty. Restore under a new tenant id, or DELETE /v1/tenants/{tenant} first.`,
      );
    const restoreId = crypto.randomUUID();
    this.tenant.transaction(() => {
      this.drop();
      for (const statement of STAGING) this.tenant.sql.exec(statement);
      this.tenant.sql.exec(
        `INSERT INTO restore_state (id, started_at, touched_at, header) VALUES (?, ?, ?, ?)`,
        restoreId,
        now,
        now,
        JSON.stringify(header),
      );
    });
    return ok({ restoreId });
  }

  private current(restoreId: string): Result<BackupHeader> {
    const row = this.staged()
      ? this.tenant.sql
          .exec<{ id: string; header: string }>(`SELECT id, header FROM restore_state`)
          .toArray()
          .find((r) => r.id === restoreId)
      : undefined;
    return row
      ? ok(JSON.parse(row.header) as BackupHeader)
      : fail("conflict", "This restore was replaced by another restore into the same tenant (or abandoned); retry.");
  }

  /** Stages a batch of lines; refuses a line that repeats a tool, a model-facing name, a server or a key. */
  append(restoreId: string, records: readonly RestoreRecord[], now: number): Result<null> {
    const running = this.current(restoreId);
    if (!running.ok) return running;
    const { sql } = this.tenant;
    const refusal = (line: number, what: string) =>
      fail("invalid-request", `Line ${line}: ${what}. Nothing was restored.`, { line });
    let refused: ReturnType<typeof refusal> | null = null;
    this.tenant.transaction(() => {
      for (const r of records) {
        let written = 0;
        if (r.type === "tool") {
          const t = r.tool;
          written = sql.exec(
            `INSERT INTO restore_tools (${COLUMNS}, revision, line) VALUES (${storedPlaceholders(1)})
               ON CONFLICT DO NOTHING`,
            ...storedValues(t),
            r.line,
          ).rowsWritten;
          if (!written) {
            const twin = sql.exec<{ line: number }>(`SELECT line FROM restore_tools WHERE id = ?`, t.id).toArray()[0];
            refused = twin
              ? refusal(r.line, `tool '${t.id}' is in the backup twice (also line ${twin.line})`)
              : refusal(r.line, `tool '${t.id}' has the model-facing name '${t.model_name}' of another tool`);
            return;
          }
        } else if (r.type === "server") {
          written = sql.exec(
            `INSERT INTO restore_servers (name, defer_tools, line) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`,
            r.name,
            r.defer_tools,
            r.line,
          ).rowsWritten;
          if (!written) refused = refusal(r.line, `server '${r.name}' is in the backup twice`);
        } else if (r.type === "key") {
          const k = r.key;
          written = sql.exec(
            `INSERT INTO restore_keys (id, hash, scopes, label, created_at, revoked_at, line)
               VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
            k.id,
            unhex(k.hash),
            JSON.stringify(k.scopes),
            k.label,
            k.created_at,
            k.revoked_at,
            r.line,
          ).rowsWritten;
          if (!written) refused = refusal(r.line, `key '${k.id}' is in the backup twice`);
        } else if (r.type === "learned") {
          const l = r.learned;
          written = sql.exec(
            `INSERT INTO restore_learned (tool_id, day, credits, credited_at, terms, line) VALUES (?, ?, ?, ?, ?, ?)
               ON CONFLICT DO NOTHING`,
            l.tool_id,
            l.day,
            l.credits,
            l.credited_at,
            JSON.stringify(l.terms),
            r.line,
          ).rowsWritten;
          if (!written) refused = refusal(r.line, `what tool '${l.tool_id}' learned is in the backup twice`);
        } else {
          const value = JSON.stringify(r.type === "settings" ? r.settings : r.synonyms);
          written = sql.exec(
            `INSERT INTO restore_meta (key, value, line) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`,
            r.type,
            value,
            r.line,
          ).rowsWritten;
          if (!written) refused = refusal(r.line, `a second ${r.type} line`);
        }
        if (refused) return;
      }
      sql.exec(`UPDATE restore_state SET touched_at = ? WHERE id = ?`, now, restoreId);
    });
    return refused ?? ok(null);
  }

  /**
   * Moves the staged backup into place in one transaction: the tenant (created when it did not exist), its settings
   * and synonyms, its keys (hashes as they were: the keys work again), servers and tools as a new catalog revision
   * (`catalog.restore`, undoable like any other) with an audit entry. Checked again first: the tenant is still empty,
   * the counts are the header's, every tool's server is there, the quotas hold.
   */
  commit(restoreId: string, tenantId: string, now: number): Result<RestoreOutcome> {
    const running = this.current(restoreId);
    if (!running.ok) return running;
    const header = running.value;
    const held = this.notEmpty();
    if (held)
      return fail("conflict", `Tenant '${tenantId}' is no longer empty (it holds ${held}). Nothing was restored.`);
    const { sql, meta, history, auditLog } = this.tenant;
    const limits = this.tenant.config().limits;
    const counts = {
      tools: this.count("restore_tools"),
      servers: this.count("restore_servers"),
      keys: this.count("restore_keys"),
      learned: this.count("restore_learned"),
    };
    const expected = header.counts;
    const differ = (["tools", "servers", "keys", "learned"] as const).filter((k) => counts[k] !== expected[k]);
    if (differ.length > 0)
      return fail(
        "invalid-request",
        `The restore holds ${differ.map((k) => `${counts[k]} ${k}`).join(", ")}; the header says ` +
          `${differ.map((k) => expected[k]).join(", ")}. Nothing was restored.`,
      );
    const orphan = sql
      .exec<{ id: string; line: number }>(
        `SELECT id, line FROM restore_tools WHERE server NOT IN (SELECT name FROM restore_servers) LIMIT 1`,
      )
      .toArray()[0];
    if (orphan)
      return fail(
        "invalid-request",
        `Line ${orphan.line}: tool '${orphan.id}' names a server the backup does not hold. Nothing was restored.`,
      );
    const stray = sql
      .exec<{ tool_id: string; line: number }>(
        `SELECT tool_id, line FROM restore_learned WHERE tool_id NOT IN (SELECT id FROM restore_tools) LIMIT 1`,
      )
      .toArray()[0];
    if (stray)
      return fail(
        "invalid-request",
        `Line ${stray.line}: what tool '${stray.tool_id}' learned, but the backup does not hold that tool. ` +
          `Nothing was restored.`,
      );
    const quota = (
      n: number,
      what: string,
      name: "max_tools_per_tenant" | "max_servers_per_tenant" | "max_keys_per_tenant",
    ) =>
      n > limits[name]
        ? fail(
            "conflict",
            `The restored tenant would hold ${n} ${what}, more than a tenant may hold here ` +
              `${limitNote(name, limits)}. Nothing was restored.`,
          )
        : null;
    const over =
      quota(counts.tools, "tools", "max_tools_per_tenant") ??
      quota(counts.servers, "servers", "max_servers_per_tenant") ??
      quota(
        this.count("restore_keys WHERE revoked_at IS NULL") + (this.existingKeys() ?? 0),
        "active keys",
        "max_keys_per_tenant",
      );
    if (over) return over;
    if (this.existingKeys() !== null) {
      const clash = sql
        .exec<{ id: string }>(`SELECT id FROM restore_keys WHERE id IN (SELECT id FROM keys) LIMIT 1`)
        .toArray()[0];
      if (clash) return fail("conflict", `Key '${clash.id}' of the backup exists in the tenant. Nothing was restored.`);
    }
    const operator = { kind: "operator" } as const;
    let result: RestoreOutcome | null = null;
    this.tenant.transaction(() => {
      migrate(sql);
      const created = !meta.tenantId();
      if (created) {
        meta.set("tenant_id", tenantId);
        meta.set("created_at", now);
        meta.set("revision", 0);
        history.record(0, operator, "tenant.create", { added: 0, updated: 0, removed: 0 });
        auditLog.record(operator, "tenant.create", { restore: true });
      }
      const staged = (key: string) =>
        sql.exec<{ value: string }>(`SELECT value FROM restore_meta WHERE key = ?`, key).toArray()[0]?.value;
      meta.set("settings", staged("settings") ?? "{}");
      meta.set("synonyms", staged("synonyms") ?? "{}");
      const revision = Math.max(meta.number("revision") + 1, header.revision);
      // Before-images: nothing was there, so a rollback to before the restore empties the catalog again.
      sql.exec(`INSERT INTO tool_history (revision, id, present) SELECT ?, id, 0 FROM restore_tools`, revision);
      sql.exec(`INSERT INTO server_history (revision, name, present) SELECT ?, name, 0 FROM restore_servers`, revision);
      sql.exec(`INSERT INTO tools (${COLUMNS}, revision) SELECT ${COLUMNS}, revision FROM restore_tools`);
      sql.exec(`INSERT INTO servers (name, defer_tools) SELECT name, defer_tools FROM restore_servers`);
      sql.exec(
        `INSERT INTO keys (id, hash, scopes, label, created_at, revoked_at)
           SELECT id, hash, scopes, label, created_at, revoked_at FROM restore_keys`,
      );
      // What tools learned: an empty tenant has none of its own (they go with their tools), so these replace nothing.
      sql.exec(`DELETE FROM learned_terms`);
      sql.exec(`DELETE FROM learned_tools`);
      sql.exec(
        `INSERT INTO learned_tools (tool_id, day, credits, credited_at)
           SELECT tool_id, day, credits, credited_at FROM restore_learned`,
      );
      sql.exec(
        `INSERT INTO learned_terms (tool_id, term, weight)
           SELECT l.tool_id, json_extract(j.value, '$.term'), json_extract(j.value, '$.weight')
             FROM restore_learned l, json_each(l.terms) j`,
      );
      meta.set("learned_version", meta.number("learned_version") + 1);
      meta.set("revision", revision);
      const from = { tenant: header.tenant, revision: header.revision, taken_at: header.taken_at };
      meta.set("restored_from", JSON.stringify(from));
      history.record(revision, operator, "catalog.restore", { added: counts.tools, updated: 0, removed: 0 }, { from });
      auditLog.record(operator, "catalog.restore", { from, ...counts });
      this.drop();
      result = { tenant: tenantId, created, revision, restored: counts, from };
    });
    return ok(result!);
  }

  /** Keys the tenant holds now, or null when it has no key table yet (it does not exist). */
  private existingKeys(): number | null {
    if (!this.schemaReady() || !this.tenant.meta.tenantId()) return null;
    return this.count("keys WHERE revoked_at IS NULL");
  }

  /** Abandons the restore `restoreId` (when it is still the one in progress). */
  abort(restoreId: string): void {
    if (this.current(restoreId).ok) this.tenant.transaction(() => this.drop());
  }

  /** Drops a restore nobody has fed for STALE_RESTORE_MS; true when there was one. */
  dropStale(now: number): boolean {
    if (!this.staged()) return false;
    const touched = this.tenant.sql
      .exec<{ at: number | null }>(`SELECT MAX(touched_at) AS at FROM restore_state`)
      .one().at;
    if (touched !== null && touched > now - STALE_RESTORE_MS) return false;
    this.tenant.transaction(() => this.drop());
    return true;
  }

  /** When a restore in progress would turn stale, or null. */
  staleAt(): number | null {
    if (!this.staged()) return null;
    const touched = this.tenant.sql
      .exec<{ at: number | null }>(`SELECT MAX(touched_at) AS at FROM restore_state`)
      .one().at;
    return touched === null ? null : touched + STALE_RESTORE_MS + 1;
  }

  private drop(): void {
    for (const table of STAGING_TABLES) this.tenant.sql.exec(`DROP TABLE IF EXISTS ${table}`);
  }
}
