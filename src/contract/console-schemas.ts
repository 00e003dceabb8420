/**
 * The schemas of what the console reads besides search and the catalog: the catalog doctor's findings
 * (GET .../doctor) and the usage aggregates of the query log (GET .../usage). Usable without the console.
 */
import { z } from "zod";
import { limitNote, type Limits } from "../config/limits.ts";
import { FINDING_CODES, FINDINGS } from "../search/doctor.ts";

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A UTC day as `YYYY-MM-DD`, a real calendar date. */
const DaySchema = z
  .string()
  .regex(DAY, "a day is YYYY-MM-DD (UTC)")
  .refine((d) => {
    const date = new Date(`${d}T00:00:00Z`);
    return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(d);
  }, "not a calendar date")
  .meta({ example: "2026-12-01" });

/** The longest range one usage request may cover, in days. */
const MAX_USAGE_DAYS = 366;

function daysBetween(from: string, to: string): number {
  return (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000;
}

export function usageQuerySchema() {
  return z
    .object({
      from: DaySchema.optional().describe(
        "First day (UTC), inclusive. Default: the oldest day retention keeps (query_log_max_age_days)",
      ),
      to: DaySchema.optional().describe("Last day (UTC), inclusive. Default: today"),
      top: z.coerce
        .number()
        .int()
        .min(1)
        .max(100)
        .default(20)
        .describe("How many no-match queries and never-returned tools to list"),
    })
    .refine((q) => q.from === undefined || q.to === undefined || q.from <= q.to, {
      message: "from must not be after to",
      path: ["from"],
    })
    .refine((q) => q.from === undefined || q.to === undefined || daysBetween(q.from, q.to) < MAX_USAGE_DAYS, {
      message: `a range covers at most ${MAX_USAGE_DAYS} days`,
      path: ["from"],
    });
}

const DayFiguresSchema = z.object({
  searches: z.number().int().describe("Query searches (tool_id lookups not included)"),
  no_match: z.number().int().describe("Query searches that returned nothing"),
  no_match_share: z.number().describe("no_match / searches (0 when there were none)"),
  lookups: z.number().int().describe("tool_id lookups"),
  budget_exhausted: z.number().int().describe("Searches refused with 429 search-budget-exhausted"),
});

export const UsageSchema = z
  .object({
    from: z.string(),
    to: z.string(),
    retention_days: z.number().int().describe("Days the log and counts are kept (limit query_log_max_age_days)"),
    log_queries: z.boolean().describe("The tenant's setting: whether query texts are kept"),
    totals: DayFiguresSchema,
    days: z.array(DayFiguresSchema.extend({ day: z.string() })).describe("Every day of the range, oldest first"),
    top_no_match: z
      .array(
        z.object({
          query: z.string().describe("The query as sent, cut to its first query_log_text_chars characters"),
          chars: z.number().int().describe("The query's full length in characters"),
          count: z.number().int(),
          last_at: z.string().describe("When it was last sent (ISO 8601)"),
        }),
      )
      .describe(
        "The queries that most often matched nothing, most frequent first: the ones to fix with keywords or " +
          "synonyms. Empty while log_queries is off",
      ),
    never_returned: z
      .object({
        count: z.number().int(),
        tools: z.array(z.string()).describe("The first `top` of them, by tool id"),
      })
      .describe("Catalog tools that no search or lookup of the range returned"),
    learning: z
      .object({
        learn_from_use: z.boolean().describe("The tenant's setting: whether sessions' searches are credited"),
        tools: z.number().int().describe("Tools that learned something (they have a usage field)"),
        terms: z.number().int().describe("Learned terms kept, over all those tools"),
        credits: z
          .number()
          .int()
          .describe("Credits those tools received in all (a session resolved one after a search)"),
        most_credited: z
          .array(z.object({ tool_id: z.string(), credits: z.number().int(), last_credit_at: z.string() }))
          .describe("The first `top` tools by credits; their terms: GET .../learned?tool_id= (admin scope)"),
      })
      .describe(
        "What learning from use has added, as of now (not limited to the range): learned words are searched as " +
          "each tool's usage field",
      ),
  })
  .meta({
    id: "Usage",
    example: {
      from: "2026-12-01",
      to: "2026-12-02",
      retention_days: 30,
      log_queries: true,
      totals: { searches: 12, no_match: 3, no_match_share: 0.25, lookups: 2, budget_exhausted: 1 },
      days: [
        { day: "2026-12-01", searches: 5, no_match: 1, no_match_share: 0.2, lookups: 0, budget_exhausted: 0 },
        { day: "2026-12-02", searches: 7, no_match: 2, no_match_share: 0.2857, lookups: 2, budget_exhausted: 1 },
      ],
      top_no_match: [{ query: "open a zendesk ticket", chars: 21, count: 2, last_at: "2026-12-02T10:00:00.000Z" }],
      never_returned: { count: 1, tools: ["github::delete_repo"] },
      learning: {
        learn_from_use: true,
        tools: 1,
        terms: 2,
        credits: 24,
        most_credited: [
          { tool_id: "github::create_pull_request", credits: 24, last_credit_at: "2026-12-01T10:00:00.000Z" },
        ],
      },
    },
  });
export type Usage = z.infer<typeof UsageSchema>;

export function doctorQuerySchema(limits: Limits) {
  return z.object({
    code: z.enum(FINDING_CODES).optional().describe("Only findings of this code"),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(
        limits.max_page_size,
        `at most ${limits.max_page_size} findings per answer ${limitNote("max_page_size", limits)}`,
      )
      .default(Math.min(500, limits.max_page_size))
      .describe("Findings listed, at most; `counts` counts them all"),
  });
}

const findingCodes = FINDING_CODES.map((c) => `${c} (${FINDINGS[c].severity}): ${FINDINGS[c].means}`).join("; ");

export const FindingSchema = z
  .object({
    code: z.enum(FINDING_CODES).describe(`Stable finding codes: ${findingCodes}`),
    severity: z.enum(["error", "warning"]),
    tool_id: z.string().describe("The tool the finding concerns (of a pair: the first by id)"),
    message: z.string().describe("The reason, and what to do"),
    other: z
      .string()
      .optional()
      .describe("near-duplicate: the other tool; model-name-clash: the tool holding the name"),
    params: z.array(z.string()).optional().describe("param-undocumented: the parameters, as paths (options.depth)"),
    tokens: z.number().int().optional().describe("description-long: the description's tokens (cl100k_base)"),
  })
  .meta({ id: "Finding" });

export const DoctorReportSchema = z
  .object({
    revision: z.number().int().describe("The catalog revision examined"),
    tools: z.number().int(),
    threshold: z.number().describe("The threshold reach was checked at (the tenant's)"),
    max_results: z.number().int().describe("The max_results reach was checked at (the tenant's default)"),
    reach: z
      .object({ checked: z.number().int(), of: z.number().int() })
      .describe(
        "Tools whose reach was checked with real searches, of all: the least distinctive first, at most " +
          "doctor_reach_checks (a tool with a word few others have is the one left unchecked)",
      ),
    counts: z.partialRecord(z.enum(FINDING_CODES), z.number().int()).describe("Findings per code, all of them"),
    findings: z
      .array(FindingSchema)
      .describe("Errors first, then warnings; by code, then tool id; at most `limit` (of `code` when given)"),
    more: z.boolean().describe("Whether findings beyond `limit` were left out"),
  })
  .meta({
    id: "DoctorReport",
    example: {
      revision: 7,
      tools: 42,
      threshold: 1.5,
      max_results: 5,
      reach: { checked: 42, of: 42 },
      counts: { "description-empty": 1, "near-duplicate": 1 },
      findings: [
        {
          code: "description-empty",
          severity: "error",
          tool_id: "misc::do_it",
          message: "The description is empty.",
        },
        {
          code: "near-duplicate",
          severity: "warning",
          tool_id: "github::create_issue",
          other: "gitlab::create_issue",
          message:
            "github::create_issue and gitlab::create_issue share 100 % of the words of their names and " +
            "descriptions: say what tells them apart, or keep one.",
        },
      ],
      more: false,
    },
  });
export type DoctorReport = z.infer<typeof DoctorReportSchema>;
