/**
 * GET .../usage: the query log's aggregates over a range of UTC days. The log's buffer is written first, so the
 * answer includes every search made before it.
 */
import type { Usage } from "../contract/console-schemas.ts";
import { round } from "../contract/figures.ts";
import { ok, type Result } from "../errors.ts";
import { dayOf, type DayCounts, type QueryLog } from "./query-log.ts";
import type { TenantParts } from "./tenant-parts.ts";
import type { TenantSettings } from "./tenant-settings.ts";

const DAY_MS = 24 * 3600 * 1000;

/** A usage request: days as YYYY-MM-DD (validated by the route), how many queries and tools to list. */
export interface UsageRequest {
  from?: string | undefined;
  to?: string | undefined;
  top: number;
}

type Parts = Pick<TenantParts, "config" | "queryLog" | "learned"> & { settings: TenantSettings };

export class UsageService {
  private readonly tenant: Parts;

  constructor(tenant: Parts) {
    this.tenant = tenant;
  }

  usage(request: UsageRequest): Result<Usage> {
    const log: QueryLog = this.tenant.queryLog;
    log.flush();
    const retention = this.tenant.config().limits.query_log_max_age_days;
    const to = request.to === undefined ? dayOf(Date.now()) : dayNumber(request.to);
    const from = request.from === undefined ? to - retention + 1 : dayNumber(request.from);
    const days = log.days(from, to);
    const totals = days.reduce(
      (sum, d) => ({
        searches: sum.searches + d.searches,
        no_match: sum.no_match + d.no_match,
        lookups: sum.lookups + d.lookups,
        budget_exhausted: sum.budget_exhausted + d.budget_exhausted,
      }),
      { searches: 0, no_match: 0, lookups: 0, budget_exhausted: 0 },
    );
    const learned = this.tenant.learned.summary(request.top);
    return ok({
      from: dayString(from),
      to: dayString(to),
      retention_days: retention,
      log_queries: this.tenant.settings.current().log_queries,
      totals: figures(totals),
      days: days.map((d) => ({ day: dayString(d.day), ...figures(d) })),
      top_no_match: log
        .topNoMatch(from * DAY_MS, (to + 1) * DAY_MS - 1, request.top)
        .map((q) => ({ query: q.query, chars: q.chars, count: q.count, last_at: new Date(q.last_at).toISOString() })),
      never_returned: log.neverReturned(from, to, request.top),
      learning: {
        learn_from_use: this.tenant.settings.current().learn_from_use,
        tools: learned.tools,
        terms: learned.terms,
        credits: learned.credits,
        most_credited: learned.most.map((t) => ({
          tool_id: t.id,
          credits: t.credits,
          last_credit_at: new Date(t.creditedAt).toISOString(),
        })),
      },
    });
  }
}

function figures(d: Omit<DayCounts, "day">): Omit<Usage["totals"], never> {
  return {
    searches: d.searches,
    no_match: d.no_match,
    no_match_share: d.searches === 0 ? 0 : round(d.no_match / d.searches),
    lookups: d.lookups,
    budget_exhausted: d.budget_exhausted,
  };
}

function dayNumber(day: string): number {
  return dayOf(Date.parse(`${day}T00:00:00Z`));
}

function dayString(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}
