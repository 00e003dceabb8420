/**
 * Request rate limits per credential (Workers Rate Limiting bindings). This project runs with low
 * limits (vitest.config.ts: 20 requests per key and 10 for the operator token per 10 s window); the
 * production numbers are in wrangler.toml and docs/reliability.md.
 *
 * The limiter counts in fixed windows aligned to the clock, so a burst that straddles a window
 * boundary gets a fresh allowance halfway: such a burst is detected and run again, never counted.
 */
import { beforeAll, describe, expect, it } from "vitest";
import wranglerToml from "../../wrangler.toml?raw";
import { AUTH_FAILURE_PERIOD_SECONDS } from "../../src/http/auth-failures.ts";
import { RATE_LIMIT_PERIOD_SECONDS } from "../../src/http/rate-limit.ts";
import { call, createKey, mcpTool, OPERATOR, tenantWithKey, upsert, type Reply } from "../helpers.ts";
import { stateFingerprint } from "../routes.ts";

const KEY_LIMIT = 20;
const OPERATOR_LIMIT = 10;
const AUTH_FAILURE_LIMIT = 10;

let addresses = 0;
/** A client address of its own (CF-Connecting-IP), so that one test's failed authentications do not block another's. */
const freshAddress = () => `192.0.2.${++addresses}`;

const windowOf = (ms: number) => Math.floor(ms / (RATE_LIMIT_PERIOD_SECONDS * 1000));

/**
 * Runs a scenario inside one limiter window: when the window rolls over while it runs, its
 * observations are thrown away and it runs again (with fresh keys), so none is ever judged across a
 * boundary. Assertions come after, on what it observed.
 */
async function inOneWindow<T>(scenario: () => Promise<T>): Promise<T> {
  for (let attempt = 0; attempt < 4; attempt++) {
    const started = windowOf(Date.now());
    const observed = await scenario();
    if (windowOf(Date.now()) === started) return observed;
  }
  throw new Error("could not fit the scenario in one rate-limit window");
}

/** Sends requests until the first 429 (at most `max`): how many got through, and the 429. */
async function burst(send: () => Promise<Reply>, max: number): Promise<{ passed: number; refused: Reply | null }> {
  let passed = 0;
  for (let i = 0; i < max; i++) {
    const r = await send();
    if (r.status === 429) return { passed, refused: r };
    passed += 1;
  }
  return { passed, refused: null };
}

function expectRateLimited(r: Reply | null): void {
  expect(r, "a request was refused").not.toBeNull();
  expect(r!.status).toBe(429);
  expect(r!.body).toMatchObject({ error: "rate-limited", retry_after_seconds: RATE_LIMIT_PERIOD_SECONDS });
  expect(r!.headers.get("retry-after")).toBe(String(RATE_LIMIT_PERIOD_SECONDS));
}

