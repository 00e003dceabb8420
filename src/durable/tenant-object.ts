/**
 * One Durable Object per tenant: its keys, settings, catalog rows (SQLite) and search index
 * (memory, snapshotted to SQLite). Every method authorises its caller first, then works on this
 * tenant's storage only; nothing here can reach another tenant's object.
 *
 * Methods return Result values instead of throwing, so that an expected refusal (404, 409...)
 * crosses the RPC boundary intact; a throw means a bug and becomes a 500 without detail.
 */
import { DurableObject } from "cloudflare:workers";
import { modelName } from "../catalog/render.ts";
import { parseToolId, type Defer, type ToolRow } from "../catalog/tool.ts";
import { loadConfig } from "../config/env.ts";
import { applySettingsPatch, SettingsSchema, type Settings, type SettingsPatch } from "../config/settings.ts";
import { fail, ok, type ApiError, type Result } from "../errors.ts";
import { FIELDS } from "../search/document.ts";
import { DEFAULT_BM25F, type Bm25fParams } from "../search/ranker.ts";
import type { Hit } from "../search/tool-index.ts";
import { CatalogRepo } from "./catalog-repo.ts";
import { IndexCache, type LoadReport } from "./index-cache.ts";
import { digestsEqual, generateKey, hashSecret, type Scope } from "./keys.ts";
import { Meta } from "./meta.ts";
import { migrate } from "./schema.ts";

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
  /** Return the result rows too, so the caller can render definitions. */
  with_rows?: boolean;
}

export interface SearchResultItem {
  tool_id: string;
  server: string;
  name: string;
  model_name: string;
  description: string;
  score: number | null;
  match: "tool-id" | Hit["match"];
  explain?: { fields: NonNullable<Hit["explain"]>["fields"]; terms: NonNullable<Hit["explain"]>["terms"] };
}

export interface SearchOutput {
  results: SearchResultItem[];
  threshold: number;
  message?: string;
  rows?: ToolRow[];
}

export interface CatalogInfo {
  revision: number;
  tools: number;
  servers: { name: string; defer_tools: Defer; tools: number }[];
  index: LoadReport | null;
}

