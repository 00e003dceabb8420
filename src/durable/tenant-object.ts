/**
 * One Durable Object per tenant: its keys, settings, catalog rows (SQLite) and search index
 * (memory, snapshotted to SQLite). Every method authorises its caller first, then hands the work
 * to a service over this tenant's storage only; nothing here can reach another tenant's object.
 *
 * Methods return Result values instead of throwing, so that an expected refusal (404, 409...)
 * crosses the RPC boundary intact; a throw means a bug and becomes a 500 without detail.
 *
 * An object whose tenant was never created writes nothing: no schema, no row, no alarm. Its
 * constructor only looks whether the schema is there, and every call is refused (404 for the
 * operator, 401 for a key) before any table is read, so a forged key naming a tenant that does not
 * exist leaves no storage behind.
 */
import { DurableObject } from "cloudflare:workers";
import type { Defer, ToolRow } from "../catalog/tool.ts";
import { loadConfig } from "../config/env.ts";
import { originAllowed, type Settings, type SettingsPatch } from "../tenancy/settings.ts";
import type { SynonymMap } from "../tenancy/synonyms.ts";
import type { AuditEntry, Catalog, KeyInfo, ToolBatchResult } from "../contract/schemas.ts";
import type { DoctorReport, Usage } from "../contract/console-schemas.ts";
import type { LearnedPage, LearnedToolInfo } from "../contract/learned-schemas.ts";
import type { Plan, PlanRequest, TurnMessage } from "../contract/session-schemas.ts";
import type { CatalogDiff, RollbackResult } from "../contract/history-schemas.ts";
import { fail, ok, type Result } from "../errors.ts";
import type { DeferredLine } from "../sessions/deferred-list.ts";
import type { SessionActor, SessionOptions, SessionView } from "../sessions/session.ts";
import type { SessionTool } from "../sessions/session-tools.ts";
import type { ListEntry } from "../sessions/tool-list.ts";
import { Access, type Grant, type KeyRecord } from "./access.ts";
import { Alarms } from "./alarms.ts";
import { AuditLog } from "./audit-log.ts";
import type { BackupHeader, RestoreRecord } from "../contract/backup.ts";
import { TenantBackups, type PendingHeader } from "./backup.ts";
import { CatalogHistory, type RevisionRecord } from "./catalog-history.ts";
import { TenantRestore, type RestoreOutcome } from "./restore.ts";
import { CatalogReads, type ExportPage, type PageOptions } from "./catalog-reads.ts";
import { CatalogRepo } from "./catalog-repo.ts";
import { CatalogViews } from "./catalog-views.ts";
import { CatalogWrites } from "./catalog-writes.ts";
import { DoctorService, type DoctorRequest } from "./doctor-service.ts";
import { IndexCache } from "./index-cache.ts";
import { LearnedStore } from "./learned-store.ts";
import { Learning } from "./learning.ts";
import type { Caller, Scope } from "../tenancy/keys.ts";
import { Meta } from "./meta.ts";
import { QueryLog } from "./query-log.ts";
import { registryOf, type TenantReport } from "./registry.ts";
import type { TenantParts } from "./tenant-parts.ts";
import { migrate, schemaExists } from "./schema.ts";
import { SearchService, type SearchInput, type SearchOutput } from "./search-service.ts";
import { SessionService, type SessionAnswer, type SessionToolList } from "./session-service.ts";
import { SessionStore } from "./session-store.ts";
import { TenantSettings } from "./tenant-settings.ts";
import { UsageService, type UsageRequest } from "./usage-service.ts";

