/**
 * Sessions belong to the key that created them: another key of the same tenant is told they do
 * not exist, admin keys and the operator may act on any, revoking a key ends its sessions, an
 * admin can end all of one key's sessions, and what a retry must repeat is kept as a digest.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, createKey, mcpTool, OPERATOR } from "../helpers.ts";
import {
  newSession,
  resolve,
  sessionPath,
  sessionSearch,
  tenantStub,
  tenantWithCatalog,
  toolList,
} from "./session-helpers.ts";

const keyId = (key: string) => key.split("_")[2]!;
const MERGE = "github::merge_pull_request";

/** Rows learning keeps per session (the words its turn's searches recorded, the tools it credited) for these ids. */
async function learningRows(tenant: string, ids: string[]): Promise<{ terms: number; credits: number }> {
  return runInDurableObject(tenantStub(tenant), (_o, state) => {
    const count = (table: string) =>
      state.storage.sql
        .exec<{ n: number }>(
          `SELECT COUNT(*) AS n FROM ${table} WHERE session_id IN (${ids.map(() => "?").join(", ")})`,
          ...ids,
        )
        .one().n;
    return { terms: count("session_terms"), credits: count("session_credits") };
  });
}

/** Every route that names a session, as `key` would call it: the statuses it gets. */
async function statusesOn(tenant: string, key: string, id: string): Promise<Record<string, number>> {
  return {
    get: (await call("GET", sessionPath(tenant, id), { token: key })).status,
    turn: (await call("POST", sessionPath(tenant, id, "/turns"), { token: key, body: {} })).status,
    tools: (await toolList(tenant, key, id)).status,
    setTools: (
      await call("PUT", sessionPath(tenant, id, "/tools"), {
        token: key,
        body: { tools: [mcpTool("pick", "Pick one")] },
      })
    ).status,
    resolve: (await resolve(tenant, key, id, "core__ask_user")).status,
    search: (await sessionSearch(tenant, key, id, { query: "issues" })).status,
  };
}

const all = (status: number) => ({
  get: status,
  turn: status,
  tools: status,
  setTools: status,
  resolve: status,
  search: status,
});

