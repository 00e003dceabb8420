/**
 * Request rate limits per credential, counted by the Workers Rate Limiting bindings declared in
 * wrangler.toml (KEY_RATE_LIMITER per tenant key, OPERATOR_RATE_LIMITER for the operator token)
 * before any tenant work is done. Over the limit: 429 `rate-limited` with `Retry-After`, which a
 * client tells apart from a session's `search-budget-exhausted` 429 by its code.
 *
 * A tenant key is counted under a digest of the whole token, never the token itself: a forged
 * token that names a real key id cannot spend that key's allowance, and no secret reaches the
 * limiter's storage. Requests without a well-formed credential are answered 401 without touching a
 * tenant, so they are not counted here.
 */
import { errorBody, type ApiError } from "../errors.ts";

/** The window of both bindings (`period` in wrangler.toml; a test checks they agree). */
export const RATE_LIMIT_PERIOD_SECONDS = 10;

export type RateLimitSubject = { kind: "operator" } | { kind: "key"; tokenDigest: Uint8Array };

function hex(bytes: Uint8Array): string {
  return Array.from(bytes.subarray(0, 16), (b) => b.toString(16).padStart(2, "0")).join("");
}

export interface RateLimitRefusal {
  body: ApiError;
  retryAfterSeconds: number;
}

/** null when the request may go on; otherwise the refusal to send. */
export async function checkRateLimit(env: Env, subject: RateLimitSubject): Promise<RateLimitRefusal | null> {
  const { success } =
    subject.kind === "operator"
      ? await env.OPERATOR_RATE_LIMITER.limit({ key: "operator" })
      : await env.KEY_RATE_LIMITER.limit({ key: `key:${hex(subject.tokenDigest)}` });
  if (success) return null;
  const who = subject.kind === "operator" ? "the operator token" : "this API key";
  return {
    body: errorBody(
      "rate-limited",
      `Too many requests for ${who}; retry after ${RATE_LIMIT_PERIOD_SECONDS} seconds. (A ` +
        `session's search budget is a different limit: search-budget-exhausted.)`,
      { retry_after_seconds: RATE_LIMIT_PERIOD_SECONDS },
    ),
    retryAfterSeconds: RATE_LIMIT_PERIOD_SECONDS,
  };
}
