/**
 * One Durable Object per tenant: its keys, settings, catalog rows (SQLite) and search index
 * (memory, snapshotted to SQLite). Every method authorises its caller first, then works on this
 * tenant's storage only; nothing here can reach another tenant's object.
 *
 * Methods return Result values instead of throwing, so that an expected refusal (404, 409...)
 * crosses the RPC boundary intact; a throw means a bug and becomes a 500 without detail.
 */
import { DurableObject } from "cloudflare:workers";
import { canonicalJson } from "../catalog/json.ts";
import { NAMESPACE_NAMES_SHOWN, type ServerSummary } from "../catalog/vendor.ts";
import { modelName } from "../catalog/render.ts";
import { definitionText, TOKENIZER, tokenCounter } from "../catalog/tokens.ts";
import { parseToolId, type Defer, type ToolRow } from "../catalog/tool.ts";
import { loadConfig } from "../config/env.ts";
import { limitNote } from "../config/limits.ts";
import { applySettingsPatch, SettingsSchema, type Settings, type SettingsPatch } from "../config/settings.ts";
import { synonymsSchema, type SynonymMap } from "../config/synonyms.ts";
import { fail, ok, type ApiError, type Result } from "../errors.ts";
import { FIELDS } from "../search/document.ts";
import { DEFAULT_BM25F, type Bm25fParams } from "../search/ranker.ts";
import { compileSynonyms, type Synonyms } from "../search/query.ts";
import type { Hit } from "../search/tool-index.ts";
import { planActivation } from "../sessions/activation.ts";
import { budget, budgetExhausted, isExhausted, type Budget } from "../sessions/budget.ts";
import type { DeferredLine } from "../sessions/deferred-list.ts";
import { decidePlan, type PlanDecision, type PlanThresholds } from "../sessions/plan.ts";
import { idleTurnDue, isExpired, turnStep, type SessionOptions, type SessionRecord, type SessionView } from "../sessions/session.ts";
import type { SessionTool } from "../sessions/session-tools.ts";
import { TOOL_SEARCH_NAME, type ListEntry } from "../sessions/tool-list.ts";
import { CatalogRepo } from "./catalog-repo.ts";
import { CatalogViews, type TokenTotals } from "./catalog-views.ts";
import { IndexCache, type LoadReport } from "./index-cache.ts";
import { AuditLog, type AuditAction, type AuditEntry } from "./audit-log.ts";
import { ALPHABET, digestsEqual, generateKey, hashSecret, randomString, type Scope } from "./keys.ts";
import { Meta } from "./meta.ts";
import { migrate } from "./schema.ts";
import { SessionService } from "./session-service.ts";
import { SessionStore } from "./session-store.ts";

export type Caller = { kind: "operator" } | { kind: "key"; keyId: string; secret: string };

interface KeyRecord {
  hash: Uint8Array;
  scopes: Scope[];
  revoked: boolean;
}

export interface KeyInfo {
  id: string;
  scopes: Scope[];
  label: string | null;
  created_at: string;
  revoked_at: string | null;
}

export interface BatchCounts {
  revision: number;
  added: number;
  updated: number;
  unchanged: number;
  removed: number;
}

export interface SearchInput {
  tool_id?: string;
  query?: string;
  max_results?: number;
  threshold?: number;
  explain?: boolean;
  /** Activate the results in this session and count the search against its turn budget. */
  session_id?: string;
  /** Return the result rows too, so the caller can render definitions. */
  with_rows?: boolean;
  /** Return what the vendor formats need besides the rows: which results are deferred, their servers' summaries. */
  with_export_facts?: boolean;
}

/** What a vendor rendering needs besides the rows (see catalog/vendor.ts). */
export interface ExportFacts {
  /** Ids of the given tools that are deferred (the others are always loaded). */
  deferred: string[];
  servers: ServerSummary[];
}

export interface ExportPage {
  revision: number;
  rows: ToolRow[];
  facts: ExportFacts;
  /** The last id of this page when more follow. */
  next: string | null;
  /** tool_search's definition (budget: the tenant's), on the first page when asked for. */
  toolSearch: ToolRow | null;
}

export interface SearchResultItem {
  tool_id: string;
  server: string;
  name: string;
  model_name: string;
  description: string;
  score: number | null;
  match: "tool-id" | Hit["match"];
  explain?: Omit<NonNullable<Hit["explain"]>, "match">;
}

export interface SearchOutput {
  results: SearchResultItem[];
  /** Tool ids this search made callable in its session (not active before it). */
  activated: string[];
  /** The session's budget after this search (searches with a session only). */
  budget?: Budget;
  threshold: number;
  message?: string;
  rows?: ToolRow[];
  facts?: ExportFacts;
}

export interface CatalogInfo {
  revision: number;
  tools: number;
  always_loaded: number;
  deferred: number;
  servers: { name: string; defer_tools: Defer; tools: number }[];
  tokens: TokenTotals["tokens"] & { tokenizer: string };
  index: LoadReport | null;
}

export interface SessionToolList {
  session_id: string;
  turn: number;
  budget: Budget;
  entries: ListEntry[];
}

export interface PlanRequest {
  context_window: number;
  min_tools?: number | undefined;
  min_pct?: number | undefined;
  min_tokens?: number | undefined;
}

