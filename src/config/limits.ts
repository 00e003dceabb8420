/**
 * Every size and count limit the service enforces, in one place. Defaults can be overridden per
 * deployment with the `LIMITS` variable (JSON, validated once at startup; see env.ts).
 *
 * Each limit is checked before the work it bounds is done, and a request over one is refused with
 * `limit: "<name>"` and `max` in the error body (and the name in the message), so a client knows
 * what to change and an operator knows which entry of LIMITS to raise. docs/reliability.md lists
 * them in a table generated from the descriptions here (`limitsTable`).
 */
import { z } from "zod";

/**
 * How a request over a limit is answered. Some limits refuse nothing: retention bounds what is kept; a work bound
 * bounds the work a request may cause (what lies beyond is left out, documented); `oldest dropped` makes room for
 * the new by dropping the oldest; `rest counted` lists that many and counts the others.
 */
export type Refusal =
  | "400 invalid-request"
  | "409 conflict"
  | "413 payload-too-large"
  | "retention"
  | "bound"
  | "oldest dropped"
  | "rest counted";

const limit = (min: number, fallback: number, refusal: Refusal, description: string) =>
  z.number().int().min(min).default(fallback).meta({ description, refusal });

export const LimitsSchema = z
  .object({
    // ---- one request ----------------------------------------------------------------------------
    max_body_bytes: limit(1024, 16 * 1024 * 1024, "413 payload-too-large", "Request body, in bytes"),
    max_json_depth: limit(8, 64, "400 invalid-request", "Nesting depth of any JSON request body"),
    max_tools_per_batch: limit(
      1,
      20_000,
      "413 payload-too-large",
      "Tools in one upsert or replace request (an NDJSON body is read no further than this many lines plus one)",
    ),
    max_listed_errors: limit(
      1,
      20,
      "rest counted",
      "Entries of an error list (bad tools of a batch, bad NDJSON lines, validation issues); the rest are counted",
    ),
    // ---- one tool -------------------------------------------------------------------------------
    max_description_bytes: limit(64, 16 * 1024, "400 invalid-request", "A tool description, in UTF-8 bytes"),
    max_title_chars: limit(1, 256, "400 invalid-request", "A tool title, in characters"),
    max_schema_bytes: limit(
      256,
      64 * 1024,
      "400 invalid-request",
      "A tool's input or output schema (or annotations), serialised, in bytes",
    ),
    max_schema_depth: limit(2, 32, "400 invalid-request", "Nesting depth of a tool's schema or annotations"),
    max_keywords: limit(0, 32, "400 invalid-request", "Keywords per tool"),
    max_keyword_chars: limit(1, 64, "400 invalid-request", "Characters per keyword"),
    // ---- search and reading ---------------------------------------------------------------------
    max_query_chars: limit(
      1,
      32 * 1024,
      "400 invalid-request",
      "A search query (or a turn's message), in characters: a user's whole message fits (real ones reach 18 KB)",
    ),
    max_query_terms: limit(
      2,
      64,
      "bound",
      "Distinct terms a query is scored with: its most informative words (at most half), then synonyms' " +
        "expansions and two-word phrases; the rest is left out",
    ),
    max_results: limit(1, 50, "400 invalid-request", "The largest max_results a search may ask for"),
    max_page_size: limit(1, 500, "400 invalid-request", "Page size of tool and audit listings"),
    max_deferred_page: limit(
      1,
      10_000,
      "400 invalid-request",
      "Lines per page of the deferred list (each at most ~1 KB)",
    ),
    max_export_page: limit(
      1,
      5_000,
      "400 invalid-request",
      "Tools per page of the vendor catalog export (GET .../catalog/export)",
    ),
    // ---- one tenant (quotas) --------------------------------------------------------------------
    max_tools_per_tenant: limit(1, 100_000, "409 conflict", "Tools a tenant may hold"),
    max_servers_per_tenant: limit(1, 10_000, "409 conflict", "Servers a tenant may hold (a server may hold no tools)"),
    max_keys_per_tenant: limit(
      1,
      100,
      "409 conflict",
      "Active (unrevoked) keys a tenant may hold; as many revoked ones are kept for listing",
    ),
    max_label_chars: limit(1, 200, "400 invalid-request", "A key's label, in characters"),
    max_sessions_per_tenant: limit(
      1,
      10_000,
      "409 conflict",
      "Live sessions a tenant may hold (expired ones do not count)",
    ),
    max_sessions_per_key: limit(
      1,
      1_000,
      "409 conflict",
      "Live sessions one key may hold (the operator's count only toward the tenant's)",
    ),
    max_synonyms: limit(0, 500, "400 invalid-request", "Keys of a tenant's synonym map (PUT .../synonyms)"),
    max_synonym_expansions: limit(1, 10, "400 invalid-request", "Expansions per synonym key"),
    // ---- one session ----------------------------------------------------------------------------
    max_session_tools: limit(0, 128, "400 invalid-request", "Client tools in one session (setTools)"),
    max_inline_tools: limit(0, 256, "400 invalid-request", "Names in a session's inline list"),
    max_suggestions: limit(
      0,
      10,
      "400 invalid-request",
      "Tools one user message may load (the setting suggest_max, a turn's suggest.max)",
    ),
    max_activated_tools: limit(
      1,
      200,
      "oldest dropped",
      "Tools a session's searches keep activated (at least max_results); past it the oldest activations are " +
        "dropped, never a tool the search just found",
    ),
    // ---- audit trail ----------------------------------------------------------------------------
    audit_max_entries: limit(
      100,
      10_000,
      "retention",
      "Audit entries (other than key events) kept per tenant; older ones are dropped as new ones are written",
    ),
    audit_max_age_days: limit(1, 90, "retention", "Days an audit entry is kept"),
    audit_max_key_entries: limit(
      10,
      10_000,
      "retention",
      "Key events (key.create, key.revoke) kept per tenant, apart from audit_max_entries",
    ),
    audit_key_max_age_days: limit(1, 365, "retention", "Days a key event is kept in the audit trail"),
    // ---- catalog doctor (GET .../doctor) ---------------------------------------------------------
    doctor_reach_checks: limit(
      1,
      1_000,
      "bound",
      "Tools the doctor checks with real searches for whether their own words reach them: the least distinctive " +
        "ones first; the rest are not checked (the report says how many were)",
    ),
    // ---- query log and usage (GET .../usage) ----------------------------------------------------
    query_log_max_age_days: limit(
      1,
      30,
      "retention",
      "Days the query log and the daily usage counts are kept; older ones are dropped as new ones are written",
    ),
    query_log_max_entries: limit(
      10,
      100_000,
      "retention",
      "Searches whose text the query log keeps per tenant (setting log_queries); older ones are dropped first",
    ),
    query_log_text_chars: limit(
      16,
      256,
      "bound",
      "Characters of a query's text the log keeps (a query may be 32 K): the rest is left out, its length kept",
    ),
    // ---- catalog history, backup and restore ---------------------------------------------------
    history_max_revisions: limit(
      2,
      1_000,
      "retention",
      "Catalog revisions kept for diff and rollback (the newest ones); older ones are pruned by the alarm",
    ),
    history_max_age_days: limit(
      1,
      30,
      "retention",
      "Days of catalog history kept: every revision that was the live catalog within this many days",
    ),
    max_restore_bytes: limit(
      1024,
      100 * 1024 * 1024,
      "413 payload-too-large",
      "A restore's NDJSON body (POST .../restore), in bytes: streamed, never held whole, each line at most " +
        "`max_body_bytes`; Cloudflare's own request limit is 100 MB on most plans",
    ),
  })
  .strict()
  // Every tool one search finds must stay activated: a session keeps at least as many as a search returns.
  .refine((l) => l.max_activated_tools >= l.max_results, {
    message: "max_activated_tools must be at least max_results",
    path: ["max_activated_tools"],
  });

