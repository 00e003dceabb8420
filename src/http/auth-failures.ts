/**
 * Failed authentication, limited per client address: after a burst of failures (a 401 of any
 * kind: no token, a wrong operator token, a key with a bad tag, a key its tenant does not know) the
 * address gets 429 `rate-limited` with Retry-After on every authenticated route, before its token
 * is even read, until the limiter's period ends. A valid key from another address is unaffected.
 *
 * Failures are counted by the AUTH_FAILURE_LIMITER binding (Workers Rate Limiting), which counts
 * only when called: it is called for failures alone, so honest requests are never counted. Whether
 * an address is blocked is remembered in this isolate (`blocked`) until the period ends, so the
 * check before any key lookup is a map read, not a call. The memory is per isolate: another isolate
 * learns of the block at that address's first failure there (the binding's count is shared, so that
 * very failure is refused), and until then serves its honest requests.
 *
 * The address is `CF-Connecting-IP`, which Cloudflare's edge sets on every request and a client
 * cannot forge. Without it (not behind the edge: `wrangler dev`, tests) every request counts as one
 * address, `unknown`: a header a client could set itself would let it pick a fresh address per try.
 */
import type { Context } from "hono";
import { errorBody, type ApiError } from "../errors.ts";
import type { AppEnv } from "./context.ts";
import { ApiFailure } from "./errors.ts";

/** The window of AUTH_FAILURE_LIMITER (`period` in wrangler.toml; a test checks they agree). */
export const AUTH_FAILURE_PERIOD_SECONDS = 60;
/** Addresses remembered as blocked, at most (the oldest are forgotten first; their block is re-learnt). */
const MAX_BLOCKED = 10_000;

/** Blocked addresses and when their block ends (ms), in this isolate. */
const blocked = new Map<string, number>();

function clientAddress(c: Context): string {
  return c.req.header("cf-connecting-ip") ?? "unknown";
}

function refusal(until: number): ApiFailure {
  const seconds = Math.max(1, Math.ceil((until - Date.now()) / 1000));
  return new ApiFailure(
    errorBody(
      "rate-limited",
      `Too many failed authentications from this address; retry after ${seconds} seconds with a valid key. ` +
        `(Check the key: it may be mistyped, revoked, or for another deployment.)`,
      { retry_after_seconds: seconds },
    ),
    429,
    { "retry-after": String(seconds) },
  );
}

/** Throws the 429 when this address is blocked; nothing is counted or looked up. */
export function refuseBlockedAddress(c: Context): void {
  const address = clientAddress(c);
  const until = blocked.get(address);
  if (until === undefined) return;
  if (until > Date.now()) throw refusal(until);
  blocked.delete(address);
}

/**
 * Answers a failed authentication: a 401 is counted against the caller's address. The count runs
 * beside the answer (`waitUntil`), so a refused request does not wait for the limiter; once the
 * limiter says the address is over, the address is blocked, and every request from it gets 429
 * until the period ends. Other refusals (403: a key of another tenant) are not failures of a
 * secret and go out as they are.
 */
export function refuseAuthentication(c: Context<AppEnv>, error: ApiError): never {
  if (error.error === "unauthorized") {
    const address = clientAddress(c);
    const counted = c.env.AUTH_FAILURE_LIMITER.limit({ key: `address:${address}` }).then(({ success }) => {
      if (!success) remember(address, Date.now() + AUTH_FAILURE_PERIOD_SECONDS * 1000);
    });
    c.executionCtx.waitUntil(counted.catch(() => undefined));
  }
  throw new ApiFailure(error);
}

function remember(address: string, until: number): void {
  blocked.delete(address);
  if (blocked.size >= MAX_BLOCKED) {
    const now = Date.now();
    for (const [a, end] of blocked) if (end <= now) blocked.delete(a);
    while (blocked.size >= MAX_BLOCKED) blocked.delete(blocked.keys().next().value!);
  }
  blocked.set(address, until);
}
