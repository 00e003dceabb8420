/**
 * The API's contract: request and response schemas of the HTTP API. These zod objects validate requests (http/),
 * generate the OpenAPI document, and give the types of what the tenant object takes and answers (durable/) and of
 * the typed client (client/): each shape is declared once, here.
 */
import { z } from "zod";
import { schemasFor } from "../catalog/batch.ts";
import { DeferSchema, ServerNameSchema } from "../catalog/tool.ts";
import { OUTPUT_FORMATS, OutputFormatSchema } from "../catalog/render.ts";
import { VENDOR_SEARCH_FORMATS, type VendorSearchFormat } from "../catalog/vendor.ts";
import { DEFAULT_LIMITS, limitNote, type Limits } from "../config/limits.ts";
import { SettingsSchema } from "../tenancy/settings.ts";
import { ERROR_CODES } from "../errors.ts";
import { SCORED_FIELDS } from "../catalog/fields.ts";
import { ScopeSchema, TENANT_ID } from "../tenancy/keys.ts";
import { NAME_COVERAGE, NAME_EXTRA, NAMING_QUERY_WORDS } from "../search/naming.ts";
import { SERVICE_BOOST } from "../search/services.ts";
import { VERB_BOOST } from "../search/verbs.ts";
import { OPERATION_SHARE } from "../search/operations.ts";
import { REPLY_SHARE } from "../search/message.ts";
import { SessionIdSchema } from "../sessions/session.ts";
import { HistoryFiguresSchema } from "./history-schemas.ts";

export const ErrorSchema = z
  .looseObject({
    error: z.enum(ERROR_CODES).describe("Stable error code"),
    message: z.string().describe("What went wrong and what to do, for a human or a model"),
  })
  .meta({
    id: "Error",
    example: { error: "not-found", message: "No tool 'github::lst_issues'. Did you mean: github::list_issues?" },
  });

export const TenantIdSchema = z
  .string()
  .regex(TENANT_ID, "tenant ids are 1-63 characters of a-z 0-9 -, starting with a letter or digit")
  .meta({ example: "acme" });

// ---- tenants and keys -------------------------------------------------------------------------

export const CreateTenantSchema = z
  .strictObject({ id: TenantIdSchema, settings: SettingsSchema.partial().optional() })
  .meta({ id: "CreateTenant", example: { id: "acme", settings: { default_max_results: 8 } } });
export const TenantSchema = z.object({ id: z.string(), created_at: z.string(), settings: SettingsSchema }).meta({
  id: "Tenant",
  example: {
    id: "acme",
    created_at: "2026-11-29T12:00:00.000Z",
    settings: SettingsSchema.parse({ default_max_results: 8 }),
  },
});

export function createKeySchema(limits: Limits) {
  return z
    .strictObject({
      scopes: z.array(ScopeSchema).min(1).max(3).describe("Any of search, write, admin"),
      label: z
        .string()
        .max(
          limits.max_label_chars,
          `labels are at most ${limits.max_label_chars} characters ${limitNote("max_label_chars", limits)}`,
        )
        .optional()
        .describe("A note for humans: who or what uses the key"),
    })
    .meta({ id: "CreateKey", example: { scopes: ["search"], label: "agent backend" } });
}
/**
 * The key-creation body at the default limits: for the typed client's types (routes build theirs from the
 * deployment's).
 */
export const CreateKeySchema = createKeySchema(DEFAULT_LIMITS);
export const KeyInfoSchema = z
  .object({
    id: z.string(),
    scopes: z.array(ScopeSchema),
    label: z.string().nullable(),
    created_at: z.string(),
    revoked_at: z.string().nullable(),
  })
  .meta({
    id: "KeyInfo",
    example: {
      id: "k3x9q2mzt7ab",
      scopes: ["search", "write"],
      label: "agent backend",
      created_at: "2026-11-29T12:00:00.000Z",
      revoked_at: null,
    },
  });
export type KeyInfo = z.infer<typeof KeyInfoSchema>;
export const KeyListSchema = z.object({ keys: z.array(KeyInfoSchema) }).meta({ id: "KeyList" });
export const PurgedSessionsSchema = z
  .object({ key_id: z.string(), ended: z.number().int().describe("How many of the key's sessions were ended") })
  .meta({ id: "PurgedSessions", example: { key_id: "k3x9q2mzt7ab", ended: 12 } });
