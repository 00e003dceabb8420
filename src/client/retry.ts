/**
 * When and how long the client waits before sending a request again. Pure functions, so the
 * policy is tested without clocks: the transport only sleeps for what they return.
 */

export interface RetryOptions {
  /** Attempts after the first; 0 disables retries. */
  retries: number;
  /** Backoff before the first retry when the server gives no Retry-After; doubles each time. */
  baseDelayMs: number;
  /** No wait is longer than this, whatever Retry-After says. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { retries: 2, baseDelayMs: 500, maxDelayMs: 30_000 };

/**
 * Worth retrying: overload (429) and server-side failures (5xx). A 429 that carries
 * `search-budget-exhausted` is an answer, not overload: the budget resets with the next turn, so
 * sending the same search again cannot succeed.
 */
export function isRetryable(status: number, errorCode: string | undefined): boolean {
  if (status === 429) return errorCode !== "search-budget-exhausted";
  return status >= 500 && status <= 599;
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(header: string | null, now: number = Date.now()): number | null {
  if (header === null) return null;
  const text = header.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/**
 * The wait before retry number `attempt` (1 for the first retry): the server's Retry-After when it
 * gives one, else exponential backoff with jitter (half fixed, half random) so that many clients
 * turned away together do not come back together. Capped at maxDelayMs.
 */
export function retryDelayMs(
  attempt: number,
  retryAfter: string | null,
  options: RetryOptions,
  random: () => number = Math.random,
): number {
  const asked = parseRetryAfter(retryAfter);
  if (asked !== null) return Math.min(asked, options.maxDelayMs);
  const backoff = Math.min(options.baseDelayMs * 2 ** (attempt - 1), options.maxDelayMs);
  return Math.round(backoff / 2 + (backoff / 2) * random());
}
