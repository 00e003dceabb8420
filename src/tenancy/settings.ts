/**
 * Per-tenant settings: what an admin key may tune. Stored as one JSON document; every change is
 * validated as a whole, so a tenant never holds a setting the service cannot honour.
 */
import { z } from "zod";
import { SCORED_FIELDS, type ScoredField } from "../catalog/fields.ts";
import { DeferSchema } from "../catalog/tool.ts";
import { DEFAULT_HALF_LIFE_DAYS } from "../search/learning.ts";
import { SUGGEST_MAX, SUGGEST_THRESHOLD } from "../search/suggest.ts";

const weight = z.number().min(0).max(20);

/**
 * An origin as browsers send it in the Origin header (`https://app.example.com`, `http://localhost:3000`): scheme,
 * host and a port other than the scheme's default, nothing else. Null for anything else (`null`, a path, a typo).
 */
export function normalizedOrigin(value: string): string | null {
  try {
    const url = new URL(value);
    if (url.protocol !== "https:" && url.protocol !== "http:") return null;
    return url.origin;
  } catch {
    return null;
  }
}

/** Whether an Origin header's value is one of `allowed` (compared as normalised origins). */
export function originAllowed(allowed: readonly string[], origin: string): boolean {
  const normal = normalizedOrigin(origin);
  return normal !== null && allowed.includes(normal);
}

const OriginSchema = z
  .string()
  .max(2048)
  .refine(
    (o) => normalizedOrigin(o) === o,
    "an origin is scheme://host[:port] exactly as browsers send it: lower case, no path, no trailing slash, " +
      "no default port (https://app.example.com)",
  );
/** At most this many entries in allowed_origins. */
const MAX_ORIGINS = 100;
const allowedOrigins = z.array(OriginSchema).max(MAX_ORIGINS, `at most ${MAX_ORIGINS} origins`);

export const SettingsSchema = z
  .strictObject({
    matching_threshold: z
      .number()
      .min(0)
      .max(100)
      .nullable()
      .default(null)
      .describe("Minimum score of a ranked hit; null uses the deployment default (MATCHING_THRESHOLD, 1.5)"),
    default_max_results: z.number().int().min(1).max(50).default(5).describe("max_results when a search does not say"),
    search_budget: z.number().int().min(1).max(100).default(3).describe("Searches per agent turn (sessions)"),
    session_ttl_seconds: z
      .number()
      .int()
      .min(60)
      .max(30 * 24 * 3600)
      .default(24 * 3600)
      .describe("Idle time after which a session expires"),
    default_defer: DeferSchema.default("auto").describe("defer for uploaded tools that do not say"),
    mcp_turn_idle_seconds: z
      .number()
      .int()
      .min(0)
      .max(24 * 3600)
      .default(30)
      .describe(
        "MCP sessions: a search this many seconds after the previous one starts a new turn (0: only explicit turns)",
      ),
    field_weights: z
      .strictObject(
        Object.fromEntries(SCORED_FIELDS.map((f) => [f, weight.optional()])) as Record<
          ScoredField,
          z.ZodOptional<typeof weight>
        >,
      )
      .default({})
      .describe(
        "Per-field BM25F weights (name, server, description, params, keywords, usage); unset fields keep the defaults",
      ),
    builtin_synonyms: z
      .boolean()
      .default(true)
      .describe(
        "Expand queries with the built-in vocabulary of software capabilities (pr -> pull request, ticket ~ issue) " +
          "at reduced weight; the tenant's own synonyms extend and override it",
      ),
    learn_from_use: z
      .boolean()
      .default(true)
      .describe(
        "Learn from use: the words of a session's searches are credited to the catalog tool it then resolves, and " +
          "searched as that tool's usage field. false records and credits nothing (what was learned stays until " +
          "DELETE /learned)",
      ),
    learn_half_life_days: z
      .number()
      .min(1)
      .max(3650)
      .default(DEFAULT_HALF_LIFE_DAYS)
      .describe("Learned credit halves every this many days (decay advances daily)"),
    suggest_max: z
      .number()
      .int()
      .min(0)
      .default(SUGGEST_MAX)
      .describe(
        "Suggestions: at most this many deferred tools a turn's user message (`message` on POST .../sessions and " +
          ".../turns) loads at once; 0 turns suggestions off. At most the deployment's max_suggestions (10)",
      ),
    suggest_threshold: z
      .number()
      .min(0)
      .max(100)
      .nullable()
      .default(null)
      .describe(
        `Suggestions: the score a tool must reach to be loaded from a message, stricter than search's threshold; ` +
          `null uses the service default (${SUGGEST_THRESHOLD})`,
      ),
    log_queries: z
      .boolean()
      .default(true)
      .describe(
        "Keep the text of each search (its first query_log_text_chars characters) in the query log, for GET " +
          ".../usage's top no-match queries; false keeps daily counts only, and turning it off deletes the texts " +
          "already kept",
      ),
    plan: z
      .strictObject({
        min_tools: z.number().int().min(0).default(30),
        min_pct: z.number().min(0).max(100).default(5),
        min_tokens: z.number().int().min(0).default(50_000),
      })
      .default({ min_tools: 30, min_pct: 5, min_tokens: 50_000 })
      .describe("When the plan endpoint turns tool search on"),
    allowed_origins: allowedOrigins
      .default([])
      .describe(
        "Origins (scheme://host[:port]) whose pages may call this tenant. A request with an Origin header that is " +
          "neither listed nor the service's own origin gets 403; requests without Origin (servers, CLIs) pass",
      ),
  })
  .meta({
    id: "TenantSettings",
    example: {
      matching_threshold: null,
      default_max_results: 5,
      search_budget: 3,
      session_ttl_seconds: 86_400,
      default_defer: "auto",
      mcp_turn_idle_seconds: 30,
      field_weights: { name: 4 },
      builtin_synonyms: true,
      learn_from_use: true,
      learn_half_life_days: DEFAULT_HALF_LIFE_DAYS,
      suggest_max: SUGGEST_MAX,
      suggest_threshold: null,
      log_queries: true,
      plan: { min_tools: 30, min_pct: 5, min_tokens: 50_000 },
      allowed_origins: [],
    },
  });