export interface PlanOutput extends PlanDecision {
  context_window: number;
  thresholds: PlanThresholds;
  /** Deferrable definitions as a share of the context window, in percent. */
  share_pct: number;
  tools: TokenTotals["tools"];
  tokens: TokenTotals["tokens"] & { tool_search: number; with_search: number; saving: number };
  tokenizer: string;
}

/** After a catalog change, the snapshot is rewritten this long after the last write (writes batch up). */
const SNAPSHOT_DELAY_MS = 2_000;
/** A planned alarm this far overdue is taken as lost and planned again. */
const ALARM_OVERDUE_MS = 60_000;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export class TenantObject extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  private readonly meta: Meta;
  private readonly repo: CatalogRepo;
  private readonly index: IndexCache;
  private readonly views: CatalogViews;
  private readonly sessions: SessionStore;
  private readonly sessionService: SessionService;
  private readonly auditLog: AuditLog;
  private readonly keys = new Map<string, KeyRecord>();
  private cachedSettings: Settings | null = null;
  private cachedSynonyms: { map: SynonymMap; compiled: Synonyms } | null = null;
  /** setTools calls, chained in the order they reach the object so that they apply in that order. */
  private toolReplacements: Promise<unknown> = Promise.resolve();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.meta = new Meta(this.sql);
    this.repo = new CatalogRepo(this.sql);
    // After a rebuild (no usable snapshot), write one soon so that the next cold start restores.
    this.index = new IndexCache(this.sql, this.repo, this.meta, () => void this.scheduleAlarm(Date.now() + SNAPSHOT_DELAY_MS));
    this.views = new CatalogViews(this.sql, this.meta);
    this.sessions = new SessionStore(this.sql);
    this.auditLog = new AuditLog(this.sql);
    this.sessionService = new SessionService(this.sessions, this.repo, this.views, {
      settings: () => this.settings(),
      limits: () => loadConfig(this.env).limits,
      tenantId: () => this.tenantId(),
      transaction: (work) => this.ctx.storage.transactionSync(work),
    });
    void ctx.blockConcurrencyWhile(async () => migrate(this.sql));
  }

  // ---- access -------------------------------------------------------------------------------------

  private tenantId(): string | null {
    return this.meta.get("tenant_id");
  }

  private async authorize(caller: Caller, scope: Scope): Promise<ApiError | null> {
    const tenant = this.tenantId();
    if (caller.kind === "operator") {
      // The Worker verified the operator token; only it can reach this object.
      return tenant ? null : fail("not-found", "No such tenant. Create it with POST /v1/tenants.").error;
    }
    const record = tenant ? this.keyRecord(caller.keyId) : null;
    if (!record || record.revoked || !digestsEqual(record.hash, await hashSecret(caller.secret))) {
      return fail("unauthorized", "The API key is not valid for this tenant (unknown, revoked or mistyped).").error;
    }
    if (!record.scopes.includes(scope)) {
      return fail("forbidden", `This key lacks the '${scope}' scope. Ask an admin for a key with it.`, { required_scope: scope }).error;
    }
    return null;
  }

  /**
   * A key's stored record. Only keys that exist are cached (at most the keys table): caching misses
   * would let a flood of forged key ids, which costs the sender nothing, grow this object's memory
   * without bound.
   */
  private keyRecord(keyId: string): KeyRecord | null {
    const cached = this.keys.get(keyId);
    if (cached) return cached;
    const r = this.sql.exec<{ hash: ArrayBuffer; scopes: string; revoked_at: number | null }>(`SELECT hash, scopes, revoked_at FROM keys WHERE id = ?`, keyId).toArray()[0];
    if (!r) return null;
    const record = { hash: new Uint8Array(r.hash), scopes: JSON.parse(r.scopes) as Scope[], revoked: r.revoked_at !== null };
    this.keys.set(keyId, record);
    return record;
  }

  private async guarded<T>(caller: Caller, scope: Scope, work: () => Result<T> | Promise<Result<T>>): Promise<Result<T>> {
    const denied = await this.authorize(caller, scope);
    return denied ? { ok: false, error: denied } : work();
  }

  // ---- tenant -------------------------------------------------------------------------------------

  /** Operator only (checked by the Worker). */
  async createTenant(id: string, settings: Partial<Settings> = {}): Promise<Result<{ id: string; created_at: string; settings: Settings }>> {
    if (this.tenantId()) return fail("conflict", `Tenant '${id}' already exists.`);
    const parsed = SettingsSchema.safeParse(settings);
    if (!parsed.success) return fail("invalid-request", "settings are not valid", { issues: parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`) });
    const created = Date.now();
    this.ctx.storage.transactionSync(() => {
      this.meta.set("tenant_id", id);
      this.meta.set("created_at", created);
      this.meta.set("settings", JSON.stringify(parsed.data));
      this.meta.set("revision", 0);
      this.audit({ kind: "operator" }, "tenant.create", { settings: Object.keys(settings) });
    });
    this.cachedSettings = parsed.data;
    return ok({ id, created_at: iso(created)!, settings: parsed.data });
  }

  private settings(): Settings {
    this.cachedSettings ??= SettingsSchema.parse(JSON.parse(this.meta.get("settings") ?? "{}"));
    return this.cachedSettings;
  }

  async getSettings(caller: Caller): Promise<Result<Settings>> {
    return this.guarded(caller, "admin", () => ok(this.settings()));
  }

  async patchSettings(caller: Caller, patch: SettingsPatch): Promise<Result<Settings>> {
    return this.guarded(caller, "admin", () => {
      let next: Settings;
      try {
        next = applySettingsPatch(this.settings(), patch);
      } catch (e) {
        return fail("invalid-request", `settings are not valid: ${e instanceof Error ? e.message : e}`);
      }
      this.ctx.storage.transactionSync(() => {
        this.meta.set("settings", JSON.stringify(next));
        // Settings are tuning numbers, not secrets: the entry keeps the patch as sent.
        this.audit(caller, "settings.update", { patch });
      });
      this.cachedSettings = next;
      return ok(next);
    });
  }

  // ---- synonyms -----------------------------------------------------------------------------------

  private synonyms(): { map: SynonymMap; compiled: Synonyms } {
    if (!this.cachedSynonyms) {
      const map = JSON.parse(this.meta.get("synonyms") ?? "{}") as SynonymMap;
      this.cachedSynonyms = { map, compiled: compileSynonyms(map) };
    }
    return this.cachedSynonyms;
  }

  async getSynonyms(caller: Caller): Promise<Result<SynonymMap>> {
    return this.guarded(caller, "admin", () => ok(this.synonyms().map));
  }

  /** Replaces the whole map (an empty map removes every synonym); applies from the next search. */
  async putSynonyms(caller: Caller, synonyms: SynonymMap): Promise<Result<SynonymMap>> {
    return this.guarded(caller, "admin", () => {
      const parsed = synonymsSchema(loadConfig(this.env).limits).safeParse(synonyms);
      if (!parsed.success) return fail("invalid-request", "synonyms are not valid", { issues: parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`) });
      this.ctx.storage.transactionSync(() => {
        this.meta.set("synonyms", JSON.stringify(parsed.data));
        this.audit(caller, "synonyms.replace", { keys: Object.keys(parsed.data).length });
      });
      this.cachedSynonyms = { map: parsed.data, compiled: compileSynonyms(parsed.data) };
      return ok(parsed.data);
    });
  }

  // ---- audit --------------------------------------------------------------------------------------

  /** Records a change in the audit trail; call inside the change's own transaction. */
  private audit(caller: Caller, action: AuditAction, details: Record<string, unknown>): void {
    const actor = caller.kind === "operator" ? "operator" : `key:${caller.keyId}`;
    this.auditLog.record({ actor, action, revision: this.meta.number("revision"), details }, loadConfig(this.env).limits);
  }

  async auditTrail(caller: Caller, options: { before?: number | undefined; limit: number }): Promise<Result<{ entries: AuditEntry[]; more: boolean }>> {
    return this.guarded(caller, "admin", () => ok(this.auditLog.page(options)));
  }

  // ---- keys ---------------------------------------------------------------------------------------

  async createKey(caller: Caller, scopes: Scope[], label: string | null): Promise<Result<KeyInfo & { key: string }>> {
    return this.guarded(caller, "admin", async () => {
      // Hashed before the check, so that nothing awaits between counting and inserting: two
      // concurrent creations cannot both take the last free place.
      const fresh = generateKey(this.tenantId()!);
      const hash = await hashSecret(fresh.secret);
      const limits = loadConfig(this.env).limits;
      const active = this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM keys WHERE revoked_at IS NULL`).one().n;
      if (active >= limits.max_keys_per_tenant) {
        return fail("conflict", `This tenant holds ${active} active keys, the most it may hold ${limitNote("max_keys_per_tenant", limits)}. Revoke unused keys first.`);
      }
      const created = Date.now();
      const unique = [...new Set(scopes)];
      this.ctx.storage.transactionSync(() => {
        this.sql.exec(`INSERT INTO keys (id, hash, scopes, label, created_at) VALUES (?, ?, ?, ?, ?)`, fresh.keyId, hash, JSON.stringify(unique), label, created);
        this.audit(caller, "key.create", { key_id: fresh.keyId, scopes: unique });
      });
      this.keys.delete(fresh.keyId);
      return ok({ id: fresh.keyId, key: fresh.key, scopes: unique, label, created_at: iso(created)!, revoked_at: null });
    });
  }

  async listKeys(caller: Caller): Promise<Result<KeyInfo[]>> {
    return this.guarded(caller, "admin", () =>
      ok(
        this.sql
          .exec<{ id: string; scopes: string; label: string | null; created_at: number; revoked_at: number | null }>(
            `SELECT id, scopes, label, created_at, revoked_at FROM keys ORDER BY created_at, id`,
          )
          .toArray()
          .map((r) => ({ id: r.id, scopes: JSON.parse(r.scopes) as Scope[], label: r.label, created_at: iso(r.created_at)!, revoked_at: iso(r.revoked_at) })),
      ),
    );
  }

  /**
   * Revokes a key with immediate effect. Revoked keys stay listed, the newest
   * `max_keys_per_tenant` of them: older ones are deleted (a deleted key is refused like a revoked
   * one), so creating and revoking keys forever cannot grow the table without bound.
   */
  async revokeKey(caller: Caller, keyId: string): Promise<Result<null>> {
    return this.guarded(caller, "admin", () => {
      const row = this.sql.exec<{ revoked_at: number | null }>(`SELECT revoked_at FROM keys WHERE id = ?`, keyId).toArray()[0];
      if (!row) return fail("not-found", `No key '${keyId}' in this tenant.`);
      if (row.revoked_at !== null) return ok(null); // revoking twice changes nothing
      const limits = loadConfig(this.env).limits;
      this.ctx.storage.transactionSync(() => {
        this.sql.exec(`UPDATE keys SET revoked_at = ? WHERE id = ?`, Date.now(), keyId);
        this.sql.exec(
          `DELETE FROM keys WHERE id IN (SELECT id FROM keys WHERE revoked_at IS NOT NULL ORDER BY revoked_at DESC, id LIMIT -1 OFFSET ?)`,
          limits.max_keys_per_tenant,
        );
        this.audit(caller, "key.revoke", { key_id: keyId });
      });
      this.keys.clear(); // takes effect on the very next request (and forgets keys the cleanup deleted)
      return ok(null);
    });
  }

  // ---- catalog writes -----------------------------------------------------------------------------

  async upsertTools(caller: Caller, rows: ToolRow[]): Promise<Result<BatchCounts>> {
    return this.guarded(caller, "write", () => this.writeCatalog(caller, rows, [], null));
  }

  /** setTools semantics: after this, the server holds exactly `rows` (an empty list removes them all). */
  async replaceServer(caller: Caller, server: string, rows: ToolRow[], deferTools: Defer | null): Promise<Result<BatchCounts>> {
    return this.guarded(caller, "write", () => {
      const keep = new Set(rows.map((r) => r.id));
      const removals = this.repo.serverToolIds(server).filter((id) => !keep.has(id));
      return this.writeCatalog(caller, rows, removals, { server, deferTools });
    });
  }

  async deleteServer(caller: Caller, server: string): Promise<Result<BatchCounts>> {
    return this.guarded(caller, "write", () => {
      if (!this.repo.serverExists(server)) return fail("not-found", `No server '${server}' in this catalog.`);
      const removals = this.repo.serverToolIds(server);
      let revision = 0;
      this.ctx.storage.transactionSync(() => {
        this.repo.deleteServer(server);
        this.forgetTools(removals);
        revision = this.bumpRevision();
        this.audit(caller, "server.delete", { server, removed: removals.length });
      });
      this.afterCatalogChange([], removals);
      return ok({ revision, added: 0, updated: 0, unchanged: 0, removed: removals.length });
    });
  }

  async deleteTool(caller: Caller, id: string): Promise<Result<BatchCounts>> {
    return this.guarded(caller, "write", () => {
      if (!this.repo.getTool(id)) return this.unknownTool(id);
      let revision = 0;
      this.ctx.storage.transactionSync(() => {
        this.repo.deleteTools([id]);
        this.forgetTools([id]);
        revision = this.bumpRevision();
        this.audit(caller, "tool.delete", { tool_id: id });
      });
      this.afterCatalogChange([], [id]);
      return ok({ revision, added: 0, updated: 0, unchanged: 0, removed: 1 });
    });
  }

  /**
   * The one write path. Checks everything first (capacity, model-name clashes), then writes rows,
   * removals, servers, the revision and the audit entry in one transaction: a refused or failed
   * write changes nothing. No await happens between the checks and the commit, so concurrent
   * writers apply one at a time. A write that changes nothing (same hashes, no new server, same
   * defer_tools) keeps the revision and records nothing.
   */
  private writeCatalog(caller: Caller, rows: ToolRow[], removals: string[], server: { server: string; deferTools: Defer | null } | null): Result<BatchCounts> {
    const limits = loadConfig(this.env).limits;
    const existing = this.repo.hashes(rows.map((r) => r.id));
    const changed = rows.filter((r) => existing.get(r.id) !== r.hash);
    const added = rows.filter((r) => !existing.has(r.id)).length;
    const total = this.repo.countTools() + added - removals.length;
    if (total > limits.max_tools_per_tenant) {
      return fail("conflict", `This change would leave ${total} tools in the catalog, more than a tenant may hold ${limitNote("max_tools_per_tenant", limits)}. Remove tools first.`);
    }
    const newServers = this.repo.missingServers([...rows.map((r) => r.server), ...(server ? [server.server] : [])]);
    const servers = this.repo.countServers() + newServers.length;
    if (newServers.length > 0 && servers > limits.max_servers_per_tenant) {
      return fail("conflict", `This change would leave ${servers} servers in the catalog, more than a tenant may hold ${limitNote("max_servers_per_tenant", limits)}. Remove servers first.`);
    }
    const clash = this.modelNameClashes(changed, new Set(removals));
    if (clash.length > 0) {
      return fail("conflict", `Tool names clash once made model-safe: ${clash.join("; ")}. Rename one of each pair.`, { clashes: clash });
    }
    // Re-sending a server's deferTools as it is stored is no change either (a re-run upload does).
    const deferChanges = server?.deferTools != null && this.repo.serverDefer(server.server) !== server.deferTools;
    if (changed.length === 0 && removals.length === 0 && newServers.length === 0 && !deferChanges) {
      return ok({ revision: this.meta.number("revision"), added: 0, updated: 0, unchanged: rows.length, removed: 0 });
    }
    const counts = { added, updated: changed.length - added, unchanged: rows.length - changed.length, removed: removals.length };
    let revision = 0;
    this.ctx.storage.transactionSync(() => {
      this.repo.deleteTools(removals);
      this.forgetTools(removals);
      this.repo.writeTools(changed, this.meta.number("revision") + 1);
      this.repo.ensureServers(newServers);
      if (server?.deferTools) this.repo.setServerDefer(server.server, server.deferTools);
      revision = this.bumpRevision();
      if (server) this.audit(caller, "server.replace", { server: server.server, ...counts, ...(server.deferTools ? { defer_tools: server.deferTools } : {}) });
      else this.audit(caller, "tools.upsert", { ...counts, servers: new Set(rows.map((r) => r.server)).size });
    });
    this.afterCatalogChange(changed, removals);
    return ok({ revision, ...counts });
  }

  /** Pairs of distinct tools that would share a model-facing name (e.g. `a.b` and `a_b` on one server). */
  private modelNameClashes(rows: ToolRow[], leaving: Set<string>): string[] {
    const clashes: string[] = [];
    const byName = new Map<string, string>();
    for (const row of rows) {
      const name = modelName(row);
      const other = byName.get(name);
      if (other && other !== row.id) clashes.push(`'${other}' and '${row.id}' -> '${name}'`);
      byName.set(name, row.id);
    }
    for (const [name, owner] of this.repo.modelNameOwners([...byName.keys()])) {
      const incoming = byName.get(name)!;
      if (owner !== incoming && !leaving.has(owner)) clashes.push(`'${owner}' and '${incoming}' -> '${name}'`);
    }
    return clashes;
  }

  /** Tools leaving the catalog leave every session's activated set and the token cache, in the caller's transaction. */
  private forgetTools(ids: readonly string[]): void {
    this.sessions.dropTools(ids);
    this.views.forgetTools(ids);
  }

  private bumpRevision(): number {
    const next = this.meta.number("revision") + 1;
    this.meta.set("revision", next);
    return next;
  }

  private afterCatalogChange(upserts: ToolRow[], removals: string[]): void {
    this.index.apply(upserts, removals);
    void this.scheduleAlarm(Date.now() + SNAPSHOT_DELAY_MS);
  }

  /**
   * One alarm serves every timed duty (index snapshot, session expiry): it is moved earlier, never
   * later. The planned time is kept in `meta` and decided synchronously, so two concurrent calls
   * cannot interleave between reading and setting the alarm and leave the later time in place.
   */
  private async scheduleAlarm(at: number): Promise<void> {
    const planned = this.meta.get("alarm_at");
    const current = planned === null || Number(planned) < Date.now() - ALARM_OVERDUE_MS ? null : Number(planned);
    if (current !== null && current <= at) return;
    this.meta.set("alarm_at", at);
    await this.ctx.storage.setAlarm(at);
  }

  /**
   * Writes the index snapshot once writes have settled (a cold start then restores instead of
   * rebuilding), ends expired sessions, and plans itself for the next session to expire.
   * Alarms are delivered at least once: every step is safe to repeat.
   */
  override async alarm(): Promise<void> {
    this.meta.delete("alarm_at");
    if (!this.tenantId()) return;
    if (this.index.needsSnapshot()) this.index.writeSnapshot();
    this.ctx.storage.transactionSync(() => this.sessions.deleteExpired(Date.now()));
    const next = this.sessions.nextExpiry();
    if (next !== null) await this.scheduleAlarm(next);
  }

  // ---- catalog reads ------------------------------------------------------------------------------

  async listTools(caller: Caller, options: { after?: string | undefined; server?: string | undefined; limit: number }): Promise<Result<{ tools: ToolRow[]; more: boolean }>> {
    return this.guarded(caller, "search", () => {
      const page = this.repo.listTools({ ...options, limit: options.limit + 1 });
      return ok({ tools: page.slice(0, options.limit), more: page.length > options.limit });
    });
  }

  async getTool(caller: Caller, id: string): Promise<Result<ToolRow>> {
    return this.guarded(caller, "search", () => {
      const row = this.repo.getTool(id);
      return row ? ok(row) : this.unknownTool(id);
    });
  }

  async catalog(caller: Caller): Promise<Result<CatalogInfo>> {
    return this.guarded(caller, "search", async () => {
      const count = await tokenCounter();
      const totals = this.ctx.storage.transactionSync(() => this.views.tokenTotals(count, this.settings().default_defer));
      return ok({
        revision: this.meta.number("revision"),
        tools: totals.tools.total,
        always_loaded: totals.tools.always_loaded,
        deferred: totals.tools.deferred,
        servers: this.repo.servers(),
        tokens: { tokenizer: TOKENIZER, ...totals.tokens },
        index: this.index.lastLoad,
      });
    });
  }

  /** A page of the compact deferred list (`server::tool: description`), by tool id. */
  async deferredList(caller: Caller, options: { after?: string | undefined; server?: string | undefined; limit: number }): Promise<Result<{ revision: number; lines: DeferredLine[]; next: string | null }>> {
    return this.guarded(caller, "search", () => ok({ revision: this.meta.number("revision"), ...this.views.deferredPage(this.settings().default_defer, options) }));
  }

  /** Whether tool search pays off for this catalog and a context window, with the token figures behind the answer. */
  async plan(caller: Caller, request: PlanRequest): Promise<Result<PlanOutput>> {
    return this.guarded(caller, "search", async () => {
      const count = await tokenCounter();
      const settings = this.settings();
      const totals = this.ctx.storage.transactionSync(() => this.views.tokenTotals(count, settings.default_defer));
      const thresholds: PlanThresholds = {
        min_tools: request.min_tools ?? settings.plan.min_tools,
        min_pct: request.min_pct ?? settings.plan.min_pct,
        min_tokens: request.min_tokens ?? settings.plan.min_tokens,
      };
      const search = this.sessionService.toolSearchTool(settings.search_budget);
      const toolSearch = count(definitionText(search, TOOL_SEARCH_NAME));
      const withSearch = totals.tokens.always_loaded + toolSearch + totals.tokens.deferred_list;
      const decision = decidePlan({ contextWindow: request.context_window, deferredTools: totals.tools.deferred, deferredTokens: totals.tokens.deferred_definitions }, thresholds);
      return ok({
        ...decision,
        context_window: request.context_window,
        thresholds,
        share_pct: round((totals.tokens.deferred_definitions / request.context_window) * 100),
        tools: totals.tools,
        tokens: { ...totals.tokens, tool_search: toolSearch, with_search: withSearch, saving: totals.tokens.catalog - withSearch },
        tokenizer: TOKENIZER,
      });
    });
  }

  /** Authorisation only, for routes that compute in the Worker but must still be a tenant's caller. */
  async access(caller: Caller, scope: Scope): Promise<Result<null>> {
    return this.guarded(caller, scope, () => ok(null));
  }

  // ---- search -------------------------------------------------------------------------------------

  async search(caller: Caller, input: SearchInput): Promise<Result<SearchOutput>> {
    return this.guarded(caller, "search", () => {
      const result = input.session_id === undefined ? this.runSearch(input) : this.sessionSearch(input.session_id, input);
      if (!result.ok || !input.with_export_facts) return result;
      return ok({ ...result.value, facts: this.exportFacts(result.value.results.map((r) => ({ id: r.tool_id, server: r.server }))) });
    });
  }

  /**
   * A page of the catalog for a vendor export, by tool id. A page ends at a server boundary unless
   * one server alone fills it, so an OpenAI namespace is split across pages only when it must be.
   */
  async exportPage(caller: Caller, options: { after?: string | undefined; server?: string | undefined; limit: number; withToolSearch: boolean }): Promise<Result<ExportPage>> {
    return this.guarded(caller, "search", () => {
      const rows = this.repo.listTools({ after: options.after, server: options.server, limit: options.limit + 1 });
      let page = rows.slice(0, options.limit);
      const following = rows[options.limit];
      if (following && following.server === page.at(-1)!.server) {
        const start = page.findIndex((r) => r.server === following.server);
        if (start > 0) page = page.slice(0, start);
      }
      const settings = this.settings();
      return ok({
        revision: this.meta.number("revision"),
        rows: page,
        facts: this.exportFacts(page.map((r) => ({ id: r.id, server: r.server }))),
        next: following ? page.at(-1)!.id : null,
        toolSearch: options.withToolSearch && options.after === undefined ? this.sessionService.toolSearchTool(settings.search_budget) : null,
      });
    });
  }

  private exportFacts(tools: { id: string; server: string }[]): ExportFacts {
    const always = this.views.alwaysLoaded(this.settings().default_defer).has;
    return {
      deferred: tools.filter((t) => !always.has(t.id)).map((t) => t.id),
      servers: this.repo.serverSummaries(tools.map((t) => t.server), NAMESPACE_NAMES_SHOWN),
    };
  }

  /**
   * A search inside a session. Everything from the budget check to the activation happens with
   * no await in between and in one storage transaction: concurrent searches run one at a time,
   * so a budget of 3 lets exactly 3 run, and the tools found are active before the answer leaves.
   */
  private sessionSearch(sessionId: string, input: SearchInput): Result<SearchOutput> {
    const now = Date.now();
    const session = this.sessionService.live(sessionId, now);
    if (!session) return this.sessionService.notFound(sessionId);
    const cap = this.sessionService.cap(session);
    const idleTurn = idleTurnDue(session, now);
    if (!idleTurn && isExhausted(session.turnSearches, cap)) {
      // A refused attempt still keeps an idle-turn session's clock running: a model hammering a
      // spent budget is still in the same turn.
      if (session.turnIdleSeconds !== null) this.ctx.storage.transactionSync(() => this.sessions.markSearchAttempt(session.id, now));
      return { ok: false, error: budgetExhausted(cap) };
    }
    return this.ctx.storage.transactionSync((): Result<SearchOutput> => {
      if (idleTurn) {
        this.sessions.startTurn(session.id, false);
        session.turn += 1;
        session.turnSearches = 0;
      }
      const result = this.runSearch(input);
      this.sessions.countSearch(session.id, now);
      this.sessionService.touch(session, now);
      const spent = budget(session.turnSearches + 1, cap);
      if (!result.ok) return { ok: false, error: { ...result.error, budget: spent } };
      const always = new Set(this.sessionService.alwaysLoaded(session).ids);
      const plan = planActivation(
        result.value.results.map((r) => r.tool_id),
        new Set(this.sessions.activated(session.id)),
        always,
      );
      this.sessions.activate(session.id, plan.record, session.turn);
      return ok({ ...result.value, activated: plan.newlyActive, budget: spent });
    });
  }

  private bm25f(): Bm25fParams {
    const weights = this.settings().field_weights;
    return {
      ...DEFAULT_BM25F,
      fields: Object.fromEntries(FIELDS.map((f) => [f, { ...DEFAULT_BM25F.fields[f], weight: weights[f] ?? DEFAULT_BM25F.fields[f].weight }])) as Bm25fParams["fields"],
    };
  }

  private runSearch(input: SearchInput): Result<SearchOutput> {
    const settings = this.settings();
    const threshold = input.threshold ?? settings.matching_threshold ?? loadConfig(this.env).matchingThreshold;
    // A tenant's default_max_results may exceed a deployment that lowered max_results.
    const limit = Math.min(input.max_results ?? settings.default_max_results, loadConfig(this.env).limits.max_results);

    if (input.tool_id !== undefined) {
      const row = this.repo.getTool(input.tool_id);
      if (!row) return this.unknownTool(input.tool_id);
      return ok({ results: [{ ...this.summary(row), score: null, match: "tool-id" }], activated: [], threshold, ...(input.with_rows ? { rows: [row] } : {}) });
    }

    const query = input.query!;
    const index = this.index.get();
    const options = { params: this.bm25f(), synonyms: this.synonyms().compiled };
    const hits = index.search(query, { ...options, limit, threshold, explain: input.explain ?? false });
    // The index keeps no text: names and descriptions come from the rows, the source of truth.
    const rows = this.repo.getTools(hits.map((h) => h.id));
    const byId = new Map(rows.map((row) => [row.id, row]));
    const results = hits.flatMap((hit): SearchResultItem[] => {
      const row = byId.get(hit.id);
      if (!row) return [];
      return [
        {
          ...this.summary(row),
          score: round(hit.score),
          match: hit.match,
          ...(hit.explain ? { explain: explanation(hit.explain) } : {}),
        },
      ];
    });
    let message: string | undefined;
    if (results.length === 0) {
      // Near misses (at least half the threshold) are named: a lone word many tools share is not a match, but the model should know what came close.
      const closest = index.search(query, { ...options, limit: 3, threshold: 0 }).filter((h) => h.match === "terms" && h.score >= threshold / 2);
      message =
        closest.length > 0
          ? `No tool matched "${query}" at threshold ${threshold}. Closest: ${closest.map((h) => `${h.id} (${round(h.score)})`).join(", ")}; ` +
            `they share only words that many tools use. If one of them is meant, search again with more words about the task, or pass a lower "threshold".`
          : `No tool matched "${query}" at threshold ${threshold}. None of the ${index.size} tools in this catalog is about these words, ` +
            `so searching again with synonyms is unlikely to help: tell the user no such tool is available, or pass a lower "threshold" to see weaker matches.`;
    }
    return ok({ results, activated: [], threshold, ...(message ? { message } : {}), ...(input.with_rows ? { rows } : {}) });
  }

  // ---- sessions -----------------------------------------------------------------------------------

  /**
   * Creates a session. Creating it again with the same options (a retried request) answers the
   * existing session with `created: false`; the same id with other options is a conflict.
   */
  async createSession(caller: Caller, options: SessionOptions, tools: SessionTool[] | null): Promise<Result<{ created: boolean; session: SessionView }>> {
    return this.guarded(caller, "search", async (): Promise<Result<{ created: boolean; session: SessionView }>> => {
      const now = Date.now();
      const settings = this.settings();
      const id = options.session_id ?? `ses_${randomString(24, ALPHABET)}`;
      const { session_id: _, ...rest } = options;
      const fingerprint = canonicalJson({ ...rest, tools });
      const existing = this.sessions.get(id);
      if (existing && !isExpired(existing, now)) {
        if (existing.fingerprint !== fingerprint) {
          return fail("conflict", `Session '${id}' already exists with other options. Choose another session_id, or DELETE this session first.`);
        }
        this.sessionService.touch(existing, now);
        return ok({ created: false, session: this.sessionService.view(existing) });
      }
      const limits = loadConfig(this.env).limits;
      const live = this.sessions.countLive(now);
      if (live >= limits.max_sessions_per_tenant) {
        return fail(
          "conflict",
          `This tenant has ${live} live sessions, the most it may hold ${limitNote("max_sessions_per_tenant", limits)}. DELETE sessions that have ended, or lower session_ttl_seconds.`,
        );
      }
      const clash = tools ? this.sessionService.clashes(tools) : null;
      if (clash) return clash;
      const ttlSeconds = options.ttl_seconds ?? settings.session_ttl_seconds;
      const session: SessionRecord = {
        id,
        createdAt: now,
        expiresAt: now + ttlSeconds * 1000,
        ttlSeconds,
        budgetCap: options.budget_cap ?? null,
        turn: 1,
        turnSearches: 0,
        inline: options.inline ?? null,
        deferredToolLoading: options.deferred_tool_loading ?? false,
        toolsVersion: 0,
        turnIdleSeconds: options.turn_idle_seconds ?? null,
        lastSearchAt: null,
      };
      this.ctx.storage.transactionSync(() => {
        if (existing) this.sessions.delete(id); // expired, not yet swept
        this.sessions.insert(session, fingerprint);
        if (tools) session.toolsVersion = this.sessions.replaceTools(id, tools);
      });
      await this.scheduleAlarm(session.expiresAt);
      return ok({ created: true, session: this.sessionService.view(session) });
    });
  }

  /**
   * A new tool-search session behind a new MCP session, whose turns also start after a quiet spell
   * (the tenant's `mcp_turn_idle_seconds`), since MCP clients never say when a user message arrives.
   */
  async openMcpSession(caller: Caller, sessionId: string): Promise<Result<SessionView>> {
    const idle = this.settings().mcp_turn_idle_seconds;
    const created = await this.createSession(caller, { session_id: sessionId, ...(idle > 0 ? { turn_idle_seconds: idle } : {}) }, null);
    return created.ok ? ok(created.value.session) : created;
  }

  async getSession(caller: Caller, sessionId: string): Promise<Result<SessionView>> {
    return this.guarded(caller, "search", () => this.sessionService.with(sessionId, (session) => ok(this.sessionService.view(session))));
  }

  async deleteSession(caller: Caller, sessionId: string): Promise<Result<null>> {
    return this.guarded(caller, "search", () => {
      if (!this.sessionService.live(sessionId, Date.now())) return this.sessionService.notFound(sessionId);
      this.ctx.storage.transactionSync(() => this.sessions.delete(sessionId));
      return ok(null);
    });
  }

  /** Starts the next turn: the search count starts again from 0. */
  async startTurn(caller: Caller, sessionId: string, requested?: number): Promise<Result<SessionView>> {
    return this.guarded(caller, "search", () =>
      this.sessionService.with(sessionId, (session) => {
        const step = turnStep(session.turn, requested);
        if (step.kind === "conflict") return fail("conflict", step.message, { turn: session.turn });
        if (step.kind === "advance") {
          this.sessions.startTurn(session.id, true);
          session.turn += 1;
          session.turnSearches = 0;
        } else {
          this.sessions.endIdleTurns(session.id);
        }
        session.turnIdleSeconds = null;
        return ok(this.sessionService.view(session));
      }),
    );
  }

  /**
   * Replaces the session's client tools as one step (setTools). Calls are chained in the order
   * they reach this object, so concurrent replacements apply one at a time, in that order; each
   * answer carries the `tools_version` it produced.
   */
  async setSessionTools(caller: Caller, sessionId: string, tools: SessionTool[]): Promise<Result<{ session_id: string; tools_version: number; tools: string[] }>> {
    const run = this.toolReplacements.then(() =>
      this.guarded(caller, "search", () =>
        this.sessionService.with(sessionId, (session) => {
          const clash = this.sessionService.clashes(tools);
          if (clash) return clash;
          const version = this.sessions.replaceTools(session.id, tools);
          return ok({ session_id: session.id, tools_version: version, tools: tools.map((t) => t.name) });
        }),
      ),
    );
    this.toolReplacements = run.catch(() => undefined);
    return run;
  }

  /** The definitions to send with the session's next model request, in their stable order. */
  async sessionToolList(caller: Caller, sessionId: string): Promise<Result<SessionToolList>> {
    return this.guarded(caller, "search", () =>
      this.sessionService.with(sessionId, (session) => {
        const entries = this.sessionService.toolList(session);
        return ok({ session_id: session.id, turn: session.turn, budget: budget(session.turnSearches, this.sessionService.cap(session)), entries });
      }),
    );
  }

  /**
   * The definition of a tool the model called, when it is active in the session (in its tool
   * list); otherwise 409 tool-not-active with the rescue message. `name` may be the model-facing
   * name, a tool id or a bare tool name (which must then pick out one active tool).
   */
  async resolve(caller: Caller, sessionId: string, name: string): Promise<Result<ListEntry>> {
    return this.guarded(caller, "search", () => this.sessionService.with(sessionId, (session) => this.sessionService.resolve(session, name)));
  }

  private summary(row: ToolRow): Omit<SearchResultItem, "score" | "match"> {
    return { tool_id: row.id, server: row.server, name: row.name, model_name: modelName(row), description: row.description };
  }

  /** 404 for an unknown id, with near misses: the same name on other servers, then the best matches of its words. */
  private unknownTool(id: string): { ok: false; error: ApiError } {
    const index = this.index.get();
    const name = parseToolId(id)?.name ?? id.split("::").pop() ?? id;
    // An infinite threshold keeps only exact-name and name-tail matches.
    const sameName = index.search(name, { limit: 5, threshold: Infinity }).map((h) => h.id);
    const similar = index.search(id, { limit: 5, threshold: 0 }).map((h) => h.id);
    const suggestions = [...new Set([...sameName, ...similar])].filter((s) => s !== id).slice(0, 5);
    const hint = suggestions.length ? ` Did you mean: ${suggestions.join(", ")}?` : " Search with a query to find the right id.";
    return fail("not-found", `No tool '${id}' in this catalog.${hint}`, { suggestions });
  }
}

function round(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}

/** An explanation as the API shows it: rounded like scores. */
function explanation({ match: _, ...e }: NonNullable<Hit["explain"]>): NonNullable<SearchResultItem["explain"]> {
  return {
    ...e,
    terms: e.terms.map((t) => ({ ...t, weight: round(t.weight), idf: round(t.idf), score: round(t.score) })),
    ...(e.context ? { context: { ...e.context, score: round(e.context.score) } } : {}),
    unit: round(e.unit),
  };
}
