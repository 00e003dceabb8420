/**
 * Request and response schemas of the session routes, the deferred list, the plan and the tool
 * result converter. Like schemas.ts, they validate requests, generate the OpenAPI document and
 * give the handlers their types.
 */
import { z } from "zod";
import { schemasFor } from "../catalog/batch.ts";
import { OutputFormatSchema } from "../catalog/render.ts";
import { limitNote, type Limits } from "../config/limits.ts";
import { SessionIdSchema, sessionOptionsSchema, ToolReferenceSchema } from "../sessions/session.ts";
import { CallToolResultSchema } from "../sessions/tool-result.ts";
import { BudgetSchema, TenantIdSchema, TokenFiguresSchema } from "./schemas.ts";

export const sessionParams = z.object({ tenant: TenantIdSchema, session_id: SessionIdSchema });

const EXAMPLE_BUDGET = { used: 1, cap: 3, remaining: 2 };
const EXAMPLE_DEFINITION = {
  name: "github__list_issues",
  description: "List issues in a GitHub repository, filtered by state and labels",
  inputSchema: {
    type: "object",
    properties: { repo: { type: "string", description: "owner/name" } },
    required: ["repo"],
  },
};

// ---- sessions -----------------------------------------------------------------------------------

/**
 * The user's message on a create or a turn, and the request's own suggestion settings: the deferred tools the message
 * clearly asks for are loaded at once (src/search/suggest.ts).
 */
function turnMessageFields(limits: Pick<Limits, "max_query_chars" | "max_suggestions">) {
  return {
    message: z
      .string()
      .max(
        limits.max_query_chars,
        `a message is at most ${limits.max_query_chars} characters ${limitNote("max_query_chars", limits)}`,
      )
      .optional()
      .describe(
        "The user's message that starts this turn: the session's deferred tools that clearly fit it are activated " +
          "at once (listed in `suggested`), before the model searches. Chit-chat and requests no tool serves load " +
          "nothing",
      ),
    suggest: z
      .strictObject({
        max: z
          .number()
          .int()
          .min(0)
          .max(
            limits.max_suggestions,
            `suggest.max is at most ${limits.max_suggestions} ${limitNote("max_suggestions", limits)}`,
          )
          .optional()
          .describe("At most this many tools (0: none); default the tenant's suggest_max"),
        threshold: z
          .number()
          .min(0)
          .max(100)
          .optional()
          .describe("The score a suggested tool must reach; default the tenant's suggest_threshold"),
      })
      .optional()
      .describe("This request's own suggestion settings (with `message`)"),
  };
}

/** The documented body of POST .../sessions (tools are validated item by item, like catalog uploads). */
export function createSessionBodySchema(limits: Limits) {
  return sessionOptionsSchema(limits)
    .extend({
      tools: z
        .array(schemasFor(limits).any)
        .max(limits.max_session_tools, sessionToolsMessage(limits))
        .optional()
        .describe("The session's own client tools (same rules as PUT .../sessions/{id}/tools)"),
      ...turnMessageFields(limits),
    })
    .meta({
      id: "CreateSession",
      example: { session_id: "chat-7f3a", budget_cap: 3, message: "Merge pull request 42 in acme/web" },
    });
}

/** The body as the route reads it: options validated here, tools validated afterwards item by item. */
export function createSessionReadSchema(limits: Limits) {
  return sessionOptionsSchema(limits).extend({ tools: z.array(z.unknown()).optional(), ...turnMessageFields(limits) });
}

export const SuggestionSchema = z
  .object({
    tool_id: z.string(),
    model_name: z.string().describe("The name the model calls it by (in the session's tool list from now on)"),
    score: z.number().describe("Its score for the message, in the units of search scores"),
    match: z
      .enum(["exact-name", "name-tail", "server-name", "name-words", "terms"])
      .describe("Why it matched, as in search results (never through synonyms alone)"),
  })
  .meta({
    id: "Suggestion",
    example: {
      tool_id: "github::merge_pull_request",
      model_name: "github__merge_pull_request",
      score: 5.2,
      match: "terms",
    },
  });
export type Suggestion = z.infer<typeof SuggestionSchema>;

function sessionToolsMessage(limits: Pick<Limits, "max_session_tools">): string {
  return `a session holds at most ${limits.max_session_tools} client tools ${limitNote("max_session_tools", limits)}`;
}