export type Limits = z.infer<typeof LimitsSchema>;
export type LimitName = keyof Limits;
export const LIMIT_NAMES = Object.keys(LimitsSchema.shape) as LimitName[];
export const DEFAULT_LIMITS: Limits = LimitsSchema.parse({});

/**
 * The words a refusal over a limit puts in its message: the limit's name and value. errorBody
 * (src/errors.ts) finds them there and adds `limit` and `max` to the error body, so a zod message
 * deep inside a batch's item reasons names its limit as well as a check written by hand.
 */
export function limitNote<N extends LimitName>(name: N, limits: Pick<Limits, N>): string {
  return `(limit ${name} = ${limits[name]})`;
}

export function limitInfo(name: LimitName): { description: string; refusal: Refusal } {
  return LimitsSchema.shape[name].meta() as { description: string; refusal: Refusal };
}

/** The markdown table of every limit (docs/reliability.md holds a copy; a test compares them). */
export function limitsTable(): string {
  const rows = LIMIT_NAMES.map((name) => {
    const { description, refusal } = limitInfo(name);
    return `| \`${name}\` | ${DEFAULT_LIMITS[name].toLocaleString("en-US")} | ${description} | ${refusal} |`;
  });
  return ["| limit | default | what it bounds | over it |", "|---|---|---|---|", ...rows].join("\n");
}
