/**
 * Request and response schemas of the HTTP API. These zod objects validate requests, generate
 * the OpenAPI document and give the TypeScript types the Durable Object is called with.
 */
import { z } from "zod";
import { DeferSchema, ServerNameSchema } from "../catalog/tool.ts";
import { OutputFormatSchema } from "../catalog/render.ts";
import { limitNote, type Limits } from "../config/limits.ts";
import { SettingsSchema } from "../config/settings.ts";
import { ERROR_CODES } from "../errors.ts";
import { FIELDS } from "../search/document.ts";
import { AUDIT_ACTIONS } from "../durable/audit-log.ts";
import { ScopeSchema, TENANT_ID } from "../durable/keys.ts";
import { SessionIdSchema } from "../sessions/session.ts";

export const ErrorSchema = z
  .looseObject({
    error: z.enum(ERROR_CODES).describe("Stable error code"),
    message: z.string().describe("What went wrong and what to do, for a human or a model"),
  })
  .meta({ id: "Error", example: { error: "not-found", message: "No tool 'github::lst_issues'. Did you mean: github::list_issues?" } });

export const TenantIdSchema = z.string().regex(TENANT_ID, "tenant ids are 1-63 characters of a-z 0-9 -, starting with a letter or digit").meta({ example: "acme" });

// ---- tenants and keys -------------------------------------------------------------------------

export const CreateTenantSchema = z
  .strictObject({ id: TenantIdSchema, settings: SettingsSchema.partial().optional() })
  .meta({ id: "CreateTenant" });
export const TenantSchema = z.object({ id: z.string(), created_at: z.string(), settings: SettingsSchema }).meta({ id: "Tenant" });

export function createKeySchema(limits: Limits) {
  return z
    .strictObject({
      scopes: z.array(ScopeSchema).min(1).max(3).describe("Any of search, write, admin"),
      label: z
        .string()
        .max(limits.max_label_chars, `labels are at most ${limits.max_label_chars} characters ${limitNote("max_label_chars", limits)}`)
        .optional()
        .describe("A note for humans: who or what uses the key"),
    })
    .meta({ id: "CreateKey", example: { scopes: ["search"], label: "agent backend" } });
}
export const KeyInfoSchema = z
  .object({
    id: z.string(),
    scopes: z.array(ScopeSchema),
    label: z.string().nullable(),
    created_at: z.string(),
    revoked_at: z.string().nullable(),
  })
  .meta({ id: "KeyInfo" });
export const CreatedKeySchema = KeyInfoSchema.extend({ key: z.string().describe("The secret key. Shown once: store it now.") }).meta({ id: "CreatedKey" });

// ---- audit trail --------------------------------------------------------------------------------

export const AuditEntrySchema = z
  .object({
    seq: z.number().int().describe("Increases with every entry; never reused"),
    at: z.string().describe("When the change was made (ISO 8601)"),
    actor: z.string().describe('Who made it: "operator" or "key:<key id>"'),
    action: z.enum(AUDIT_ACTIONS),
    revision: z.number().int().describe("The catalog revision once the change was made"),
    details: z.record(z.string(), z.unknown()).describe("Ids and counts (never secrets or tool bodies): key_id and scopes, the settings patch, tools added/updated/unchanged/removed, the server"),
  })
  .meta({
    id: "AuditEntry",
    example: { seq: 12, at: "2026-01-05T10:00:00.000Z", actor: "key:k3xa9b2c4d5e", action: "tools.upsert", revision: 7, details: { added: 3, updated: 1, unchanged: 40, removed: 0, servers: 2 } },
  });

export const AuditPageSchema = z
  .object({
    entries: z.array(AuditEntrySchema).describe("Newest first"),
    next_cursor: z.string().nullable().describe("Pass as `cursor` for older entries; null at the end"),
  })
  .meta({ id: "AuditPage" });

export function auditQuerySchema(limits: Limits) {
  return z.object({
    cursor: z.string().max(64).optional(),
    limit: z.coerce.number().int().min(1).max(limits.max_page_size, `pages hold at most ${limits.max_page_size} entries ${limitNote("max_page_size", limits)}`).default(100),
  });
}

// ---- catalog ------------------------------------------------------------------------------------

export const ToolBatchResultSchema = z
  .object({
    revision: z.number().int().describe("Catalog revision after the change"),
    added: z.number().int(),
    updated: z.number().int(),
    unchanged: z.number().int().describe("Tools whose content hash matched: not rewritten, not re-indexed"),
    removed: z.number().int(),
  })
  .meta({ id: "ToolBatchResult" });

export const ToolSummarySchema = z
  .object({
    tool_id: z.string().meta({ example: "github::list_issues" }),
    server: z.string(),
    name: z.string(),
    model_name: z.string().describe("The name models call (unique, valid for every vendor format)"),
    title: z.string().nullable(),
    description: z.string(),
    defer: DeferSchema.nullable().describe("The tool's own declaration; null inherits"),
  })
  .meta({ id: "ToolSummary" });

export const ToolPageSchema = z
  .object({ tools: z.array(ToolSummarySchema), next_cursor: z.string().nullable().describe("Pass as `cursor` for the next page; null at the end") })
  .meta({ id: "ToolPage" });

