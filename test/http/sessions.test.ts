import { describe, expect, it } from "vitest";
import { call, createKey, tenantWithKey } from "../helpers.ts";
import { createSession, newSession, sessionPath, tenantWithCatalog } from "./session-helpers.ts";

describe("sessions: create, read, end", () => {
  it("creates a session with a generated id and the tenant's defaults", async () => {
    const { tenant, key } = await tenantWithCatalog({ search_budget: 4, session_ttl_seconds: 600 });
    const r = await createSession(tenant, key);
    expect(r.status, r.text).toBe(201);
    expect(r.body.session_id).toMatch(/^ses_[A-Za-z0-9]{24}$/);
    expect(r.body).toMatchObject({
      created: true,
      turn: 1,
      ttl_seconds: 600,
      budget: { used: 0, cap: 4, remaining: 4 },
      always_loaded: ["core::ask_user"],
      activated: [],
      session_tools: [],
      tools_version: 0,
      inline: null,
      deferred_tool_loading: false,
    });
    expect(Date.parse(r.body.expires_at) - Date.parse(r.body.created_at)).toBe(600_000);
    const got = await call("GET", sessionPath(tenant, r.body.session_id), { token: key });
    expect(got.status, got.text).toBe(200);
    expect(got.body.session_id).toBe(r.body.session_id);
  });

  it("accepts an empty body", async () => {
    const { tenant, key } = await tenantWithKey();
    const r = await call("POST", sessionPath(tenant), { token: key });
    expect(r.status, r.text).toBe(201);
  });

  it("takes a client-chosen id, budget and ttl; creating it again with the same options is idempotent", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const body = { session_id: "chat-42", budget_cap: 5, ttl_seconds: 120 };
    const first = await createSession(tenant, key, body);
    expect(first.status, first.text).toBe(201);
    expect(first.body).toMatchObject({ session_id: "chat-42", budget: { cap: 5 }, ttl_seconds: 120 });
    const again = await createSession(tenant, key, body);
    expect(again.status, again.text).toBe(200);
    expect(again.body).toMatchObject({ session_id: "chat-42", created: false });
    const other = await createSession(tenant, key, { ...body, budget_cap: 2 });
    expect(other.status, other.text).toBe(409);
    expect(other.body.error).toBe("conflict");
  });

  it("refuses invalid options with 400 and says why", async () => {
    const { tenant, key } = await tenantWithKey();
    for (const body of [
      { session_id: "bad id!" },
      { budget_cap: 0 },
      { ttl_seconds: 5 },
      { surprise: true },
      { inline: ["ok", "not ok"] },
    ]) {
      const r = await createSession(tenant, key, body);
      expect(r.status, `${JSON.stringify(body)}: ${r.text}`).toBe(400);
      expect(r.body.error).toBe("invalid-request");
    }
  });

  it("ends a session with DELETE; it is then 404 with a message that names the way out", async () => {
    const { tenant, key } = await tenantWithKey();
    const id = await newSession(tenant, key);
    const del = await call("DELETE", sessionPath(tenant, id), { token: key });
    expect(del.status, del.text).toBe(204);
    const got = await call("GET", sessionPath(tenant, id), { token: key });
    expect(got.status).toBe(404);
    expect(got.body.error).toBe("not-found");
    expect(got.body.message).toContain(`POST /v1/tenants/${tenant}/sessions`);
    const again = await call("DELETE", sessionPath(tenant, id), { token: key });
    expect(again.status).toBe(404);
  });

  it("keeps one tenant's sessions invisible to every other tenant", async () => {
    const a = await tenantWithCatalog();
    const b = await tenantWithCatalog();
    const id = await newSession(a.tenant, a.key, { session_id: "shared-name" });
    // B's key on A's path is refused before any storage is touched.
    const cross = await call("GET", sessionPath(a.tenant, id), { token: b.key });
    expect(cross.status).toBe(403);
    // B's own tenant has no such session, even with the same id.
    const own = await call("GET", sessionPath(b.tenant, id), { token: b.key });
    expect(own.status).toBe(404);
    const search = await call("POST", `/v1/tenants/${b.tenant}/search`, {
      token: b.key,
      body: { query: "issues", session_id: id },
    });
    expect(search.status).toBe(404);
    // B can create its own session under the same id; A's is untouched.
    expect((await createSession(b.tenant, b.key, { session_id: "shared-name", budget_cap: 9 })).status).toBe(201);
    const stillA = await call("GET", sessionPath(a.tenant, id), { token: a.key });
    expect(stillA.body.budget.cap).toBe(3);
  });

  it("needs the search scope", async () => {
    const { tenant } = await tenantWithKey();
    const writeOnly = await createKey(tenant, ["write"]);
    const r = await createSession(tenant, writeOnly);
    expect(r.status).toBe(403);
    expect(r.body.required_scope).toBe("search");
  });
});
