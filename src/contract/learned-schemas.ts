/** What tools learned from use (`GET`/`DELETE /v1/tenants/{t}/learned`, admin scope): the API's schemas. */
import { z } from "zod";
import { limitNote, type Limits } from "../config/limits.ts";

const LearnedTermSchema = z.object({
  term: z.string().describe("An analysed word (lower case, stemmed) of searches that ended in this tool being used"),
  weight: z
    .number()
    .describe("Credits it received, each halved every learn_half_life_days (decay advances daily): as of today"),
  tf: z.number().describe("Its term frequency in the tool's usage field: log2(1 + weight / 8), at most 4"),
});

export const LearnedToolSchema = z
  .object({
    tool_id: z.string(),
    credits: z.number().int().describe("Credits the tool received (a session resolved it after searching)"),
    last_credit_at: z.string().nullable().describe("When the last one came (ISO 8601); null when none did"),
    terms: z.array(LearnedTermSchema).describe("Strongest first; empty when the tool learned nothing"),
  })
  .meta({
    id: "LearnedTool",
    example: {
      tool_id: "github::create_pull_request",
      credits: 24,
      last_credit_at: "2026-12-01T10:00:00.000Z",
      terms: [
        { term: "pr", weight: 24, tf: 2 },
        { term: "open", weight: 8, tf: 1 },
      ],
    },
  });
export type LearnedToolInfo = z.infer<typeof LearnedToolSchema>;

const LearnedSummarySchema = LearnedToolSchema.omit({ terms: true }).extend({
  term_count: z.number().int().describe("Terms the tool keeps"),
  top_terms: z.array(LearnedTermSchema).describe("Its five strongest terms"),
});

export const LearnedPageSchema = z
  .object({
    tools: z.array(LearnedSummarySchema).describe("Tools that learned something, by tool id"),
    next_cursor: z.string().nullable().describe("Pass as `cursor` for the next page; null at the end"),
  })
  .meta({
    id: "LearnedPage",
    example: {
      tools: [
        {
          tool_id: "github::create_pull_request",
          credits: 24,
          last_credit_at: "2026-12-01T10:00:00.000Z",
          term_count: 2,
          top_terms: [{ term: "pr", weight: 24, tf: 2 }],
        },
      ],
      next_cursor: null,
    },
  });
export type LearnedPage = z.infer<typeof LearnedPageSchema>;

export function learnedQuerySchema(limits: Limits) {
  return z.object({
    tool_id: z
      .string()
      .min(1)
      .max(260)
      .optional()
      .describe("What this tool learned (`server::name`); without it, a page of every tool that learned something"),
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
  });
}

export const ForgottenSchema = z
  .object({
    tools: z.number().int().describe("Tools that had learned something"),
    terms: z.number().int().describe("Learned terms forgotten"),
  })
  .meta({ id: "LearnedForgotten", example: { tools: 12, terms: 230 } });
