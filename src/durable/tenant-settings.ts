/**
 * The tenant's own record in `meta`: its creation, its settings and its synonym map. Both are read
 * on every search, so they are parsed once and cached until an admin changes them.
 */
import type { z } from "zod";
import { applySettingsPatch, SettingsSchema, type Settings, type SettingsPatch } from "../tenancy/settings.ts";
import { synonymsSchema, type SynonymMap } from "../tenancy/synonyms.ts";
import { fail, ok, type Result } from "../errors.ts";
import { compileSynonyms, type Synonyms } from "../search/query.ts";
import type { Caller } from "../tenancy/keys.ts";
import type { TenantParts } from "./tenant-parts.ts";

export interface TenantSynonyms {
  map: SynonymMap;
  compiled: Synonyms;
}

function invalid(what: string, error: z.ZodError) {
  return fail("invalid-request", `${what} are not valid`, {
    issues: error.issues.map((i) => `${i.path.join(".")}: ${i.message}`),
  });
}

type Parts = Pick<TenantParts, "meta" | "auditLog" | "queryLog" | "config" | "transaction">;

export class TenantSettings {
  private readonly tenant: Parts;
  private cachedSettings: Settings | null = null;
  private cachedSynonyms: TenantSynonyms | null = null;

  constructor(tenant: Parts) {
    this.tenant = tenant;
  }

  /** Operator only (checked by the Worker). */
  createTenant(
    id: string,
    settings: Partial<Settings>,
  ): Result<{ id: string; created_at: string; settings: Settings }> {
    if (this.tenant.meta.tenantId()) return fail("conflict", `Tenant '${id}' already exists.`);
    const parsed = SettingsSchema.safeParse(settings);
    if (!parsed.success) return invalid("settings", parsed.error);
    const created = Date.now();
    this.tenant.transaction(() => {
      this.tenant.meta.set("tenant_id", id);
      this.tenant.meta.set("created_at", created);
      this.tenant.meta.set("settings", JSON.stringify(parsed.data));
      this.tenant.meta.set("revision", 0);
      this.tenant.auditLog.record({ kind: "operator" }, "tenant.create", { settings: Object.keys(settings) });
    });
    this.cachedSettings = parsed.data;
    return ok({ id, created_at: new Date(created).toISOString(), settings: parsed.data });
  }

  current(): Settings {
    this.cachedSettings ??= SettingsSchema.parse(JSON.parse(this.tenant.meta.get("settings") ?? "{}"));
    return this.cachedSettings;
  }

  patch(caller: Caller, patch: SettingsPatch): Result<Settings> {
    let next: Settings;
    try {
      next = applySettingsPatch(this.current(), patch);
    } catch (e) {
      return fail("invalid-request", `settings are not valid: ${e instanceof Error ? e.message : e}`);
    }
    this.tenant.transaction(() => {
      this.tenant.meta.set("settings", JSON.stringify(next));
      // Settings are tuning numbers, not secrets: the entry keeps the patch as sent.
      this.tenant.auditLog.record(caller, "settings.update", { patch });
      // Turning log_queries off deletes the texts already kept: off means no query text is held.
      if (!next.log_queries) this.tenant.queryLog.forgetTexts();
    });
    this.cachedSettings = next;
    return ok(next);
  }

  synonyms(): TenantSynonyms {
    if (!this.cachedSynonyms) {
      const map = JSON.parse(this.tenant.meta.get("synonyms") ?? "{}") as SynonymMap;
      this.cachedSynonyms = { map, compiled: compileSynonyms(map) };
    }
    return this.cachedSynonyms;
  }

  /** Replaces the whole map (an empty map removes every synonym); applies from the next search. */
  replaceSynonyms(caller: Caller, synonyms: SynonymMap): Result<SynonymMap> {
    const parsed = synonymsSchema(this.tenant.config().limits).safeParse(synonyms);
    if (!parsed.success) return invalid("synonyms", parsed.error);
    this.tenant.transaction(() => {
      this.tenant.meta.set("synonyms", JSON.stringify(parsed.data));
      this.tenant.auditLog.record(caller, "synonyms.replace", { keys: Object.keys(parsed.data).length });
    });
    this.cachedSynonyms = { map: parsed.data, compiled: compileSynonyms(parsed.data) };
    return ok(parsed.data);
  }
}