export function listToolsQuerySchema(limits: Limits) {
  return z.object({
    cursor: z.string().max(1024).optional(),
    limit: z.coerce.number().int().min(1).max(limits.max_page_size, `pages hold at most ${limits.max_page_size} entries ${limitNote("max_page_size", limits)}`).default(100),
    server: ServerNameSchema.optional(),
  });
}

export const FormatQuerySchema = z.object({ format: OutputFormatSchema.default("mcp") });

export const ToolDetailSchema = ToolSummarySchema.extend({
  hash: z.string().describe("SHA-256 of the tool's content"),
  keywords: z.array(z.string()),
  definition: z.record(z.string(), z.unknown()).describe("The definition in the requested format"),
}).meta({ id: "ToolDetail" });

export const TokenFiguresSchema = z
  .object({
    tokenizer: z.string().describe("The BPE encoding counted with (cl100k_base; see README: token counts)"),
    catalog: z.number().int().describe("All definitions (name, description, parameter schema as JSON)"),
    always_loaded: z.number().int().describe("Definitions of the always-loaded tools"),
    deferred_definitions: z.number().int().describe("Definitions of the deferred tools: what tool search keeps out of the context"),
    deferred_list: z.number().int().describe("The compact deferred list (one line per deferred tool)"),
  })
  .meta({ id: "TokenFigures" });

export const CatalogSchema = z
  .object({
    revision: z.number().int(),
    tools: z.number().int(),
    always_loaded: z.number().int().describe("Tools always in the model's tool list (defer / defer_tools / default_defer \"never\")"),
    deferred: z.number().int().describe("Tools reached through tool_search"),
    servers: z.array(z.object({ name: z.string(), defer_tools: DeferSchema, tools: z.number().int() })),
    tokens: TokenFiguresSchema,
    index: z
      .object({ source: z.enum(["snapshot", "rebuild"]), reason: z.string().optional(), tools: z.number().int(), ms: z.number() })
      .nullable()
      .describe("How the search index was last loaded into memory (null: not loaded since the object started)"),
  })
  .meta({ id: "Catalog" });

// ---- search -------------------------------------------------------------------------------------

export function searchRequestSchema(limits: Limits) {
  return z
    .strictObject({
      tool_id: z.string().min(1).max(260).optional().describe("Exact id `server::name`: returns that tool or 404 with suggestions"),
      query: z
        .string()
        .min(1)
        .max(limits.max_query_chars, `queries are at most ${limits.max_query_chars} characters ${limitNote("max_query_chars", limits)}`)
        .optional()
        .describe("Keywords, ranked with BM25F"),
      max_results: z
        .number()
        .int()
        .min(1)
        .max(limits.max_results, `max_results is at most ${limits.max_results} ${limitNote("max_results", limits)}`)
        .optional()
        .describe("Default: the tenant's default_max_results (5)"),
      threshold: z.number().min(0).max(100).optional().describe("Minimum score for ranked hits; overrides the tenant and deployment default"),
      format: OutputFormatSchema.optional().describe("Include each result's full definition in this format"),
      explain: z.boolean().optional().describe("Include per-result matched terms and score parts"),
      session_id: SessionIdSchema.optional().describe(
        "Search inside this session: counts against its per-turn budget (429 when spent) and activates the results before the answer is sent",
      ),
    })
    .refine((r) => (r.tool_id === undefined) !== (r.query === undefined), {
      message: "give exactly one of tool_id (an exact id like 'server::name') or query (keywords)",
    })
    .meta({ id: "SearchRequest", example: { query: "read a file", max_results: 5 } });
}
export type SearchRequest = z.infer<ReturnType<typeof searchRequestSchema>>;

const TermExplanationSchema = z.object({
  term: z.string(),
  idf: z.number(),
  tf: z.partialRecord(z.enum(FIELDS), z.number()),
  score: z.number(),
});

export const SearchResultSchema = z
  .object({
    tool_id: z.string(),
    server: z.string(),
    name: z.string(),
    model_name: z.string(),
    description: z.string(),
    score: z.number().nullable().describe("BM25F score (see README: scores and the threshold); null for tool_id lookups"),
    match: z.enum(["tool-id", "exact-name", "name-tail", "terms"]).describe("Why the tool is here"),
    definition: z.record(z.string(), z.unknown()).optional(),
    explain: z
      .object({
        fields: z.partialRecord(z.enum(FIELDS), z.array(z.string())).describe("Query terms found, per field"),
        terms: z.array(TermExplanationSchema).describe("Each matched term's IDF, counts per field and share of the score"),
      })
      .optional(),
  })
  .meta({ id: "SearchResult" });

export const BudgetSchema = z
  .object({
    used: z.number().int().describe("Searches run in the current turn"),
    cap: z.number().int().describe("Searches allowed per turn"),
    remaining: z.number().int(),
  })
  .meta({ id: "Budget" });

export const SearchResponseSchema = z
  .object({
    results: z.array(SearchResultSchema),
    activated: z
      .array(z.string())
      .describe("Tool ids this search made callable in its session (the results that were neither activated before nor always loaded); empty without session_id"),
    budget: BudgetSchema.optional().describe("The session's budget after this search (with session_id only)"),
    threshold: z.number().describe("The threshold applied"),
    message: z.string().optional().describe("Present when nothing matched: says so plainly"),
  })
  .meta({ id: "SearchResponse" });
