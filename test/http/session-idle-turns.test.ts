/**
 * Idle turns: for clients that cannot say when a user message arrives (MCP clients), a search
 * after a quiet spell starts the next turn. Time passes by moving the stored clock of the real
 * Durable Object back, not by sleeping.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call } from "../helpers.ts";
import { newSession, sessionPath, sessionSearch, tenantStub, tenantWithCatalog } from "./session-helpers.ts";

/** Moves the session's last search attempt `seconds` into the past. */
async function age(tenant: string, sessionId: string, seconds: number): Promise<void> {
  await runInDurableObject(tenantStub(tenant), async (_instance, state) => {
    state.storage.sql.exec(
      `UPDATE sessions SET last_search_at = last_search_at - ? WHERE id = ?`,
      seconds * 1000,
      sessionId,
    );
  });
}

async function spendBudget(tenant: string, key: string, id: string): Promise<void> {
  for (let i = 0; i < 3; i++) expect((await sessionSearch(tenant, key, id, { query: "weather" })).status).toBe(200);
  expect((await sessionSearch(tenant, key, id, { query: "email" })).status).toBe(429);
}

describe("idle turns", () => {
  it("starts the next turn when a search comes after the quiet spell, with a fresh budget", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const id = await newSession(tenant, key, { turn_idle_seconds: 30 });
    await spendBudget(tenant, key, id);
    await age(tenant, id, 31);
    const next = await sessionSearch(tenant, key, id, { query: "email" });
    expect(next.status, next.text).toBe(200);
    expect(next.body.budget).toEqual({ used: 1, cap: 3, remaining: 2 });
    expect(next.body.activated).toEqual(["mail::send_email"]);
    const state = await call("GET", sessionPath(tenant, id), { token: key });
    expect(state.body).toMatchObject({ turn: 2, turn_idle_seconds: 30 });
  });

  it("keeps a model that hammers a spent budget in the same turn: refused attempts are activity", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const id = await newSession(tenant, key, { turn_idle_seconds: 30 });
    await spendBudget(tenant, key, id);
    await age(tenant, id, 20);
    expect((await sessionSearch(tenant, key, id, { query: "email" })).status).toBe(429);
    await age(tenant, id, 20);
    // 40 s since the last search that ran, but only 20 s since the last attempt.
    expect((await sessionSearch(tenant, key, id, { query: "email" })).status).toBe(429);
    const state = await call("GET", sessionPath(tenant, id), { token: key });
    expect(state.body.turn).toBe(1);
  });

  it("is off once the client starts a turn itself", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const id = await newSession(tenant, key, { turn_idle_seconds: 30 });
    const turn = await call("POST", sessionPath(tenant, id, "/turns"), { token: key, body: { turn: 1 } });
    expect(turn.status, turn.text).toBe(200);
    expect(turn.body).toMatchObject({ turn: 1, turn_idle_seconds: null });
    await spendBudget(tenant, key, id);
    await age(tenant, id, 3600);
    expect((await sessionSearch(tenant, key, id, { query: "email" })).status).toBe(429);
  });

  it("does not apply to sessions that did not ask for it", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const id = await newSession(tenant, key);
    await spendBudget(tenant, key, id);
    await age(tenant, id, 3600);
    expect((await sessionSearch(tenant, key, id, { query: "email" })).status).toBe(429);
  });
});