/** After a catalog change, the snapshot is rewritten this long after the last write (writes batch up). */
const SNAPSHOT_DELAY_MS = 2_000;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export class TenantObject extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  private readonly meta: Meta;
  private readonly repo: CatalogRepo;
  private readonly index: IndexCache;
  private readonly keys = new Map<string, KeyRecord | null>();
  private cachedSettings: Settings | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.meta = new Meta(this.sql);
    this.repo = new CatalogRepo(this.sql);
    // After a rebuild (no usable snapshot), write one soon so that the next cold start restores.
    this.index = new IndexCache(this.sql, this.repo, this.meta, () => void this.scheduleAlarm(Date.now() + SNAPSHOT_DELAY_MS));
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

  private keyRecord(keyId: string): KeyRecord | null {
    if (!this.keys.has(keyId)) {
      const r = this.sql.exec<{ hash: ArrayBuffer; scopes: string; revoked_at: number | null }>(`SELECT hash, scopes, revoked_at FROM keys WHERE id = ?`, keyId).toArray()[0];
      this.keys.set(keyId, r ? { hash: new Uint8Array(r.hash), scopes: JSON.parse(r.scopes) as Scope[], revoked: r.revoked_at !== null } : null);
    }
    return this.keys.get(keyId) ?? null;
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
      this.meta.set("settings", JSON.stringify(next));
      this.cachedSettings = next;
      return ok(next);
    });
  }

  // ---- keys ---------------------------------------------------------------------------------------

  async createKey(caller: Caller, scopes: Scope[], label: string | null): Promise<Result<KeyInfo & { key: string }>> {
    return this.guarded(caller, "admin", async () => {
      const max = loadConfig(this.env).limits.max_keys_per_tenant;
      const count = this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM keys`).one().n;
      if (count >= max) return fail("conflict", `This tenant holds ${count} keys; the limit is ${max}. Revoke unused keys first.`);
      const fresh = generateKey(this.tenantId()!);
      const created = Date.now();
      const unique = [...new Set(scopes)];
      this.sql.exec(
        `INSERT INTO keys (id, hash, scopes, label, created_at) VALUES (?, ?, ?, ?, ?)`,
        fresh.keyId,
        await hashSecret(fresh.secret),
        JSON.stringify(unique),
        label,
        created,
      );
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

  async revokeKey(caller: Caller, keyId: string): Promise<Result<null>> {
    return this.guarded(caller, "admin", () => {
      const exists = this.sql.exec(`SELECT 1 FROM keys WHERE id = ?`, keyId).toArray().length > 0;
      if (!exists) return fail("not-found", `No key '${keyId}' in this tenant.`);
      this.sql.exec(`UPDATE keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?`, Date.now(), keyId);
      this.keys.delete(keyId); // takes effect on the very next request
      return ok(null);
    });
  }

  // ---- catalog writes -----------------------------------------------------------------------------

  async upsertTools(caller: Caller, rows: ToolRow[]): Promise<Result<BatchCounts>> {
    return this.guarded(caller, "write", () => this.writeCatalog(rows, [], null));
  }

  /** setTools semantics: after this, the server holds exactly `rows` (an empty list removes them all). */
  async replaceServer(caller: Caller, server: string, rows: ToolRow[], deferTools: Defer | null): Promise<Result<BatchCounts>> {
    return this.guarded(caller, "write", () => {
      const keep = new Set(rows.map((r) => r.id));
      const removals = this.repo.serverToolIds(server).filter((id) => !keep.has(id));
      return this.writeCatalog(rows, removals, { server, deferTools });
    });
  }

  async deleteServer(caller: Caller, server: string): Promise<Result<BatchCounts>> {
    return this.guarded(caller, "write", () => {
      if (!this.repo.serverExists(server)) return fail("not-found", `No server '${server}' in this catalog.`);
      const removals = this.repo.serverToolIds(server);
      let revision = 0;
      this.ctx.storage.transactionSync(() => {
        this.repo.deleteServer(server);
        revision = this.bumpRevision();
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
        revision = this.bumpRevision();
      });
      this.afterCatalogChange([], [id]);
      return ok({ revision, added: 0, updated: 0, unchanged: 0, removed: 1 });
    });
  }

  /**
   * The one write path. Checks everything first (capacity, model-name clashes), then writes rows,
   * removals, servers and the revision in one transaction: a refused or failed write changes nothing.
   * No await happens between the checks and the commit, so concurrent writers apply one at a time.
   */
  private writeCatalog(rows: ToolRow[], removals: string[], server: { server: string; deferTools: Defer | null } | null): Result<BatchCounts> {
    const limits = loadConfig(this.env).limits;
    const existing = this.repo.hashes(rows.map((r) => r.id));
    const changed = rows.filter((r) => existing.get(r.id) !== r.hash);
    const added = rows.filter((r) => !existing.has(r.id)).length;
    const total = this.repo.countTools() + added - removals.length;
    if (total > limits.max_tools_per_tenant) {
      return fail("invalid-request", `This change would leave ${total} tools in the catalog; the limit is ${limits.max_tools_per_tenant}.`);
    }
    const clash = this.modelNameClashes(changed, new Set(removals));
    if (clash.length > 0) {
      return fail("conflict", `Tool names clash once made model-safe: ${clash.join("; ")}. Rename one of each pair.`, { clashes: clash });
    }
    const nothingChanges = changed.length === 0 && removals.length === 0 && (server?.deferTools ?? null) === null;
    if (nothingChanges) {
      if (server) this.repo.ensureServers([server.server]);
      return ok({ revision: this.meta.number("revision"), added: 0, updated: 0, unchanged: rows.length, removed: 0 });
    }
    let revision = 0;
    this.ctx.storage.transactionSync(() => {
      this.repo.deleteTools(removals);
      this.repo.writeTools(changed, this.meta.number("revision") + 1);
      this.repo.ensureServers([...rows.map((r) => r.server), ...(server ? [server.server] : [])]);
      if (server?.deferTools) this.repo.setServerDefer(server.server, server.deferTools);
      revision = this.bumpRevision();
    });
    this.afterCatalogChange(changed, removals);
    return ok({ revision, added, updated: changed.length - added, unchanged: rows.length - changed.length, removed: removals.length });
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

  private bumpRevision(): number {
    const next = this.meta.number("revision") + 1;
    this.meta.set("revision", next);
    return next;
  }

  private afterCatalogChange(upserts: ToolRow[], removals: string[]): void {
    this.index.apply(upserts, removals);
    void this.scheduleAlarm(Date.now() + SNAPSHOT_DELAY_MS);
  }

  /** One alarm serves every timed duty: it is moved earlier, never later. */
  private async scheduleAlarm(at: number): Promise<void> {
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
  }

  /** Writes the index snapshot once writes have settled, so a cold start restores instead of rebuilding. */
  override async alarm(): Promise<void> {
    if (this.tenantId() && this.index.needsSnapshot()) this.index.writeSnapshot();
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
    return this.guarded(caller, "search", () =>
      ok({ revision: this.meta.number("revision"), tools: this.repo.countTools(), servers: this.repo.servers(), index: this.index.lastLoad }),
    );
  }

  // ---- search -------------------------------------------------------------------------------------

  async search(caller: Caller, input: SearchInput): Promise<Result<SearchOutput>> {
    return this.guarded(caller, "search", () => this.runSearch(input));
  }

  private bm25f(): Bm25fParams {
    const weights = this.settings().field_weights;
    return {
      k1: DEFAULT_BM25F.k1,
      fields: Object.fromEntries(FIELDS.map((f) => [f, { ...DEFAULT_BM25F.fields[f], weight: weights[f] ?? DEFAULT_BM25F.fields[f].weight }])) as Bm25fParams["fields"],
    };
  }

  private runSearch(input: SearchInput): Result<SearchOutput> {
    const settings = this.settings();
    const threshold = input.threshold ?? settings.matching_threshold ?? loadConfig(this.env).matchingThreshold;
    const limit = input.max_results ?? settings.default_max_results;

    if (input.tool_id !== undefined) {
      const row = this.repo.getTool(input.tool_id);
      if (!row) return this.unknownTool(input.tool_id);
      return ok({ results: [{ ...this.summary(row), score: null, match: "tool-id" }], threshold, ...(input.with_rows ? { rows: [row] } : {}) });
    }

    const query = input.query!;
    const index = this.index.get();
    const hits = index.search(query, { limit, threshold, params: this.bm25f(), explain: input.explain ?? false });
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
          ...(hit.explain ? { explain: { fields: hit.explain.fields, terms: hit.explain.terms.map((t) => ({ ...t, idf: round(t.idf), score: round(t.score) })) } } : {}),
        },
      ];
    });
    const message =
      results.length === 0
        ? `No tool matched "${query}" at threshold ${threshold}. None of the ${index.size} tools in this catalog is about these words, ` +
          `so searching again with synonyms is unlikely to help: tell the user no such tool is available, or pass a lower "threshold" to see weaker matches.`
        : undefined;
    return ok({ results, threshold, ...(message ? { message } : {}), ...(input.with_rows ? { rows } : {}) });
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