export const CreatedKeySchema = KeyInfoSchema.extend({
  key: z.string().describe("The secret key. Shown once: store it now."),
}).meta({
  id: "CreatedKey",
  example: {
    id: "k3x9q2mzt7ab",
    key: "tsk_acme_k3x9q2mzt7ab_Zq8v0Lr3Xo5Tn7Wc2Ye4Ub6Mi1Pa9Sd3Fg5Hj7Kl0",
    scopes: ["search", "write"],
    label: "agent backend",
    created_at: "2026-11-29T12:00:00.000Z",
    revoked_at: null,
  },
});

// ---- audit trail --------------------------------------------------------------------------------

const AUDIT_ACTIONS = [
  "tenant.create",
  "key.create",
  "key.revoke",
  "sessions.purge",
  "settings.update",
  "synonyms.replace",
  "tools.upsert",
  "server.replace",
  "server.delete",
  "tool.delete",
  "catalog.rollback",
  "catalog.restore",
  "learned.reset",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

const AuditEntrySchema = z
  .object({
    seq: z.number().int().describe("Increases with every entry; never reused"),
    at: z.string().describe("When the change was made (ISO 8601)"),
    actor: z.string().describe('Who made it: "operator" or "key:<key id>"'),
    action: z.enum(AUDIT_ACTIONS),
    revision: z.number().int().describe("The catalog revision once the change was made"),
    details: z
      .record(z.string(), z.unknown())
      .describe(
        "Ids and counts (never secrets or tool bodies): key_id and scopes, the settings patch, " +
          "tools added/updated/unchanged/removed, the server, the learned tools and terms forgotten",
      ),
  })
  .meta({
    id: "AuditEntry",
    example: {
      seq: 12,
      at: "2026-01-05T10:00:00.000Z",
      actor: "key:k3xa9b2c4d5e",
      action: "tools.upsert",
      revision: 7,
      details: { added: 3, updated: 1, unchanged: 40, removed: 0, servers: 2 },
    },
  });

export const AuditPageSchema = z
  .object({
    entries: z.array(AuditEntrySchema).describe("Newest first"),
    next_cursor: z.string().nullable().describe("Pass as `cursor` for older entries; null at the end"),
  })
  .meta({ id: "AuditPage" });
export type AuditEntry = z.infer<typeof AuditEntrySchema>;

export function auditQuerySchema(limits: Limits) {
  return z.object({
    cursor: z.string().max(64).optional(),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(
        limits.max_page_size,
        `pages hold at most ${limits.max_page_size} entries ${limitNote("max_page_size", limits)}`,
      )
      .default(Math.min(100, limits.max_page_size)),
  });
}

// ---- catalog ------------------------------------------------------------------------------------

const EXAMPLE_TOOL = {
  name: "list_issues",
  description: "List issues in a GitHub repository, filtered by state and labels",
  inputSchema: {
    type: "object",
    properties: {
      repo: { type: "string", description: "owner/name" },
      state: { type: "string", enum: ["open", "closed", "all"] },
    },
    required: ["repo"],
  },
};

/** POST .../tools: a batch of tools in any accepted format, each naming its server. */
export function toolBatchBodySchema(limits: Limits) {
  return z
    .strictObject({
      tools: z
        .array(schemasFor(limits).item)
        .describe(
          "Tools in any accepted format, each with `server`; a namespace's functions go to the server of its name",
        ),
    })
    .meta({ id: "ToolBatch", example: { tools: [{ server: "github", ...EXAMPLE_TOOL }] } });
}

/** PUT .../servers/{server}/tools: the server's whole new set; items may omit `server`. */
export function serverToolsBodySchema(limits: Limits) {
  return z
    .strictObject({
      tools: z
        .array(schemasFor(limits).item)
        .describe("The server's tools in any accepted format; `server` may be omitted; a namespace must be named so"),
      defer_tools: DeferSchema.optional().describe("The server's deferTools; kept until changed"),
    })
    .meta({ id: "ServerTools", example: { tools: [EXAMPLE_TOOL], defer_tools: "auto" } });
}

export const ToolBatchResultSchema = z
  .object({
    revision: z.number().int().describe("Catalog revision after the change"),
    added: z.number().int(),
    updated: z.number().int(),
    unchanged: z.number().int().describe("Tools whose content hash matched: not rewritten, not re-indexed"),
    removed: z.number().int(),
    renamed: z
      .array(z.object({ tool_id: z.string(), model_name: z.string() }))
      .optional()
      .describe(
        "Present when tools of this request have a model-facing name other than the usual `server__name`: their " +
          "usual name was already taken by another tool (`a.b` and `a_b` on one server), so the later one ends in " +
          "`_` and 6 hex digits. Stored with the tool: it stays the same for as long as the tool exists",
      ),
  })
  .meta({
    id: "ToolBatchResult",
    example: { revision: 14, added: 12, updated: 1, unchanged: 62, removed: 0 },
    examples: [
      { revision: 14, added: 12, updated: 1, unchanged: 62, removed: 0 },
      {
        revision: 15,
        added: 2,
        updated: 0,
        unchanged: 0,
        removed: 0,
        renamed: [{ tool_id: "solve::solve.quadratic_equation", model_name: "solve__solve_quadratic_equation_5c1e0a" }],
      },
    ],
  });
export type ToolBatchResult = z.infer<typeof ToolBatchResultSchema>;

const EXAMPLE_SUMMARY = {
  tool_id: "github::list_issues",
  server: "github",
  name: "list_issues",
  model_name: "github__list_issues",
  title: null,
  description: EXAMPLE_TOOL.description,
  defer: null,
};

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
  .meta({ id: "ToolSummary", example: EXAMPLE_SUMMARY });

export const ToolPageSchema = z
  .object({
    tools: z.array(ToolSummarySchema),
    next_cursor: z.string().nullable().describe("Pass as `cursor` for the next page; null at the end"),
  })
  .meta({ id: "ToolPage", example: { tools: [EXAMPLE_SUMMARY], next_cursor: "Z2l0aHViOjpsaXN0X2lzc3Vlcw" } });

export function listToolsQuerySchema(limits: Limits) {
  return z.object({
    cursor: z.string().max(1024).optional(),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(
        limits.max_page_size,
        `pages hold at most ${limits.max_page_size} entries ${limitNote("max_page_size", limits)}`,
      )
      .default(Math.min(100, limits.max_page_size)),
    server: ServerNameSchema.optional(),
  });
}

export const FormatQuerySchema = z.object({ format: OutputFormatSchema.default("mcp") });

export const ToolDetailSchema = ToolSummarySchema.extend({
  hash: z.string().describe("SHA-256 of the tool's content"),
  keywords: z.array(z.string()),
  definition: z.record(z.string(), z.unknown()).describe("The definition in the requested format"),
}).meta({
  id: "ToolDetail",
  example: {
    ...EXAMPLE_SUMMARY,
    hash: "9f2c4e1b7a0d3f5e8c6b2a1d0e9f8c7b6a5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f",
    keywords: [],
    definition: {
      name: "github__list_issues",
      description: EXAMPLE_TOOL.description,
      inputSchema: EXAMPLE_TOOL.inputSchema,
    },
  },
});

export const TokenFiguresSchema = z
  .object({
    tokenizer: z.string().describe("The BPE encoding counted with (cl100k_base; see docs/agents.md: token counts)"),
    catalog: z.number().int().describe("All definitions (name, description, parameter schema as JSON)"),
    always_loaded: z.number().int().describe("Definitions of the always-loaded tools"),
    deferred_definitions: z
      .number()
      .int()
      .describe("Definitions of the deferred tools: what tool search keeps out of the context"),
    deferred_list: z.number().int().describe("The compact deferred list (one line per deferred tool)"),
  })
  .meta({ id: "TokenFigures" });

export const CatalogSchema = z
  .object({
    revision: z.number().int(),
    tools: z.number().int(),
    always_loaded: z
      .number()
      .int()
      .describe('Tools always in the model\'s tool list (defer / defer_tools / default_defer "never")'),
    deferred: z.number().int().describe("Tools reached through tool_search"),
    servers: z.array(
      z.object({
        name: z.string(),
        defer_tools: DeferSchema,
        tools: z.number().int(),
        always_loaded: z.number().int().describe("Of its tools, how many are always loaded"),
        tokens: z
          .object({
            definitions: z.number().int().describe("Its tools' definitions, all of them"),
            always_loaded: z.number().int().describe("Its always-loaded tools' definitions: in every request"),
          })
          .describe("Token cost of the server's tools (same tokenizer as `tokens`)"),
      }),
    ),
    tokens: TokenFiguresSchema,
    index: z
      .object({
        source: z.enum(["snapshot", "rebuild"]),
        reason: z.string().optional(),
        tools: z.number().int(),
        learned: z
          .enum(["snapshot", "rows"])
          .describe("Where the usage field (learned from use) came from: the snapshot, or the learned rows"),
        ms: z.number(),
      })
      .nullable()
      .describe("How the search index was last loaded into memory (null: not loaded since the object started)"),
    snapshot: z
      .object({
        revision: z.number().int().describe("The catalog revision it reflects"),
        bytes: z.number().int().describe("Its size: the index in its compact, serialised layout"),
        current: z.boolean().describe("Whether it reflects the catalog and learned terms as they are now"),
      })
      .nullable()
      .describe(
        "The index snapshot a cold start restores (written a couple of seconds after writes settle); null: none yet",
      ),
    history: HistoryFiguresSchema.describe(
      "The catalog history kept for diff and rollback (GET .../catalog/revisions), and what it costs in storage",
    ),
  })
  .meta({
    id: "Catalog",
    example: {
      revision: 14,
      tools: 22,
      always_loaded: 10,
      deferred: 12,
      servers: [
        {
          name: "filesystem",
          defer_tools: "never",
          tools: 10,
          always_loaded: 10,
          tokens: { definitions: 724, always_loaded: 724 },
        },
        {
          name: "github",
          defer_tools: "auto",
          tools: 12,
          always_loaded: 0,
          tokens: { definitions: 1586, always_loaded: 0 },
        },
      ],
      tokens: {
        tokenizer: "cl100k_base",
        catalog: 2310,
        always_loaded: 724,
        deferred_definitions: 1586,
        deferred_list: 402,
      },
      index: { source: "snapshot", tools: 22, learned: "snapshot", ms: 3 },
      snapshot: { revision: 14, bytes: 18432, current: true },
      history: { revisions: 15, oldest_revision: 0, tool_versions: 96, bytes: 88120 },
    },
  });
export type Catalog = z.infer<typeof CatalogSchema>;

// ---- search -------------------------------------------------------------------------------------

const SearchFormatSchema = z.enum([...OUTPUT_FORMATS, ...VENDOR_SEARCH_FORMATS]);

export function isVendorSearchFormat(format: string | undefined): format is VendorSearchFormat {
  return (VENDOR_SEARCH_FORMATS as readonly (string | undefined)[]).includes(format);
}

export function searchRequestSchema(limits: Limits) {
  return z
    .strictObject({
      tool_id: z
        .string()
        .min(1)
        .max(260)
        .optional()
        .describe("Exact id `server::name`: returns that tool or 404 with suggestions"),
      query: z
        .string()
        .min(1)
        .max(
          limits.max_query_chars,
          `queries are at most ${limits.max_query_chars} characters ${limitNote("max_query_chars", limits)}`,
        )
        .optional()
        .describe(
          "Keywords or the user's whole message, ranked with BM25F. A message of three lines or more (or six " +
            "sentences) is read as one: pasted logs, code and quoted mail weigh less than the sentences that ask",
        ),
      max_results: z
        .number()
        .int()
        .min(1)
        .max(limits.max_results, `max_results is at most ${limits.max_results} ${limitNote("max_results", limits)}`)
        .optional()
        .describe("Default: the tenant's default_max_results (5)"),
      threshold: z
        .number()
        .min(0)
        .max(100)
        .optional()
        .describe(
          "Score the best ranked hit must reach (others then need half of it); overrides the " +
            "tenant and deployment default",
        ),
      format: SearchFormatSchema.optional().describe(
        "mcp, anthropic, openai, openai-responses: include each result's full definition in this format. " +
          "anthropic-tool-reference: also answer with `tool_result`, the Anthropic tool_result block of " +
          "tool_reference blocks for the search tool call `call_id`. openai-tool-search-output: also answer with " +
          "`input_items`, the OpenAI tool_search_output item (and, when nothing matched, a developer message) for " +
          "the tool_search_call `call_id`",
      ),
      call_id: z
        .string()
        .min(1)
        .max(256)
        .optional()
        .describe(
          "With the vendor formats (and only with them): the id of the model's search call " +
            "(Anthropic tool_use.id, OpenAI tool_search_call.call_id)",
        ),
      explain: z.boolean().optional().describe("Include per-result matched terms and score parts"),
      session_id: SessionIdSchema.optional().describe(
        "Search inside this session: counts against its per-turn budget (429 when spent) and " +
          "activates the results before the answer is sent",
      ),
    })
    .refine((r) => (r.tool_id === undefined) !== (r.query === undefined), {
      message: "give exactly one of tool_id (an exact id like 'server::name') or query (keywords)",
    })
    .refine((r) => (r.call_id !== undefined) === isVendorSearchFormat(r.format), {
      message:
        "call_id goes with format anthropic-tool-reference or openai-tool-search-output, which " +
        "need it (the id of the model's search call)",
      path: ["call_id"],
    })
    .meta({
      id: "SearchRequest",
      example: { query: "read a file", max_results: 5 },
      examples: [
        { query: "read a file", max_results: 5 },
        { tool_id: "github::list_issues", session_id: "chat-7f3a" },
        {
          query: "create a calendar event",
          session_id: "chat-7f3a",
          format: "anthropic-tool-reference",
          call_id: "toolu_01A09q90qw90lq917835lq9",
        },
        {
          query: "create a calendar event",
          session_id: "chat-7f3a",
          format: "openai-tool-search-output",
          call_id: "call_9f2c",
        },
      ],
    });
}
export type SearchRequest = z.infer<ReturnType<typeof searchRequestSchema>>;

const TermExplanationSchema = z.object({
  term: z.string().describe("An analysed query term: a word stem, or two words for a phrase"),
  weight: z
    .number()
    .describe(
      "The term's weight in the query: sqrt(repeats) for words (times 0.85 inside a built-in key of several " +
        "words), 0.4 for phrases, 1 for the tenant's synonym " +
        "expansions, 0.5 for the built-in thesaurus's (0.65 for a one-word key in a query of at most 4 words, " +
        "0.75 for a key of several words) and for a compound; times 0.25 for a word only inside a URL, " +
        "a path or pasted lines, and times 0.5 for a word only in a long message's sentences that do not ask",
    ),
  via: z
    .string()
    .optional()
    .describe(
      "What added this term: the tenant's synonym key as written, builtin:<key> for the thesaurus, or " +
        "compound:<word> <word> for a word the catalog writes as one where the query has two",
    ),
  idf: z.number().describe("ln(1 + (N - n + 0.5) / (n + 0.5)) for a term n of the N tools contain"),
  tf: z
    .partialRecord(z.enum(SCORED_FIELDS), z.number())
    .describe(
      "Occurrences in each field of the tool; for usage (words of past searches that ended in the tool being " +
        "used), the learned term frequency: log2(1 + decayed credits / 8), at most 4",
    ),
  score: z.number().describe("The term's part of the score"),
  parts: z
    .partialRecord(z.enum(SCORED_FIELDS), z.number())
    .describe(
      "`score` split across the fields that hold the term, in proportion to each field's part of the weighted, " +
        "length-normalised count BM25F saturates (usage: its weight times the learned tf); they add up to `score` " +
        "(up to rounding)",
    ),
});

const EXAMPLE_RESULT = {
  tool_id: "filesystem::read_file",
  server: "filesystem",
  name: "read_file",
  model_name: "filesystem__read_file",
  description: "Read the complete contents of a file from the file system",
  score: 2.8583,
  match: "terms",
};

export const SearchResultSchema = z
  .object({
    tool_id: z.string(),
    server: z.string(),
    name: z.string(),
    model_name: z.string(),
    description: z.string(),
    score: z
      .number()
      .nullable()
      .describe("Match score in units of ln(1 + N) (see docs/scoring.md); null for tool_id lookups"),
    match: z
      .enum(["tool-id", "exact-name", "name-tail", "server-name", "name-words", "synonyms", "terms"])
      .describe(
        "Why the tool is here: tool-id (exact lookup); exact-name, name-tail, server-name (the query is the tool's " +
          "name, the tail of its namespaced name, or its server: listed first, whatever the score); name-words " +
          "(every query word is in the tool's name, server or keywords: listed from 0.7 x threshold); synonyms " +
          "(found only through synonyms of the query's words: listed from the threshold itself); terms (ranked " +
          "by score)",
      ),
    definition: z.record(z.string(), z.unknown()).optional(),
    explain: z
      .object({
        fields: z.partialRecord(z.enum(SCORED_FIELDS), z.array(z.string())).describe("Query terms found, per field"),
        terms: z
          .array(TermExplanationSchema)
          .describe("Each matched term's weight, IDF, counts per field and part of the score"),
        context: z
          .object({ from: z.string().describe("The tool on the same server that gave the boost"), score: z.number() })
          .optional()
          .describe("Server context: the part of the score that comes from a strong match on the same server"),
        unit: z.number().describe("ln(1 + N) for N tools: the evidence (sum of BM25F+ parts, in nats) that scores 1"),
        absent: z
          .object({
            services: z.array(z.string()).describe("Services the query names that no tool of the catalog mentions"),
            factor: z.number().describe("What they scaled the score by: s becomes s * s / (s + 3 per service)"),
          })
          .optional()
          .describe("Named services the catalog lacks, which count against every match"),
        coverage: z
          .number()
          .optional()
          .describe(
            "In a query of at most 3 words the catalog knows, what the score was multiplied by for the share of " +
              "their idf this tool holds, to the power 1/3 (a word reached through a synonym counts at its weight)",
          ),
        naming: z
          .number()
          .optional()
          .describe(
            `In a query of at most ${NAMING_QUERY_WORDS} words, what the tool's score was multiplied by for naming ` +
              `the query's words (name, title, server, keywords; its own or through a synonym): 1 + ${NAME_COVERAGE} ` +
              "x their share of the query's known words by idf, times " +
              `${1 - NAME_EXTRA} for each word of the tool's name the query does not hold (itself or through a ` +
              "synonym). It ranks by it; the no-match decision uses the score without it (gate)",
          ),
        verb: z
          .number()
          .optional()
          .describe(
            `${VERB_BOOST} when the query opens with a verb of a kind (create, read, update, delete, send) and the ` +
              "tool's name does not say it does another kind ('list ...': list_records or weather_forecast, not " +
              "create_record): what it ranks by; the no-match decision uses the score without it (gate)",
          ),
        service: z
          .number()
          .optional()
          .describe(
            `${SERVICE_BOOST} when the query (the lines the user wrote) names services the catalog has (pinecone, ` +
              "slack) and this tool is one of theirs: what it ranks by; the no-match decision uses the score " +
              "without it (gate)",
          ),
        gate: z
          .number()
          .optional()
          .describe(
            "What the tool counted for in the no-match decision, when not its score: its score without the " +
              "naming, verb and service factors; times " +
              `${OPERATION_SHARE} when a short query asks for an operation (delete, send, cancel, ...) and this tool ` +
              "holds none of its operation words, or the query names a service (slack, github) that the catalog has " +
              `and this tool is none of its tools; times ${REPLY_SHARE} when a message of several lines asks only to ` +
              "explain, summarise or rewrite what it holds. It ranks by its score, but cannot make a match on its own",
          ),
      })
      .optional()
      .describe(
        "Why the tool scored what it did: score = (sum of terms[].score * coverage * naming * verb * service + " +
          "context.score) * absent.factor (a factor not shown is 1)",
      ),
  })
  .meta({ id: "SearchResult", example: EXAMPLE_RESULT });
export type SearchResult = z.infer<typeof SearchResultSchema>;

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
      .describe(
        "Tool ids this search made callable in its session (the results that were neither " +
          "activated before nor always loaded); empty without session_id",
      ),
    budget: BudgetSchema.optional().describe("The session's budget after this search (with session_id only)"),
    threshold: z.number().describe("The threshold applied"),
    message: z.string().optional().describe("Present when nothing matched: says so plainly"),
    tool_result: z
      .record(z.string(), z.unknown())
      .optional()
      .describe(
        "format anthropic-tool-reference: the tool_result block to put in the next user message, " +
          '{"type":"tool_result","tool_use_id":call_id,"content":[{"type":"tool_reference","tool_name":...}]} ' +
          "(a text block with the message when nothing matched; on a refusal, is_error with the error JSON)",
      ),
    input_items: z
      .array(z.record(z.string(), z.unknown()))
      .optional()
      .describe(
        "format openai-tool-search-output: the items to append to the next request's input: " +
          '{"type":"tool_search_output","call_id":...,"execution":"client",' +
          '"status":"completed","tools":[namespaces]}, ' +
          "then a developer message with the message when nothing matched (or with the error JSON on a refusal)",
      ),
  })
  .meta({
    id: "SearchResponse",
    example: { results: [EXAMPLE_RESULT], activated: [], threshold: 1.5 },
    examples: [
      { results: [EXAMPLE_RESULT], activated: [], threshold: 1.5 },
      {
        results: [EXAMPLE_RESULT],
        activated: ["filesystem::read_file"],
        budget: { used: 1, cap: 3, remaining: 2 },
        threshold: 1.5,
        tool_result: {
          type: "tool_result",
          tool_use_id: "toolu_01A09q90qw90lq917835lq9",
          content: [{ type: "tool_reference", tool_name: "filesystem__read_file" }],
        },
      },
    ],
  });