export const SessionSchema = z
  .object({
    session_id: SessionIdSchema,
    created: z
      .boolean()
      .optional()
      .describe("On create: true when this call created it, false when it already existed with the same options"),
    created_at: z.string(),
    expires_at: z.string().describe("When it ends unless a call names it first (each call extends it by ttl_seconds)"),
    ttl_seconds: z.number().int(),
    turn: z.number().int().describe("The current agent turn, from 1"),
    budget: BudgetSchema,
    always_loaded: z
      .array(z.string())
      .describe("Tool ids always in this session's tool list (tenant rule plus inline tools)"),
    activated: z.array(z.string()).describe("Tool ids activated by this session's searches, in activation order"),
    session_tools: z.array(z.string()).describe("Names of the session's client tools, in order"),
    tools_version: z.number().int().describe("How many times the client tools were set (0: never)"),
    inline: z.array(z.string()).nullable().describe("The tools the session's agent names, as given"),
    inline_unresolved: z.array(z.string()).describe("Inline names that match no catalog tool right now"),
    deferred_tool_loading: z.boolean(),
    turn_idle_seconds: z
      .number()
      .int()
      .nullable()
      .describe(
        "When set, a search this many seconds after the previous one starts the next turn by " +
          "itself (MCP sessions); null: turns start only when asked",
      ),
    suggested: z
      .array(SuggestionSchema)
      .optional()
      .describe(
        "On a create or turn with a `message`: the tools it loaded, best first (also in `activated`, appended after " +
          "what was there); [] when nothing fits, and on a retried turn",
      ),
  })
  .meta({
    id: "Session",
    example: {
      session_id: "chat-7f3a",
      created: true,
      created_at: "2026-11-29T12:00:00.000Z",
      expires_at: "2026-11-30T12:00:00.000Z",
      ttl_seconds: 86400,
      turn: 1,
      budget: { used: 0, cap: 3, remaining: 3 },
      always_loaded: ["filesystem::read_file", "filesystem::write_file"],
      activated: [],
      session_tools: [],
      tools_version: 0,
      inline: null,
      inline_unresolved: [],
      deferred_tool_loading: false,
      turn_idle_seconds: null,
    },
  });

export function startTurnSchema(limits: Pick<Limits, "max_query_chars" | "max_suggestions">) {
  return z
    .strictObject({
      turn: z
        .number()
        .int()
        .min(1)
        .optional()
        .describe(
          "The turn you mean to start (current + 1). Repeating the current turn's number changes nothing, so a " +
            "retried call is safe (and `1` on a new session just says the client announces its turns, which " +
            "switches idle turns off)",
        ),
      ...turnMessageFields(limits),
    })
    .meta({ id: "StartTurn", example: { turn: 2, message: "What's the weather in Lyon tomorrow?" } });
}

/** What a create or a turn says about the user's message. */
export type TurnMessage = Pick<z.infer<ReturnType<typeof startTurnSchema>>, "message" | "suggest">;

export function setToolsBodySchema(limits: Limits) {
  return z
    .strictObject({
      tools: z
        .array(schemasFor(limits).any)
        .max(limits.max_session_tools, sessionToolsMessage(limits))
        .describe("The complete new set; [] removes them all"),
    })
    .meta({
      id: "SetSessionTools",
      example: {
        tools: [
          {
            name: "ask_user",
            description: "Ask the user a question and wait for the answer",
            inputSchema: { type: "object" },
          },
        ],
      },
    });
}

export const SetToolsResultSchema = z
  .object({
    session_id: z.string(),
    tools_version: z
      .number()
      .int()
      .describe("The number of this replacement; replacements apply one at a time, in order"),
    tools: z.array(z.string()).describe("The session's client tool names now"),
  })
  .meta({ id: "SetSessionToolsResult", example: { session_id: "chat-7f3a", tools_version: 1, tools: ["ask_user"] } });

const ListEntrySchema = z.object({
  name: z.string().describe("The model-facing name (what the model calls)"),
  source: z.enum(["tool_search", "always-loaded", "session", "activated"]),
  tool_id: z.string().nullable().describe("The catalog id; null for tool_search and session tools"),
});

export const ToolListSchema = z
  .object({
    session_id: z.string(),
    format: OutputFormatSchema,
    turn: z.number().int(),
    budget: BudgetSchema,
    tools: z
      .array(z.record(z.string(), z.unknown()))
      .describe("Definitions in the requested format, ready for the model request, in order"),
    entries: z.array(ListEntrySchema).describe("Where each definition comes from, in the same order"),
  })
  .meta({
    id: "SessionToolList",
    example: {
      session_id: "chat-7f3a",
      format: "mcp",
      turn: 1,
      budget: EXAMPLE_BUDGET,
      tools: [
        {
          name: "tool_search",
          description: "Find and load tools that are not in your tool list yet. …",
          inputSchema: { type: "object", properties: { query: { type: "string" } } },
        },
        EXAMPLE_DEFINITION,
      ],
      entries: [
        { name: "tool_search", source: "tool_search", tool_id: null },
        { name: "github__list_issues", source: "activated", tool_id: "github::list_issues" },
      ],
    },
  });

export const ResolveRequestSchema = z
  .strictObject({
    name: ToolReferenceSchema.describe("The name the model called: model-facing name, tool id or bare tool name"),
    format: OutputFormatSchema.optional().describe("Format of the returned definition (default mcp)"),
  })
  .meta({ id: "ResolveRequest", example: { name: "github__list_issues" } });

