/**
 * The per-turn search budget. A model that searches, misses, and searches again with a synonym
 * can burn its whole turn inside tool_search; the cap forces a decision (use a tool already
 * found, or ask the user) at the point where more searching stopped paying off.
 *
 * Every search that runs counts, whatever it returns: a keyword query, a `tool_id` lookup, one
 * that matches nothing, one whose `tool_id` is unknown. A request refused before it runs
 * (invalid body, unknown session, budget already spent) does not count.
 */
import type { ApiError } from "../errors.ts";

export interface Budget {
  used: number;
  cap: number;
  remaining: number;
}

/** The session's own cap when it set one, otherwise the tenant's `search_budget`. */
export function budgetCap(sessionCap: number | null, tenantBudget: number): number {
  return sessionCap ?? tenantBudget;
}

export function budget(used: number, cap: number): Budget {
  return { used, cap, remaining: Math.max(0, cap - used) };
}

export function isExhausted(used: number, cap: number): boolean {
  return used >= cap;
}

/**
 * The refusal, exactly `{"error":"search-budget-exhausted","budgetCap":N}` plus a message that
 * tells the model what to do instead of searching again.
 */
export function budgetExhausted(cap: number): ApiError {
  return {
    error: "search-budget-exhausted",
    budgetCap: cap,
    message:
      `This turn's ${cap} tool searches are spent, so this search did not run. Use one of the tools already loaded ` +
      `or found, or ask the user; searching resumes when the next turn starts.`,
  };
}