export type Settings = z.infer<typeof SettingsSchema>;

/** A PATCH body: any subset, nested objects merged key by key. */
export const SettingsPatchSchema = z
  .strictObject({
    matching_threshold: z.number().min(0).max(100).nullable().optional(),
    default_max_results: z.number().int().min(1).max(50).optional(),
    search_budget: z.number().int().min(1).max(100).optional(),
    session_ttl_seconds: z
      .number()
      .int()
      .min(60)
      .max(30 * 24 * 3600)
      .optional(),
    default_defer: DeferSchema.optional(),
    mcp_turn_idle_seconds: z
      .number()
      .int()
      .min(0)
      .max(24 * 3600)
      .optional(),
    field_weights: z
      .strictObject(
        Object.fromEntries(SCORED_FIELDS.map((f) => [f, weight.nullable().optional()])) as Record<
          ScoredField,
          z.ZodOptional<z.ZodNullable<typeof weight>>
        >,
      )
      .optional(),
    builtin_synonyms: z.boolean().optional(),
    learn_from_use: z.boolean().optional(),
    learn_half_life_days: z.number().min(1).max(3650).optional(),
    suggest_max: z.number().int().min(0).optional(),
    suggest_threshold: z.number().min(0).max(100).nullable().optional(),
    log_queries: z.boolean().optional(),
    plan: z
      .strictObject({
        min_tools: z.number().int().min(0).optional(),
        min_pct: z.number().min(0).max(100).optional(),
        min_tokens: z.number().int().min(0).optional(),
      })
      .optional(),
    allowed_origins: allowedOrigins.optional().describe("Replaces the whole list; [] allows no other origin"),
  })
  .meta({
    id: "TenantSettingsPatch",
    example: { matching_threshold: 2, field_weights: { name: 4 }, search_budget: 5 },
  });

export type SettingsPatch = z.infer<typeof SettingsPatchSchema>;

export function applySettingsPatch(current: Settings, patch: SettingsPatch): Settings {
  const weights: Record<string, number | undefined> = { ...current.field_weights };
  for (const [field, value] of Object.entries(patch.field_weights ?? {})) weights[field] = value ?? undefined;
  return SettingsSchema.parse({
    ...current,
    ...Object.fromEntries(Object.entries(patch).filter(([k]) => k !== "field_weights" && k !== "plan")),
    field_weights: Object.fromEntries(Object.entries(weights).filter(([, v]) => v !== undefined)),
    plan: { ...current.plan, ...patch.plan },
  });
}