describe("rate limits", () => {
  // One tenant for the file, and keys made by its admin key: the operator's own window is the
  // subject of the last test, so setup spends as little of it as it can (2 requests).
  let tenant = "";
  let admin = "";
  const newKey = (scopes: string[]) => createKey(tenant, scopes, admin);
  beforeAll(async () => {
    ({ tenant, key: admin } = await tenantWithKey());
  });

  it("wrangler.toml declares the three bindings with the periods Retry-After announces", () => {
    const periods = [...wranglerToml.matchAll(/period\s*=\s*(\d+)/g)].map((m) => Number(m[1]));
    expect(periods).toEqual([RATE_LIMIT_PERIOD_SECONDS, RATE_LIMIT_PERIOD_SECONDS, AUTH_FAILURE_PERIOD_SECONDS]);
    expect(wranglerToml).toMatch(/name = "KEY_RATE_LIMITER"/);
    expect(wranglerToml).toMatch(/name = "OPERATOR_RATE_LIMITER"/);
    expect(wranglerToml).toMatch(/name = "AUTH_FAILURE_LIMITER"/);
  });

  it(
    "a key gets its allowance per window, then 429 rate-limited with Retry-After, and a " +
      "refused write does nothing",
    async () => {
      const seen = await inOneWindow(async () => {
        const key = await newKey(["search", "write"]);
        const reads = await burst(() => call("GET", `/v1/tenants/${tenant}/catalog`, { token: key }), KEY_LIMIT + 2);
        const before = await stateFingerprint(tenant);
        const write = await upsert(tenant, key, [{ server: "s", ...mcpTool("late", "Too late") }]);
        return { reads, write, before, after: await stateFingerprint(tenant) };
      });
      expect(seen.reads.passed).toBe(KEY_LIMIT);
      expectRateLimited(seen.reads.refused);
      expectRateLimited(seen.write);
      expect(seen.after).toBe(seen.before);
    },
  );

  it(
    "keys are limited separately: one key's burst spends nothing of another's, nor does a " + "forged token naming it",
    async () => {
      const seen = await inOneWindow(async () => {
        const busy = await newKey(["search"]);
        const quiet = await newKey(["search"]);
        const forged = `tsk_${tenant}_${quiet.split("_")[2]}_${"A".repeat(40)}`;
        const forgedStatuses = new Set<number>();
        const busyBurst = await burst(async () => {
          // Each forged request from an address of its own: the failed-authentication guard is tested below.
          const headers = { "cf-connecting-ip": freshAddress() };
          forgedStatuses.add((await call("GET", `/v1/tenants/${tenant}/catalog`, { token: forged, headers })).status);
          return call("GET", `/v1/tenants/${tenant}/catalog`, { token: busy });
        }, KEY_LIMIT + 2);
        const quietBurst = await burst(
          () => call("GET", `/v1/tenants/${tenant}/catalog`, { token: quiet }),
          KEY_LIMIT + 2,
        );
        return { busyBurst, quietBurst, forgedStatuses };
      });
      expectRateLimited(seen.busyBurst.refused);
      // The forged token was refused as a bad key, then limited in a bucket of its own.
      expect([...seen.forgedStatuses].sort()).toEqual([401, 429]);
      expect(seen.quietBurst.passed).toBe(KEY_LIMIT);
    },
  );

  it(
    "requests without a valid credential count against no credential: they are refused with 401 before " +
      "any tenant work",
    async () => {
      for (let i = 0; i < OPERATOR_LIMIT * 2; i++) {
        const headers = { "cf-connecting-ip": freshAddress() };
        expect((await call("GET", "/v1/tenants/anyone/catalog", { headers })).status).toBe(401);
        expect((await call("GET", "/v1/tenants/anyone/catalog", { token: "not-a-token", headers })).status).toBe(401);
      }
    },
  );

  it(
    "failed authentications are limited per address: after a burst, 429 on every authenticated route for that " +
      "address, before any key lookup; a valid key from another address is unaffected",
    async () => {
      const attacker = { "cf-connecting-ip": freshAddress() };
      const honest = { "cf-connecting-ip": freshAddress() };
      const key = await newKey(["search", "write"]);
      const bad = [
        `${key.slice(0, -1)}${key.endsWith("A") ? "B" : "A"}`, // fails its checksum in the Worker
        `tsk_${tenant}_${key.split("_")[2]}_${"A".repeat(40)}`, // only the object can refuse it
        "not-a-token",
      ];
      const statuses: number[] = [];
      for (let i = 0; i < 30; i++) {
        const r = await call("GET", `/v1/tenants/${tenant}/catalog`, { token: bad[i % bad.length], headers: attacker });
        statuses.push(r.status);
      }
      // The burst: 401 while under the limit, then 429 (the limiter's fixed windows may have split
      // the burst in two; 30 failures still put one window over 10).
      expect(statuses.slice(0, AUTH_FAILURE_LIMIT / 2).every((s) => s === 401)).toBe(true);
      expect(statuses.at(-1)).toBe(429);
      const firstRefusal = statuses.indexOf(429);
      expect(statuses.slice(firstRefusal).every((s) => s === 429)).toBe(true);

      // From that address now: 429 on every authenticated route, a valid key and the operator included.
      for (const [method, p, token] of [
        ["GET", `/v1/tenants/${tenant}/catalog`, key],
        ["POST", `/v1/tenants/${tenant}/search`, key],
        ["POST", "/v1/tenants", OPERATOR],
        ["GET", `/v1/tenants/${tenant}/keys`, OPERATOR],
      ] as const) {
        const r = await call(method, p, { token, headers: attacker, body: method === "POST" ? {} : undefined });
        expect(r.status, `${method} ${p}`).toBe(429);
        expect(r.body.error).toBe("rate-limited");
        const retry = Number(r.headers.get("retry-after"));
        expect(retry).toBeGreaterThan(0);
        expect(retry).toBeLessThanOrEqual(AUTH_FAILURE_PERIOD_SECONDS);
        expect(r.body.retry_after_seconds).toBe(retry);
      }
      // Public routes are not authenticated routes.
      expect((await call("GET", "/healthz", { headers: attacker })).status).toBe(200);
      // The same key from another address.
      expect((await call("GET", `/v1/tenants/${tenant}/catalog`, { token: key, headers: honest })).status).toBe(200);
    },
  );

  it("honest requests are never counted as failures, however many", async () => {
    const address = { "cf-connecting-ip": freshAddress() };
    const key = await newKey(["search"]);
    for (let i = 0; i < AUTH_FAILURE_LIMIT * 2; i += 1) {
      // Spread over keys so the per-key limit is not what answers.
      const r = await call("GET", `/v1/tenants/${tenant}/catalog`, { token: i % 2 ? key : admin, headers: address });
      expect(r.status).toBe(200);
    }
  });

  it("a session's search budget is a different 429: search-budget-exhausted, without Retry-After", async () => {
    const key = await newKey(["search"]);
    const created = await call("POST", `/v1/tenants/${tenant}/sessions`, { token: key, body: { budget_cap: 1 } });
    const session = created.body.session_id as string;
    const body = { query: "anything", session_id: session };
    expect((await call("POST", `/v1/tenants/${tenant}/search`, { token: key, body })).status).toBe(200);
    const spent = await call("POST", `/v1/tenants/${tenant}/search`, { token: key, body });
    expect(spent.status).toBe(429);
    expect(spent.body).toMatchObject({ error: "search-budget-exhausted", budgetCap: 1 });
    expect(spent.headers.get("retry-after")).toBeNull();
  });

  it("the operator token has its own limit, tenant creation included", async () => {
    const seen = await inOneWindow(async () => {
      const reads = await burst(
        () => call("GET", `/v1/tenants/${tenant}/catalog`, { token: OPERATOR }),
        OPERATOR_LIMIT + 2,
      );
      const create = await call("POST", "/v1/tenants", {
        token: OPERATOR,
        body: { id: `rl-${Date.now().toString(36)}` },
      });
      return { reads, create };
    });
    // Earlier requests of this file may have spent part of the operator's window.
    expect(seen.reads.passed).toBeLessThanOrEqual(OPERATOR_LIMIT);
    expectRateLimited(seen.reads.refused);
    expectRateLimited(seen.create);
  });

  // Last in the file: it blocks the address every request without CF-Connecting-IP shares, for a minute.
  it("without CF-Connecting-IP every request counts as one address: its failures block the others", async () => {
    const key = await newKey(["search"]);
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++)
      statuses.push((await call("GET", `/v1/tenants/${tenant}/catalog`, { token: "not-a-token" })).status);
    expect(statuses.slice(0, AUTH_FAILURE_LIMIT / 2).every((s) => s === 401)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
    // A valid key without the header is the same address: refused before its key is read.
    const same = await call("GET", `/v1/tenants/${tenant}/catalog`, { token: key });
    expect(same.status).toBe(429);
    expect(same.body.error).toBe("rate-limited");
    expect(same.body.message).toContain("failed authentications from this address");
    expect(Number(same.headers.get("retry-after"))).toBeGreaterThan(0);
    // The same key from an address of its own is served.
    const own = { "cf-connecting-ip": freshAddress() };
    expect((await call("GET", `/v1/tenants/${tenant}/catalog`, { token: key, headers: own })).status).toBe(200);
  });
});