export const ResolveResponseSchema = ListEntrySchema.extend({
  definition: z.record(z.string(), z.unknown()),
}).meta({
  id: "ResolvedTool",
  example: {
    name: "github__list_issues",
    source: "activated",
    tool_id: "github::list_issues",
    definition: EXAMPLE_DEFINITION,
  },
});

// ---- deferred list and plan ---------------------------------------------------------------------

export function deferredQuerySchema(limits: Limits) {
  return z.object({
    cursor: z.string().max(1024).optional(),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(
        limits.max_deferred_page,
        `pages hold at most ${limits.max_deferred_page} lines ${limitNote("max_deferred_page", limits)}`,
      )
      .default(Math.min(1000, limits.max_deferred_page)),
    server: z.string().max(64).optional(),
  });
}

export const DeferredListSchema = z
  .object({
    revision: z.number().int(),
    tools: z.array(
      z.object({
        tool_id: z.string(),
        line: z.string().describe("`server::tool: description`, the description on one line, at most 1,024 bytes"),
        truncated: z.boolean().describe("Whether the description was cut"),
      }),
    ),
    next_cursor: z.string().nullable(),
  })
  .meta({
    id: "DeferredList",
    example: {
      revision: 14,
      tools: [
        {
          tool_id: "billing::create_invoice",
          line: "billing::create_invoice: Create and send an invoice to a customer for a list of line items.",
          truncated: false,
        },
        {
          tool_id: "billing::get_balance",
          line: "billing::get_balance: Get the current account balance and pending payouts.",
          truncated: false,
        },
      ],
      next_cursor: "YmlsbGluZzo6Z2V0X2JhbGFuY2U",
    },
  });

export const PlanRequestSchema = z
  .strictObject({
    context_window: z.number().int().min(1).max(100_000_000).describe("The model's context window, in tokens"),
    min_tools: z.number().int().min(0).optional().describe("Override the tenant's plan.min_tools for this answer"),
    min_pct: z.number().min(0).max(100).optional().describe("Override plan.min_pct"),
    min_tokens: z.number().int().min(0).optional().describe("Override plan.min_tokens"),
  })
  .meta({ id: "PlanRequest", example: { context_window: 200000 } });
export type PlanRequest = z.infer<typeof PlanRequestSchema>;

export const PlanResponseSchema = z
  .object({
    enabled: z.boolean().describe("Whether to turn tool search on"),
    reason: z.enum([
      "nothing-to-defer",
      "below-min-tools",
      "forced",
      "over-min-pct",
      "over-min-tokens",
      "under-thresholds",
    ]),
    message: z.string(),
    context_window: z.number().int(),
    thresholds: z.object({ min_tools: z.number(), min_pct: z.number(), min_tokens: z.number() }),
    share_pct: z.number().describe("Deferrable definitions as a percentage of the context window"),
    tools: z.object({ total: z.number().int(), always_loaded: z.number().int(), deferred: z.number().int() }),
    tokens: TokenFiguresSchema.omit({ tokenizer: true }).extend({
      tool_search: z.number().int().describe("tool_search's own definition"),
      with_search: z
        .number()
        .int()
        .describe("What the model gets with search on: always-loaded + tool_search + deferred list"),
      saving: z.number().int().describe("catalog - with_search (negative when search costs more than it saves)"),
    }),
    tokenizer: z.string(),
  })
  .meta({
    id: "Plan",
    example: {
      enabled: false,
      reason: "under-thresholds",
      message:
        "The 65 deferrable definitions take 4951 tokens (2.48 % of the 200000-token context " +
        "window): under both min_pct 5 % and min_tokens 50000, so loading them all is cheaper.",
      context_window: 200000,
      thresholds: { min_tools: 30, min_pct: 5, min_tokens: 50000 },
      share_pct: 2.4755,
      tools: { total: 75, always_loaded: 10, deferred: 65 },
      tokens: {
        catalog: 5675,
        always_loaded: 724,
        deferred_definitions: 4951,
        deferred_list: 1500,
        tool_search: 293,
        with_search: 2517,
        saving: 3158,
      },
      tokenizer: "cl100k_base",
    },
  });
export type Plan = z.infer<typeof PlanResponseSchema>;

// ---- tool results -------------------------------------------------------------------------------

export { CallToolResultSchema };

export const ToolResultObjectSchema = z
  .object({
    textResultForLlm: z.string(),
    resultType: z.enum(["success", "failure"]),
    sessionLog: z.string(),
    binaryResultsForLlm: z.array(
      z.object({
        data: z.string(),
        mimeType: z.string(),
        type: z.enum(["image", "resource"]),
        description: z.string().optional(),
      }),
    ),
  })
  .meta({
    id: "ToolResultObject",
    example: {
      textResultForLlm: "3 open issues",
      resultType: "success",
      sessionLog: "success: 1 text; 13 characters of text, 0 binary results",
      binaryResultsForLlm: [],
    },
  });
