/**
 * Request and response schemas of the HTTP API. These zod objects validate requests, generate
 * the OpenAPI document and give the TypeScript types the Durable Object is called with.
 */
import { z } from "zod";
import { DeferSchema, ServerNameSchema } from "../catalog/tool.ts";
import { OutputFormatSchema } from "../catalog/render.ts";
import type { Limits } from "../config/limits.ts";
import { SettingsSchema } from "../config/settings.ts";
import { ERROR_CODES } from "../errors.ts";
import { FIELDS } from "../search/document.ts";
import { ScopeSchema, TENANT_ID } from "../durable/keys.ts";

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

export const CreateKeySchema = z
  .strictObject({
    scopes: z.array(ScopeSchema).min(1).max(3).describe("Any of search, write, admin"),
    label: z.string().max(200).optional().describe("A note for humans: who or what uses the key"),
  })
  .meta({ id: "CreateKey", example: { scopes: ["search"], label: "agent backend" } });
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
    limit: z.coerce.number().int().min(1).max(limits.max_page_size).default(100),
    server: ServerNameSchema.optional(),
  });
}

export const FormatQuerySchema = z.object({ format: OutputFormatSchema.default("mcp") });

export const ToolDetailSchema = ToolSummarySchema.extend({
  hash: z.string().describe("SHA-256 of the tool's content"),
  keywords: z.array(z.string()),
  definition: z.record(z.string(), z.unknown()).describe("The definition in the requested format"),
}).meta({ id: "ToolDetail" });

export const CatalogSchema = z
  .object({
    revision: z.number().int(),
    tools: z.number().int(),
    servers: z.array(z.object({ name: z.string(), defer_tools: DeferSchema, tools: z.number().int() })),
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
      query: z.string().min(1).max(limits.max_query_chars).optional().describe("Keywords, ranked with BM25F"),
      max_results: z.number().int().min(1).max(limits.max_results).optional().describe("Default: the tenant's default_max_results (5)"),
      threshold: z
        .number()
        .min(0)
        .max(100)
        .optional()
        .describe("Score the best ranked hit must reach (others then need half of it); overrides the tenant and deployment default"),
      format: OutputFormatSchema.optional().describe("Include each result's full definition in this format"),
      explain: z.boolean().optional().describe("Include per-result matched terms and score parts"),
    })
    .refine((r) => (r.tool_id === undefined) !== (r.query === undefined), {
      message: "give exactly one of tool_id (an exact id like 'server::name') or query (keywords)",
    })
    .meta({ id: "SearchRequest", example: { query: "read a file", max_results: 5 } });
}
export type SearchRequest = z.infer<ReturnType<typeof searchRequestSchema>>;

const TermExplanationSchema = z.object({
  term: z.string().describe("An analysed query term: a word stem, or two words for a phrase"),
  weight: z.number().describe("The term's weight in the query: sqrt(repeats) for words, 0.4 for phrases, 1 for synonym expansions"),
  via: z.string().optional().describe("The tenant synonym key that added this term"),
  idf: z.number().describe("ln(1 + (N - n + 0.5) / (n + 0.5)) for a term n of the N tools contain"),
  tf: z.partialRecord(z.enum(FIELDS), z.number()).describe("Occurrences in each field of the tool"),
  score: z.number().describe("The term's part of the score"),
});

export const SearchResultSchema = z
  .object({
    tool_id: z.string(),
    server: z.string(),
    name: z.string(),
    model_name: z.string(),
    description: z.string(),
    score: z.number().nullable().describe("Match score in units of ln(1 + N) (see README: scores and the threshold); null for tool_id lookups"),
    match: z.enum(["tool-id", "exact-name", "name-tail", "terms"]).describe("Why the tool is here"),
    definition: z.record(z.string(), z.unknown()).optional(),
    explain: z
      .object({
        fields: z.partialRecord(z.enum(FIELDS), z.array(z.string())).describe("Query terms found, per field"),
        terms: z.array(TermExplanationSchema).describe("Each matched term's weight, IDF, counts per field and part of the score"),
        context: z
          .object({ from: z.string().describe("The tool on the same server that gave the boost"), score: z.number() })
          .optional()
          .describe("Server context: the part of the score that comes from a strong match on the same server"),
        unit: z.number().describe("ln(1 + N) for N tools: the evidence (sum of BM25F+ parts, in nats) that scores 1"),
      })
      .optional()
      .describe("Why the tool scored what it did: score = sum of terms[].score + context.score"),
  })
  .meta({ id: "SearchResult" });

export const SearchResponseSchema = z
  .object({
    results: z.array(SearchResultSchema),
    activated: z.array(z.string()).describe("Tool ids this search activated in the session"),
    threshold: z.number().describe("The threshold applied"),
    message: z.string().optional().describe("Present when nothing matched: says so plainly"),
  })
  .meta({ id: "SearchResponse" });