export class TenantObject extends DurableObject<Env> {
  /** A field of its own (not only inside the services) so that fault-injection tests can reach the real row writer. */
  private repo!: CatalogRepo;
  /** The key records `auth` caches, held here where a test can see that forged key ids never grow it. */
  private readonly keys = new Map<string, KeyRecord>();
  /** The storage parts every service is built over (services hold caches: `wire` builds them afresh). */
  private parts!: TenantParts;
  private auth!: Access;
  private settings!: TenantSettings;
  private auditLog!: AuditLog;
  private alarms!: Alarms;
  private learning!: Learning;
  private writes!: CatalogWrites;
  private reads!: CatalogReads;
  private searches!: SearchService;
  private sessions!: SessionService;
  private backups!: TenantBackups;
  private restores!: TenantRestore;
  private doctor!: DoctorService;
  private usageReads!: UsageService;
  /** setTools calls, chained in the order they reach the object so that they apply in that order. */
  private toolReplacements: Promise<unknown> = Promise.resolve();
  /** Whether the tenant was created (its schema exists); until then nothing is read or written. */
  private exists = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.wire();
    // An object whose tenant was never created holds nothing, not even a schema (a forged key's tenant id).
    void ctx.blockConcurrencyWhile(async () => {
      this.exists = schemaExists(ctx.storage.sql);
      if (!this.exists) return;
      migrate(ctx.storage.sql);
      // A tenant the registry has not heard from (made before the registry existed): it reports at its next alarm.
      if (this.parts.meta.tenantId() && this.parts.meta.get("reported_revision") === null) this.alarms.snapshotSoon();
    });
  }

  /** Builds the services over this object's storage, with empty caches (at start, and after the tenant is erased). */
  private wire(): void {
    const ctx = this.ctx;
    const sql = ctx.storage.sql;
    const meta = new Meta(sql);
    const config = () => loadConfig(this.env);
    this.keys.clear();
    this.repo = new CatalogRepo(sql);
    const learned = new LearnedStore(sql, meta);
    this.auditLog = new AuditLog(sql, meta, () => config().limits);
    const base: TenantParts = {
      sql,
      meta,
      repo: this.repo,
      views: new CatalogViews(sql, meta),
      sessionStore: new SessionStore(sql),
      learned,
      // After a rebuild (no usable snapshot), write one soon so that the next cold start restores.
      index: new IndexCache(sql, this.repo, learned, meta, () => this.alarms.snapshotSoon()),
      auditLog: this.auditLog,
      // The buffer's first entry plans the alarm that writes it (query-log.ts).
      queryLog: new QueryLog({ sql, config, transaction: (work) => ctx.storage.transactionSync(work) }, () =>
        this.alarms.logSoon(),
      ),
      history: new CatalogHistory(sql, meta, () => config().limits),
      config,
      transaction: <T>(work: () => T): T => ctx.storage.transactionSync(work),
      setAlarm: (at: number) => ctx.storage.setAlarm(at),
      report: async (report) => {
        const id = meta.tenantId();
        if (id) await registryOf(this.env).report(id, report);
      },
    };
    this.parts = base;
    this.auth = new Access(base, this.keys);
    this.settings = new TenantSettings(base);
    this.alarms = new Alarms({ ...base, settings: this.settings });
    this.learning = new Learning({ ...base, settings: this.settings, alarms: this.alarms });
    const services = { ...base, settings: this.settings, alarms: this.alarms, learning: this.learning };
    this.writes = new CatalogWrites(services);
    this.sessions = new SessionService(services);
    this.reads = new CatalogReads({ ...services, sessions: this.sessions });
    this.searches = new SearchService({ ...services, sessions: this.sessions, reads: this.reads });
    this.backups = new TenantBackups(base, this.settings);
    this.restores = new TenantRestore(base);
    this.doctor = new DoctorService({ ...services, searches: this.searches });
    this.usageReads = new UsageService(services);
  }

  private async guarded<T>(
    caller: Caller,
    scope: Scope | null,
    work: (grant: Grant) => Result<T> | Promise<Result<T>>,
  ): Promise<Result<T>> {
    const granted = await this.auth.authorize(caller, scope, this.exists);
    return granted.ok ? work(granted.value) : granted;
  }

  /**
   * Whether a page of `origin` may call this tenant (the Worker asks only for a request whose Origin header is not the
   * service's own): listed in the tenant's allowed_origins, after the caller's key is checked.
   */
  async admitOrigin(caller: Caller, origin: string): Promise<Result<null>> {
    return this.guarded(caller, null, () =>
      originAllowed(this.settings.current().allowed_origins, origin)
        ? ok(null)
        : fail(
            "forbidden",
            `Requests from pages of ${origin} are not allowed for this tenant. An admin lists the origins whose ` +
              `pages may call it in the setting allowed_origins (PATCH /v1/tenants/{tenant}/settings); requests ` +
              `without an Origin header (servers, CLIs) are not affected.`,
            { origin },
          ),
    );
  }

  /** Authorisation only, for routes that compute in the Worker but must still be a tenant's caller. */
  async access(caller: Caller, scope: Scope): Promise<Result<null>> {
    return this.guarded(caller, scope, () => ok(null));
  }

  /**
   * The one small call the Worker makes before it reads a request's body: is this caller valid here
   * (with `scope`, when the route is known), and what are its scopes. Reads one cached key record.
   */
  async authenticate(caller: Caller, scope: Scope | null): Promise<Result<{ scopes: Scope[] }>> {
    const granted = await this.auth.authorize(caller, scope, this.exists);
    return granted.ok ? ok({ scopes: [...granted.value.scopes] }) : granted;
  }

  // ---- tenant, settings, synonyms, audit ----------------------------------------------------------

  /** Operator only (checked by the Worker). */
  async createTenant(
    id: string,
    settings: Partial<Settings> = {},
  ): Promise<Result<{ id: string; created_at: string; settings: Settings }>> {
    migrate(this.ctx.storage.sql);
    this.exists = true;
    return this.settings.createTenant(id, settings);
  }

  async getSettings(caller: Caller): Promise<Result<Settings>> {
    return this.guarded(caller, "admin", () => ok(this.settings.current()));
  }

  async patchSettings(caller: Caller, patch: SettingsPatch): Promise<Result<Settings>> {
    return this.guarded(caller, "admin", () => this.settings.patch(caller, patch));
  }

  async getSynonyms(caller: Caller): Promise<Result<SynonymMap>> {
    return this.guarded(caller, "admin", () => ok(this.settings.synonyms().map));
  }

  /** Replaces the whole map (an empty map removes every synonym); applies from the next search. */
  async putSynonyms(caller: Caller, synonyms: SynonymMap): Promise<Result<SynonymMap>> {
    return this.guarded(caller, "admin", () => this.settings.replaceSynonyms(caller, synonyms));
  }

  async auditTrail(
    caller: Caller,
    options: { before?: number | undefined; limit: number },
  ): Promise<Result<{ entries: AuditEntry[]; more: boolean }>> {
    return this.guarded(caller, "admin", () => ok(this.auditLog.page(options)));
  }

  // ---- learned from use ------------------------------------------------------------------------

  /** What one tool learned (it must be in the catalog), with its terms' current weights. */
  async learnedTool(caller: Caller, toolId: string): Promise<Result<LearnedToolInfo>> {
    return this.guarded(caller, "admin", () => {
      const row = this.reads.getTool(toolId);
      if (!row.ok) return row;
      return ok(this.learning.tool(toolId) ?? { tool_id: toolId, credits: 0, last_credit_at: null, terms: [] });
    });
  }

  /** A page of the tools that learned something, by tool id. */
  async learnedTools(
    caller: Caller,
    options: { after: string | null; limit: number },
  ): Promise<Result<{ tools: LearnedPage["tools"]; more: boolean }>> {
    return this.guarded(caller, "admin", () => ok(this.learning.page(options.after, options.limit)));
  }

  /** Forgets what every tool learned: the ranking is then exactly what it was before any learning. */
  async forgetLearned(caller: Caller): Promise<Result<{ tools: number; terms: number }>> {
    return this.guarded(caller, "admin", () => this.learning.forgetAll(caller));
  }

  // ---- keys ---------------------------------------------------------------------------------------

  async createKey(caller: Caller, scopes: Scope[], label: string | null): Promise<Result<KeyInfo & { key: string }>> {
    return this.guarded(caller, "admin", () => this.auth.createKey(caller, scopes, label));
  }

  async listKeys(caller: Caller): Promise<Result<KeyInfo[]>> {
    return this.guarded(caller, "admin", () => ok(this.auth.listKeys()));
  }

  /** Revokes a key at once and ends the sessions it created. */
  async revokeKey(caller: Caller, keyId: string): Promise<Result<null>> {
    return this.guarded(caller, "admin", () => this.auth.revokeKey(caller, keyId));
  }

  /** Ends every session a key created (the key stays valid). */
  async purgeKeySessions(caller: Caller, keyId: string): Promise<Result<{ key_id: string; ended: number }>> {
    return this.guarded(caller, "admin", () => this.auth.purgeSessions(caller, keyId));
  }

  // ---- catalog writes -----------------------------------------------------------------------------

  async upsertTools(caller: Caller, rows: ToolRow[]): Promise<Result<ToolBatchResult>> {
    return this.guarded(caller, "write", () => this.writes.upsert(caller, rows));
  }

  /** setTools semantics: after this, the server holds exactly `rows` (an empty list removes them all). */
  async replaceServer(
    caller: Caller,
    server: string,
    rows: ToolRow[],
    deferTools: Defer | null,
  ): Promise<Result<ToolBatchResult>> {
    return this.guarded(caller, "write", () => this.writes.replaceServer(caller, server, rows, deferTools));
  }

  async deleteServer(caller: Caller, server: string): Promise<Result<ToolBatchResult>> {
    return this.guarded(caller, "write", () => this.writes.deleteServer(caller, server));
  }

  /** A 404 names near misses only to a caller that may search the catalog anyway. */
  async deleteTool(caller: Caller, id: string): Promise<Result<ToolBatchResult>> {
    return this.guarded(caller, "write", (grant) =>
      this.writes.deleteTool(caller, id, grant.scopes.includes("search")),
    );
  }

  /** Makes the catalog what it was at `revision`, as a new revision (410 when that revision is no longer kept). */
  async rollback(caller: Caller, revision: number): Promise<Result<RollbackResult>> {
    return this.guarded(caller, "write", () => this.writes.rollback(caller, revision));
  }

  // ---- catalog history ----------------------------------------------------------------------------

  /** Revisions, newest first, with the current and the oldest kept. */
  async revisions(
    caller: Caller,
    options: { before?: number | undefined; limit: number },
  ): Promise<Result<{ revisions: RevisionRecord[]; more: boolean; current: number; oldest: number }>> {
    return this.guarded(caller, "search", () => {
      const { history, meta } = this.parts;
      return ok({ ...history.page(options), current: meta.number("revision"), oldest: history.oldest() });
    });
  }

  /** A page of what differs between two kept revisions (`to`: the current one when null). */
  async diff(
    caller: Caller,
    options: { from: number; to: number | null; after: string | null; limit: number },
  ): Promise<Result<CatalogDiff>> {
    return this.guarded(caller, "search", () => {
      const { history, meta } = this.parts;
      const current = meta.number("revision");
      const to = options.to ?? current;
      const oldest = history.oldest();
      for (const r of [options.from, to]) {
        if (r > current)
          return fail("not-found", `No revision ${r}: the catalog is at revision ${current}.`, {
            current_revision: current,
          });
        if (r < oldest)
          return fail("gone", `Revision ${r} is no longer kept; the oldest kept revision is ${oldest}.`, {
            oldest_revision: oldest,
          });
      }
      return ok(history.diff(options.from, to, options.after, options.limit));
    });
  }

  // ---- lifecycle (the registry and the operator's routes) -----------------------------------------

  /** What the registry lists about this tenant (called by the registry and the Worker's tenant routes). */
  async registryReport(): Promise<TenantReport> {
    // An object whose tenant was never created (or was erased) has no schema to read.
    if (!this.exists) return { exists: false, created_at: null, tools: 0, revision: 0, last_write_at: null };
    return this.alarms.registryReport();
  }

  /**
   * Erases the tenant: every row (catalog, keys, settings, sessions, history, audit trail, index snapshot, learned
   * terms), its alarm, and what this instance holds in memory. Its keys stop working at once. Safe to repeat.
   */
  async eraseTenant(): Promise<{ existed: boolean; tools: number }> {
    const existed = this.exists && this.parts.meta.tenantId() !== null;
    const tools = existed ? this.parts.repo.countTools() : 0;
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    this.wire();
    this.exists = false;
    return { existed, tools };
  }

  // ---- backup and restore -------------------------------------------------------------------------

  /** Opens a backup of the tenant as it is now: its id, and its header but the checksum. */
  async backupBegin(caller: Caller): Promise<Result<{ id: string; header: PendingHeader }>> {
    return this.guarded(caller, "admin", async () => {
      const opened = this.backups.begin(Date.now());
      const expiry = this.backups.nextExpiry();
      if (expiry !== null) await this.alarms.schedule(expiry + 1);
      return ok(opened);
    });
  }

  /** A page of an open backup's lines; the same cursor gives the same lines while it is open. */
  async backupPage(
    caller: Caller,
    id: string,
    cursor: string | null,
  ): Promise<Result<{ lines: string[]; next: string | null }>> {
    return this.guarded(caller, "admin", () => this.backups.page(id, cursor, Date.now()));
  }

  async backupEnd(caller: Caller, id: string): Promise<Result<null>> {
    return this.guarded(caller, "admin", () => {
      this.backups.end(id);
      return ok(null);
    });
  }

  /**
   * Starts a restore into this tenant, which must not exist yet or be empty (operator only). A restore already in
   * progress here is replaced: its next batch is refused.
   */
  async restoreBegin(caller: Caller, header: BackupHeader): Promise<Result<{ restoreId: string }>> {
    if (caller.kind !== "operator") return fail("forbidden", "Only the operator token restores tenants.");
    const begun = this.restores.begin(header, Date.now());
    if (begun.ok) await this.planRestoreCleanup();
    return begun;
  }

  /** Stages a batch of checked lines; nothing of the tenant changes until the commit. */
  async restoreAppend(caller: Caller, restoreId: string, records: RestoreRecord[]): Promise<Result<null>> {
    if (caller.kind !== "operator") return fail("forbidden", "Only the operator token restores tenants.");
    return this.restores.append(restoreId, records, Date.now());
  }

  /**
   * Moves a restore whose stream the Worker has verified (checksum, counts) into place, in one transaction; the
   * tenant then exists (or is no longer empty) and serves, its index built from the restored rows.
   */
  async restoreCommit(caller: Caller, restoreId: string, tenantId: string): Promise<Result<RestoreOutcome>> {
    if (caller.kind !== "operator") return fail("forbidden", "Only the operator token restores tenants.");
    migrate(this.ctx.storage.sql);
    const committed = this.restores.commit(restoreId, tenantId, Date.now());
    if (!committed.ok) return committed;
    this.exists = true;
    this.wire(); // settings, synonyms, keys and the index as restored, not as cached before
    this.alarms.snapshotSoon();
    return committed;
  }

  /** Drops a restore (refused, or its client gone): a tenant that did not exist holds nothing afterwards. */
  async restoreAbort(caller: Caller, restoreId: string): Promise<void> {
    if (caller.kind !== "operator") return;
    this.restores.abort(restoreId);
    await this.forgetIfNothing();
  }

  /** A restore that stops being fed is dropped by the alarm. */
  private async planRestoreCleanup(): Promise<void> {
    const at = this.restores.staleAt();
    if (at === null) return;
    const planned = await this.ctx.storage.getAlarm();
    if (planned === null || planned > at) await this.ctx.storage.setAlarm(at);
  }

  /** An object whose tenant does not exist and that stages nothing holds nothing: its storage is emptied. */
  private async forgetIfNothing(): Promise<void> {
    const tenant = schemaExists(this.ctx.storage.sql) ? this.parts.meta.tenantId() : null;
    if (tenant === null && this.restores.staleAt() === null) {
      await this.ctx.storage.deleteAlarm();
      await this.ctx.storage.deleteAll();
      this.wire();
      this.exists = false;
    }
  }

  // ---- catalog reads ------------------------------------------------------------------------------

  async listTools(caller: Caller, options: PageOptions): Promise<Result<{ tools: ToolRow[]; more: boolean }>> {
    return this.guarded(caller, "search", () => this.reads.listTools(options));
  }

  async getTool(caller: Caller, id: string): Promise<Result<ToolRow>> {
    return this.guarded(caller, "search", () => this.reads.getTool(id));
  }

  /** A tool's row read for a session's model (MCP `tool_describe`): like getTool, and use of the tool (learning). */
  async describeTool(caller: Caller, sessionId: string, id: string): Promise<Result<ToolRow>> {
    return this.guarded(caller, "search", (grant) => {
      const row = this.reads.getTool(id);
      if (row.ok) this.sessions.used(actor(grant), sessionId, row.value.id);
      return row;
    });
  }

  async catalog(caller: Caller): Promise<Result<Catalog>> {
    return this.guarded(caller, "search", () => this.reads.catalogInfo());
  }

  /** A page of the compact deferred list (`server::tool: description`), by tool id. */
  async deferredList(
    caller: Caller,
    options: PageOptions,
  ): Promise<Result<{ revision: number; lines: DeferredLine[]; next: string | null }>> {
    return this.guarded(caller, "search", () => this.reads.deferredList(options));
  }

  /** Whether tool search pays off for this catalog and a context window, with the token figures behind the answer. */
  async plan(caller: Caller, request: PlanRequest): Promise<Result<Plan>> {
    return this.guarded(caller, "search", () => this.reads.plan(request));
  }

  /** A page of the catalog for a vendor export, by tool id, ending at a server boundary when it can. */
  async exportPage(
    caller: Caller,
    options: PageOptions & { withToolSearch: boolean; parts?: boolean },
  ): Promise<Result<ExportPage>> {
    return this.guarded(caller, "search", () => this.reads.exportPage(options));
  }

  // ---- search -------------------------------------------------------------------------------------

  async search(caller: Caller, input: SearchInput): Promise<Result<SearchOutput>> {
    return this.guarded(caller, "search", (grant) => this.searches.search(input, actor(grant)));
  }

  // ---- console: doctor and usage --------------------------------------------------------------------

  /** The catalog doctor's findings (search/doctor.ts). */
  async doctorReport(caller: Caller, request: DoctorRequest): Promise<Result<DoctorReport>> {
    return this.guarded(caller, "search", () => this.doctor.report(request));
  }

  /** The query log's aggregates over a range of UTC days. */
  async usage(caller: Caller, request: UsageRequest): Promise<Result<Usage>> {
    return this.guarded(caller, "search", () => this.usageReads.usage(request));
  }

  // ---- sessions -----------------------------------------------------------------------------------

  /**
   * Creates a session. Creating it again with the same options (a retried request) answers the
   * existing session with `created: false`; the same id with other options is a conflict.
   */
  async createSession(
    caller: Caller,
    options: SessionOptions,
    tools: SessionTool[] | null,
    turn: TurnMessage = {},
  ): Promise<Result<{ created: boolean; session: SessionAnswer }>> {
    return this.guarded(caller, "search", (grant) => this.sessions.create(actor(grant), options, tools, turn));
  }

  /**
   * A new tool-search session behind a new MCP session, whose turns also start after a quiet spell
   * (the tenant's `mcp_turn_idle_seconds`), since MCP clients never say when a user message arrives.
   */
  async openMcpSession(caller: Caller, sessionId: string): Promise<Result<SessionView>> {
    return this.guarded(caller, "search", async (grant) => {
      const idle = this.settings.current().mcp_turn_idle_seconds;
      const options = { session_id: sessionId, ...(idle > 0 ? { turn_idle_seconds: idle } : {}) };
      const created = await this.sessions.create(actor(grant), options, null);
      return created.ok ? ok(created.value.session) : created;
    });
  }

  async getSession(caller: Caller, sessionId: string): Promise<Result<SessionView>> {
    return this.guarded(caller, "search", (grant) => this.sessions.get(actor(grant), sessionId));
  }

  async deleteSession(caller: Caller, sessionId: string): Promise<Result<null>> {
    return this.guarded(caller, "search", (grant) => this.sessions.delete(actor(grant), sessionId));
  }

  /** Starts the next turn: the search count starts again from 0; a message loads the tools it suggests. */
  async startTurn(
    caller: Caller,
    sessionId: string,
    requested?: number,
    turn: TurnMessage = {},
  ): Promise<Result<SessionAnswer>> {
    return this.guarded(caller, "search", (grant) => this.sessions.startTurn(actor(grant), sessionId, requested, turn));
  }

  /**
   * Replaces the session's client tools as one step (setTools). Calls are chained in the order
   * they reach this object, authorisation included since it awaits, so concurrent replacements
   * apply one at a time, in that order.
   */
  async setSessionTools(
    caller: Caller,
    sessionId: string,
    tools: SessionTool[],
  ): Promise<Result<{ session_id: string; tools_version: number; tools: string[] }>> {
    const run = this.toolReplacements.then(() =>
      this.guarded(caller, "search", (grant) => this.sessions.replaceTools(actor(grant), sessionId, tools)),
    );
    this.toolReplacements = run.catch(() => undefined);
    return run;
  }

  /** The definitions to send with the session's next model request, in their stable order. */
  async sessionToolList(caller: Caller, sessionId: string): Promise<Result<SessionToolList>> {
    return this.guarded(caller, "search", (grant) => this.sessions.toolListOf(actor(grant), sessionId));
  }

  /**
   * The definition of a tool the model called, when it is active in the session (in its tool
   * list); otherwise 409 tool-not-active with the rescue message.
   */
  async resolve(caller: Caller, sessionId: string, name: string): Promise<Result<ListEntry>> {
    return this.guarded(caller, "search", (grant) => this.sessions.resolve(actor(grant), sessionId, name));
  }

  // ---- alarm --------------------------------------------------------------------------------------

  override async alarm(): Promise<void> {
    const now = Date.now();
    if (this.restores.dropStale(now)) await this.forgetIfNothing();
    else await this.planRestoreCleanup();
    if (!this.exists || !this.parts.meta.tenantId()) return;
    this.parts.transaction(() => this.backups.dropExpired(now));
    await this.alarms.ring();
    const expiry = this.backups.nextExpiry();
    if (expiry !== null) await this.alarms.schedule(expiry + 1);
  }
}

/** The caller as the owner of sessions: the operator and admin keys may act on every session. */
function actor(grant: Grant): SessionActor {
  return { owner: grant.owner, anySession: grant.owner === "operator" || grant.scopes.includes("admin") };
}
