import { describe, expect, it } from "vitest";
import { call } from "../helpers.ts";
import { newSession, sessionPath, sessionSearch, tenantWithCatalog } from "./session-helpers.ts";

const QUERIES = [
  "issues",
  "pull request",
  "read file",
  "write file",
  "forecast",
  "calendar event",
  "email",
  "create issue",
  "merge",
  "weather",
  "file",
  "github",
];

describe("per-turn search budget", () => {
  it("runs exactly 3 of 12 concurrent searches on a budget of 3; the rest get the exact 429 body", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const id = await newSession(tenant, key);
    const replies = await Promise.all(QUERIES.map((query) => sessionSearch(tenant, key, id, { query })));
    const ran = replies.filter((r) => r.status === 200);
    const refused = replies.filter((r) => r.status === 429);
    expect(ran).toHaveLength(3);
    expect(refused).toHaveLength(9);
    for (const r of refused) {
      expect(r.body).toEqual({ error: "search-budget-exhausted", budgetCap: 3, message: expect.any(String) });
      expect(r.text.startsWith('{"error":"search-budget-exhausted","budgetCap":3,')).toBe(true);
    }
    expect(ran.map((r) => r.body.budget.used).sort()).toEqual([1, 2, 3]);
    // Only the searches that ran activated anything: the session holds exactly their results.
    const activatedByRuns = new Set(ran.flatMap((r) => r.body.results.map((x: { tool_id: string }) => x.tool_id)));
    const state = await call("GET", sessionPath(tenant, id), { token: key });
    expect(state.body.budget).toEqual({ used: 3, cap: 3, remaining: 0 });
    expect(new Set(state.body.activated)).toEqual(new Set([...activatedByRuns].filter((t) => t !== "core::ask_user")));
  });

  it("refuses the 4th search in a turn without running it, and a new turn resets the count", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const id = await newSession(tenant, key);
    for (let i = 1; i <= 3; i++) {
      const r = await sessionSearch(tenant, key, id, { query: "weather" });
      expect(r.status, r.text).toBe(200);
      expect(r.body.budget).toEqual({ used: i, cap: 3, remaining: 3 - i });
    }
    const fourth = await sessionSearch(tenant, key, id, { query: "email" });
    expect(fourth.status).toBe(429);
    // It did not run: the email tool was not activated.
    const state = await call("GET", sessionPath(tenant, id), { token: key });
    expect(state.body.activated).not.toContain("mail::send_email");

    const turn = await call("POST", sessionPath(tenant, id, "/turns"), { token: key });
    expect(turn.status, turn.text).toBe(200);
    expect(turn.body).toMatchObject({ turn: 2, budget: { used: 0, cap: 3, remaining: 3 } });
    const after = await sessionSearch(tenant, key, id, { query: "email" });
    expect(after.status, after.text).toBe(200);
    expect(after.body.activated).toEqual(["mail::send_email"]);
  });

  it("counts tool_id lookups, unknown tool ids and searches that find nothing like any search", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const id = await newSession(tenant, key);
    const lookup = await sessionSearch(tenant, key, id, { tool_id: "fs::read_file" });
    expect(lookup.status, lookup.text).toBe(200);
    expect(lookup.body.budget.used).toBe(1);
    expect(lookup.body.activated).toEqual(["fs::read_file"]);
    const unknown = await sessionSearch(tenant, key, id, { tool_id: "fs::delete_everything" });
    expect(unknown.status).toBe(404);
    expect(unknown.body.budget).toEqual({ used: 2, cap: 3, remaining: 1 });
    const nothing = await sessionSearch(tenant, key, id, { query: "zebra xylophone" });
    expect(nothing.status).toBe(200);
    expect(nothing.body.results).toEqual([]);
    expect(nothing.body.budget.used).toBe(3);
    expect((await sessionSearch(tenant, key, id, { tool_id: "fs::read_file" })).status).toBe(429);
  });

  it("does not count a request refused before it runs", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const id = await newSession(tenant, key);
    const both = await sessionSearch(tenant, key, id, { query: "x", tool_id: "fs::read_file" });
    expect(both.status).toBe(400);
    const state = await call("GET", sessionPath(tenant, id), { token: key });
    expect(state.body.budget.used).toBe(0);
  });

  it("takes the cap from the tenant setting, and a session may override it", async () => {
    const { tenant, key } = await tenantWithCatalog({ search_budget: 1 });
    const tenantCap = await newSession(tenant, key);
    expect((await sessionSearch(tenant, key, tenantCap, { query: "issues" })).status).toBe(200);
    const refused = await sessionSearch(tenant, key, tenantCap, { query: "issues" });
    expect(refused.status).toBe(429);
    expect(refused.body.budgetCap).toBe(1);

    const own = await newSession(tenant, key, { budget_cap: 2 });
    expect((await sessionSearch(tenant, key, own, { query: "issues" })).status).toBe(200);
    expect((await sessionSearch(tenant, key, own, { query: "issues" })).status).toBe(200);
    const third = await sessionSearch(tenant, key, own, { query: "issues" });
    expect(third.status).toBe(429);
    expect(third.body.budgetCap).toBe(2);
  });

  it("makes a retried turn start harmless when the client names the turn", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const id = await newSession(tenant, key);
    const start = (body?: unknown) =>
      call("POST", sessionPath(tenant, id, "/turns"), { token: key, ...(body ? { body } : {}) });
    expect((await start({ turn: 2 })).body.turn).toBe(2);
    expect((await start({ turn: 2 })).body.turn).toBe(2);
    const skip = await start({ turn: 5 });
    expect(skip.status).toBe(409);
    expect(skip.body.turn).toBe(2);
    expect((await start()).body.turn).toBe(3);
  });

  it("searches without a session are not budgeted and activate nothing", async () => {
    const { tenant, key } = await tenantWithCatalog({ search_budget: 1 });
    for (let i = 0; i < 3; i++) {
      const r = await call("POST", `/v1/tenants/${tenant}/search`, { token: key, body: { query: "issues" } });
      expect(r.status).toBe(200);
      expect(r.body.activated).toEqual([]);
      expect(r.body.budget).toBeUndefined();
    }
  });
});
