/**
 * The tenant's own record in `meta`: its creation, its settings and its synonym map. Both are read
 * on every search, so they are parsed once and cached until an admin changes them.
 */
import type { z } from "zod";
import { issueReasons, listed } from "../catalog/batch.ts";
import { canonicalJson } from "../catalog/json.ts";
import type { Limits } from "../config/limits.ts";
import { SCORED_FIELDS } from "../catalog/fields.ts";
import { limitNote } from "../config/limits.ts";
import { dayOf } from "../search/learning.ts";
import { DEFAULT_BM25F, type Bm25fParams } from "../search/ranker.ts";
import type { SearchOptions } from "../search/tool-index.ts";
import { applySettingsPatch, SettingsSchema, type Settings, type SettingsPatch } from "../tenancy/settings.ts";
import { synonymsSchema, type SynonymMap } from "../tenancy/synonyms.ts";
import { fail, ok, type ApiError, type Result } from "../errors.ts";
import { compileSynonyms, type Synonyms } from "../search/query.ts";
import type { Caller } from "../tenancy/keys.ts";
import type { TenantParts } from "./tenant-parts.ts";

export interface TenantSynonyms {
  map: SynonymMap;
  compiled: Synonyms;
}

/** How the tenant ranks: what searches and suggestions pass to the index besides the query and its cut-offs. */
export type RankingOptions = Required<
  Pick<SearchOptions, "params" | "synonyms" | "builtinSynonyms" | "maxTerms" | "day" | "halfLifeDays">
>;

function invalid(what: string, error: z.ZodError, limits: Limits) {
  const { shown, not_listed } = listed(issueReasons(error.issues), limits.max_listed_errors);
  return fail(
    "invalid-request",
    `${what} are not valid: ${shown.join("; ")}${not_listed ? ` (${not_listed} more)` : ""}`,
    {
      issues: shown,
      not_listed,
    },
  );
}

type Parts = Pick<TenantParts, "meta" | "auditLog" | "history" | "queryLog" | "config" | "transaction">;

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
    if (!parsed.success) return invalid("settings", parsed.error, this.tenant.config().limits);
    const bounded = this.withinLimits(settings);
    if (bounded) return bounded;
    const created = Date.now();
    this.tenant.transaction(() => {
      this.tenant.meta.set("tenant_id", id);
      this.tenant.meta.set("created_at", created);
      this.tenant.meta.set("settings", JSON.stringify(parsed.data));
      this.tenant.meta.set("revision", 0);
      this.tenant.history.record(0, { kind: "operator" }, "tenant.create", { added: 0, updated: 0, removed: 0 });
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
    const bounded = this.withinLimits(patch);
    if (bounded) return bounded;
    // A patch that changes nothing (`{}`, or the values already set) writes nothing, not even an audit entry.
    if (canonicalJson(next) === canonicalJson(this.current())) return ok(next);
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

  /**
   * The deployment's limits that bound what an admin sets: suggest_max at most max_suggestions. Only a value given is
   * checked: a default above a deployment's lower limit is capped where it is used, so creating a tenant never fails
   * for a setting nobody chose.
   */
  private withinLimits(given: { suggest_max?: number | undefined }): { ok: false; error: ApiError } | null {
    const limits = this.tenant.config().limits;
    if (given.suggest_max === undefined || given.suggest_max <= limits.max_suggestions) return null;
    return fail(
      "invalid-request",
      `suggest_max is at most ${limits.max_suggestions} ${limitNote("max_suggestions", limits)}; nothing was changed.`,
    );
  }

  /** The tenant's ranking as of `now`: its field weights and synonyms, the thesaurus switch, learned terms' decay. */
  ranking(now: number): RankingOptions {
    const settings = this.current();
    return {
      params: bm25f(settings.field_weights),
      synonyms: this.synonyms().compiled,
      builtinSynonyms: settings.builtin_synonyms,
      maxTerms: this.tenant.config().limits.max_query_terms,
      day: dayOf(now),
      halfLifeDays: settings.learn_half_life_days,
    };
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
    if (!parsed.success) return invalid("synonyms", parsed.error, this.tenant.config().limits);
    if (canonicalJson(parsed.data) === canonicalJson(this.synonyms().map)) return ok(parsed.data);
    this.tenant.transaction(() => {
      this.tenant.meta.set("synonyms", JSON.stringify(parsed.data));
      this.tenant.auditLog.record(caller, "synonyms.replace", { keys: Object.keys(parsed.data).length });
    });
    this.cachedSynonyms = { map: parsed.data, compiled: compileSynonyms(parsed.data) };
    return ok(parsed.data);
  }
}

/** The default BM25F parameters with the tenant's field weights. */
function bm25f(weights: Settings["field_weights"]): Bm25fParams {
  return {
    ...DEFAULT_BM25F,
    fields: Object.fromEntries(
      SCORED_FIELDS.map((f) => [
        f,
        { ...DEFAULT_BM25F.fields[f], weight: weights[f] ?? DEFAULT_BM25F.fields[f].weight },
      ]),
    ) as Bm25fParams["fields"],
  };
}