describe("sessions owned by their key", () => {
  it("another search key gets 404 on every route that names the session, and cannot take its id", async () => {
    const { tenant } = await tenantWithCatalog();
    const a = await createKey(tenant, ["search"]);
    const b = await createKey(tenant, ["search"]);
    const id = await newSession(tenant, a, { session_id: "chat-a" });
    const before = await call("GET", sessionPath(tenant, id), { token: a });
    expect(before.body.owner).toBe(`key:${keyId(a)}`);

    expect(await statusesOn(tenant, b, id)).toEqual(all(404));
    const notFound = await call("GET", sessionPath(tenant, id), { token: b });
    expect(notFound.body.error).toBe("not-found");
    expect(notFound.text).not.toContain(keyId(a));
    // Creating it again under B's name is a conflict that tells nothing of what it holds.
    const taken = await call("POST", sessionPath(tenant), { token: b, body: { session_id: id } });
    expect(taken.status).toBe(409);
    expect((await call("DELETE", sessionPath(tenant, id), { token: b })).status).toBe(404);

    // B's attempts changed nothing: A's session is as it was (bar the turn and search A's own calls make).
    const after = await call("GET", sessionPath(tenant, id), { token: a });
    expect(after.body).toMatchObject({ turn: before.body.turn, budget: before.body.budget, activated: [] });
    expect(await statusesOn(tenant, a, id)).toEqual(all(200));
  });

  it("admin keys and the operator may act on any session", async () => {
    const { tenant } = await tenantWithCatalog();
    const a = await createKey(tenant, ["search"]);
    const admin = await createKey(tenant, ["search", "admin"]);
    const id = await newSession(tenant, a);
    expect(await statusesOn(tenant, admin, id)).toEqual(all(200));
    expect(await statusesOn(tenant, OPERATOR, id)).toEqual(all(200));
    // And sessions the operator creates belong to the operator: a plain key is told they do not exist.
    const ops = await newSession(tenant, OPERATOR);
    expect((await call("GET", sessionPath(tenant, ops), { token: a })).status).toBe(404);
  });

  it("the MCP endpoint serves a session to its own key only", async () => {
    const { tenant } = await tenantWithCatalog();
    const a = await createKey(tenant, ["search"]);
    const b = await createKey(tenant, ["search"]);
    const id = await newSession(tenant, a);
    const headers = { accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" };
    const list = { jsonrpc: "2.0", id: 2, method: "tools/list" };
    const own = await call("POST", `/v1/tenants/${tenant}/mcp`, {
      token: a,
      headers: { ...headers, "mcp-session-id": id },
      body: list,
    });
    expect(own.status).toBe(200);
    const foreign = await call("POST", `/v1/tenants/${tenant}/mcp`, {
      token: b,
      headers: { ...headers, "mcp-session-id": id },
      body: list,
    });
    expect(foreign.status).toBe(404);
    const bind = await call("POST", `/v1/tenants/${tenant}/mcp`, {
      token: b,
      headers: { ...headers, "x-tool-search-session": id },
      body: {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      },
    });
    expect(bind.status).toBe(404);
    const ended = await call("DELETE", `/v1/tenants/${tenant}/mcp`, { token: b, headers: { "mcp-session-id": id } });
    expect(ended.status).toBe(404);
    expect((await call("GET", sessionPath(tenant, id), { token: a })).status).toBe(200);
  });

  it("revoking a key ends its sessions (and only its sessions)", async () => {
    const { tenant } = await tenantWithCatalog();
    const a = await createKey(tenant, ["search"]);
    const b = await createKey(tenant, ["search"]);
    const mine = [await newSession(tenant, a), await newSession(tenant, a)];
    const theirs = await newSession(tenant, b);
    // A search records the turn's words and a resolve credits them (learning): those rows end with the sessions too.
    expect((await sessionSearch(tenant, a, mine[0]!, { query: "merge pull request" })).status).toBe(200);
    expect((await sessionSearch(tenant, a, mine[0]!, { tool_id: MERGE })).status).toBe(200);
    expect((await resolve(tenant, a, mine[0]!, MERGE)).status).toBe(200);
    expect((await sessionSearch(tenant, a, mine[1]!, { query: "merge pull request" })).status).toBe(200);
    expect(await learningRows(tenant, mine)).toEqual({ terms: 2, credits: 1 });
    expect((await call("DELETE", `/v1/tenants/${tenant}/keys/${keyId(a)}`, { token: OPERATOR })).status).toBe(204);
    for (const id of mine) expect((await call("GET", sessionPath(tenant, id), { token: OPERATOR })).status).toBe(404);
    expect((await call("GET", sessionPath(tenant, theirs), { token: b })).status).toBe(200);
    const rows = await runInDurableObject(tenantStub(tenant), (_o, state) =>
      state.storage.sql.exec(`SELECT id FROM sessions WHERE owner = ?`, `key:${keyId(a)}`).toArray(),
    );
    expect(rows).toEqual([]);
    expect(await learningRows(tenant, mine)).toEqual({ terms: 0, credits: 0 });
    const audit = await call("GET", `/v1/tenants/${tenant}/audit?limit=1`, { token: OPERATOR });
    expect(audit.body.entries[0]).toMatchObject({ action: "key.revoke", details: { sessions_ended: 2 } });
  });

  it("an admin ends every session of one key, which stays valid", async () => {
    const { tenant } = await tenantWithCatalog();
    const a = await createKey(tenant, ["search"]);
    const admin = await createKey(tenant, ["admin"]);
    for (let i = 0; i < 3; i++) await newSession(tenant, a);
    const purge = (token: string, id = keyId(a)) =>
      call("DELETE", `/v1/tenants/${tenant}/keys/${id}/sessions`, { token });
    expect((await purge(a)).status).toBe(403);
    const purged = await purge(admin);
    expect(purged.status).toBe(200);
    expect(purged.body).toEqual({ key_id: keyId(a), ended: 3 });
    expect((await purge(admin)).body).toEqual({ key_id: keyId(a), ended: 0 });
    expect((await purge(admin, "nosuchkey000")).status).toBe(404);
    expect((await call("POST", sessionPath(tenant), { token: a, body: {} })).status).toBe(201);
    const audit = await call("GET", `/v1/tenants/${tenant}/audit?limit=1`, { token: admin });
    expect(audit.body.entries[0]).toMatchObject({
      action: "sessions.purge",
      actor: `key:${keyId(admin)}`,
      details: { key_id: keyId(a), ended: 3 },
    });
  });

  it("keeps what a retried create must repeat as a digest: the client tools are stored once", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const tools = [mcpTool("pick_color", "CLIENT-TOOL-MARKER let the user pick a color")];
    const id = await newSession(tenant, key, { session_id: "with-tools", tools });
    const retry = await call("POST", sessionPath(tenant), { token: key, body: { session_id: id, tools } });
    expect(retry.status).toBe(200);
    expect(retry.body.created).toBe(false);
    const other = await call("POST", sessionPath(tenant), { token: key, body: { session_id: id, tools: [] } });
    expect(other.status).toBe(409);
    const row = await runInDurableObject(tenantStub(tenant), (_o, state) =>
      state.storage.sql.exec<{ fingerprint: string }>(`SELECT fingerprint FROM sessions WHERE id = ?`, id).one(),
    );
    expect(row.fingerprint).toMatch(/^[0-9a-f]{64}$/);
  });
});
