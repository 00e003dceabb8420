/** The client's retry policy: what is retried, and how long it waits. */
import { describe, expect, it } from "vitest";
import { isRetryable, parseRetryAfter, retryDelayMs } from "../../src/client/retry.ts";

const options = { retries: 5, baseDelayMs: 500, maxDelayMs: 30_000 };

describe("retry policy", () => {
  it("retries overload and server failures, never a spent search budget or a client error", () => {
    expect(isRetryable(429, "rate-limited")).toBe(true);
    expect(isRetryable(429, undefined)).toBe(true);
    expect(isRetryable(500, "internal")).toBe(true);
    expect(isRetryable(503, undefined)).toBe(true);
    expect(isRetryable(429, "search-budget-exhausted")).toBe(false);
    for (const status of [400, 401, 403, 404, 409, 413]) expect(isRetryable(status, undefined)).toBe(false);
  });

  it("reads Retry-After as seconds or as an HTTP date", () => {
    expect(parseRetryAfter(null)).toBeNull();
    expect(parseRetryAfter("3")).toBe(3000);
    expect(parseRetryAfter("0.5")).toBe(500);
    const now = Date.parse("2026-11-29T12:00:00Z");
    expect(parseRetryAfter("Sun, 29 Nov 2026 12:00:07 GMT", now)).toBe(7000);
    expect(parseRetryAfter("Sun, 29 Nov 2026 11:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon")).toBeNull();
  });

  it("waits what Retry-After asks (capped), else backs off exponentially with jitter", () => {
    expect(retryDelayMs(1, "2", options)).toBe(2000);
    expect(retryDelayMs(4, "2", options)).toBe(2000);
    expect(retryDelayMs(1, "3600", options)).toBe(30_000);
    expect([1, 2, 3, 4].map((a) => retryDelayMs(a, null, options, () => 0))).toEqual([250, 500, 1000, 2000]);
    expect([1, 2, 3, 4].map((a) => retryDelayMs(a, null, options, () => 1))).toEqual([500, 1000, 2000, 4000]);
    expect(retryDelayMs(20, null, options, () => 1)).toBe(30_000);
  });
});
