/**
 * Catalog history (issue 14): every catalog write keeps what it replaced, so any kept revision can be listed, compared
 * and rolled back to, atomically, as a new revision; search, sessions and the index follow the rollback.
 */
import { env } from "cloudflare:workers";
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, createKey, mcpTool, OPERATOR, search, tenantWithKey, upsert } from "../helpers.ts";

const stubOf = (tenant: string) => env.TENANTS.get(env.TENANTS.idFromName(tenant));

/** Every tool of the catalog in full (summary, hash, keywords and the definition in every format). */
async function everyTool(tenant: string, key: string): Promise<unknown[]> {
  const out: unknown[] = [];
  let cursor: string | null = null;
  do {
    const page: { body: { tools: { tool_id: string }[]; next_cursor: string | null } } = await call(
      "GET",
      `/v1/tenants/${tenant}/tools?limit=500${cursor ? `&cursor=${cursor}` : ""}`,
      { token: key },
    );
    for (const t of page.body.tools) {
      for (const format of ["mcp", "openai"]) {
        out.push((await call("GET", `/v1/tenants/${tenant}/tools/${t.tool_id}?format=${format}`, { token: key })).body);
      }
    }
    cursor = page.body.next_cursor;
  } while (cursor);
  return out;
}

const github = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    mcpTool(
      `gh_tool_${i}`,
      `GitHub operation ${i}: ${["list issues", "create pull request", "merge branch", "review code"][i % 4]}`,
      { repo: { type: "string", description: "owner/name" }, [`p${i}`]: { type: "number" } },
      { annotations: { readOnlyHint: i % 2 === 0 }, title: `Tool ${i}`, keywords: [`kw${i}`] },
    ),
  );

async function catalogState(tenant: string, key: string) {
  const catalog = (await call("GET", `/v1/tenants/${tenant}/catalog`, { token: key })).body;
  return { servers: catalog.servers, tools: catalog.tools, always: catalog.always_loaded };
}

describe("catalog history: the issue's check", () => {
  it("an empty-list replace of a 50-tool server, rolled back: the same catalog, field for field, search", async () => {
    const { tenant, key } = await tenantWithKey();
    const put = await call("PUT", `/v1/tenants/${tenant}/servers/github/tools`, {
      token: key,
      body: { tools: github(50), defer_tools: "auto" },
    });
    expect(put.status, put.text).toBe(200);
    expect((await upsert(tenant, key, [{ server: "other", ...mcpTool("stay", "A tool that stays") }])).status).toBe(
      200,
    );
    const before = await everyTool(tenant, key);
    const beforeState = await catalogState(tenant, key);
    const queries = ["merge a branch", "review code", "gh_tool_7", "list issues in a repo"];
    const answers = await Promise.all(queries.map((q) => search(tenant, key, { query: q, max_results: 10 })));
    const revision = (await call("GET", `/v1/tenants/${tenant}/catalog`, { token: key })).body.revision;

    const emptied = await call("PUT", `/v1/tenants/${tenant}/servers/github/tools`, {
      token: key,
      body: { tools: [] },
    });
    expect(emptied.body).toMatchObject({ removed: 50, revision: revision + 1 });
    expect((await search(tenant, key, { query: "gh_tool_7" })).body.results).toEqual([]);

    const diff = await call("GET", `/v1/tenants/${tenant}/catalog/diff?from=${revision}&to=${revision + 1}`, {
      token: key,
    });
    expect(diff.status, diff.text).toBe(200);
    expect(diff.body.removed).toHaveLength(50);
    expect(diff.body.removed).toContain("github::gh_tool_0");
    expect(diff.body).toMatchObject({ added: [], changed: [], next_cursor: null });

    const back = await call("POST", `/v1/tenants/${tenant}/catalog/rollback`, { token: key, body: { revision } });
    expect(back.status, back.text).toBe(200);
    expect(back.body).toMatchObject({ revision: revision + 2, rolled_back_to: revision, added: 50, removed: 0 });

    expect(await everyTool(tenant, key)).toEqual(before);
    expect(await catalogState(tenant, key)).toEqual(beforeState);
    for (const [i, q] of queries.entries())
      expect((await search(tenant, key, { query: q, max_results: 10 })).body).toEqual(answers[i]!.body);
    // The same after the object forgets its memory: rows and index agree.
    await evictDurableObject(stubOf(tenant));
    expect(await everyTool(tenant, key)).toEqual(before);
    for (const [i, q] of queries.entries())
      expect((await search(tenant, key, { query: q, max_results: 10 })).body).toEqual(answers[i]!.body);
    // Nothing differs between the revision rolled back to and the rollback's.
    const same = await call("GET", `/v1/tenants/${tenant}/catalog/diff?from=${revision}`, { token: key });
    expect(same.body).toMatchObject({
      added: [],
      removed: [],
      changed: [],
      servers: { added: [], removed: [], changed: [] },
    });
  });
});

describe("catalog history", () => {
  it("lists revisions newest first, with time, key, route and counts, a page at a time", async () => {
    const { tenant, key } = await tenantWithKey();
    const keyId = key.split("_")[2];
    await upsert(tenant, key, [{ server: "a", ...mcpTool("one", "First tool") }]);
    await call("PUT", `/v1/tenants/${tenant}/servers/b/tools`, {
      token: OPERATOR,
      body: { tools: [mcpTool("two", "Second tool")] },
    });
    await call("DELETE", `/v1/tenants/${tenant}/tools/a::one`, { token: key });
    await call("DELETE", `/v1/tenants/${tenant}/servers/b`, { token: key });
    const first = await call("GET", `/v1/tenants/${tenant}/catalog/revisions?limit=3`, { token: key });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ current_revision: 4, oldest_revision: 0 });
    expect(first.body.revisions.map((r: { revision: number }) => r.revision)).toEqual([4, 3, 2]);
    expect(first.body.revisions[0]).toMatchObject({
      actor: `key:${keyId}`,
      key_id: keyId,
      action: "server.delete",
      route: "DELETE /v1/tenants/{tenant}/servers/{server}",
      removed: 1,
      details: { server: "b" },
    });
    expect(first.body.revisions[1]).toMatchObject({ action: "tool.delete", details: { tool_id: "a::one" } });
    expect(first.body.revisions[2]).toMatchObject({ actor: "operator", key_id: null, action: "server.replace" });
    expect(new Date(first.body.revisions[0].at).getTime()).toBeGreaterThan(Date.now() - 60_000);
    const rest = await call("GET", `/v1/tenants/${tenant}/catalog/revisions?cursor=${first.body.next_cursor}`, {
      token: key,
    });
    expect(rest.body.revisions.map((r: { action: string }) => r.action)).toEqual(["tools.upsert", "tenant.create"]);
    expect(rest.body.revisions[0]).toMatchObject({ added: 1, route: "POST /v1/tenants/{tenant}/tools" });
    expect(rest.body.next_cursor).toBeNull();
    // A write that changes nothing makes no revision.
    await upsert(tenant, key, [{ server: "a", ...mcpTool("one", "First tool") }]);
    await upsert(tenant, key, [{ server: "a", ...mcpTool("one", "First tool") }]);
    expect((await call("GET", `/v1/tenants/${tenant}/catalog/revisions`, { token: key })).body.current_revision).toBe(
      5,
    );
  });

  it("a bad upload that overwrote descriptions goes back; the diff names the changed fields", async () => {
    const { tenant, key } = await tenantWithKey();
    const tools = Array.from({ length: 30 }, (_, i) => ({
      server: "docs",
      ...mcpTool(`doc_${i}`, `Find documents about topic ${i}`, { q: { type: "string" } }),
    }));
    await upsert(tenant, key, tools);
    const good = await everyTool(tenant, key);
    const broken = tools.map((t, i) => ({ ...t, description: "TODO", ...(i < 3 ? { keywords: ["x"] } : {}) }));
    expect((await upsert(tenant, key, broken)).body).toMatchObject({ revision: 2, updated: 30 });
    const diff = await call("GET", `/v1/tenants/${tenant}/catalog/diff?from=1&to=2&limit=10`, { token: key });
    expect(diff.body.changed).toHaveLength(10);
    expect(diff.body.changed[0]).toEqual({ tool_id: "docs::doc_0", fields: ["description", "keywords"] });
    expect(diff.body.changed.find((c: { tool_id: string }) => c.tool_id === "docs::doc_13")).toEqual({
      tool_id: "docs::doc_13",
      fields: ["description"],
    });
    // Pages follow by id until the cursor runs out.
    const seen = new Set(diff.body.changed.map((c: { tool_id: string }) => c.tool_id));
    let cursor = diff.body.next_cursor;
    expect(diff.body.servers).not.toBeNull();
    while (cursor) {
      const page = await call("GET", `/v1/tenants/${tenant}/catalog/diff?from=1&to=2&limit=10&cursor=${cursor}`, {
        token: key,
      });
      expect(page.body.servers).toBeNull();
      for (const c of page.body.changed) seen.add(c.tool_id);
      cursor = page.body.next_cursor;
    }
    expect(seen.size).toBe(30);
    // Reversed, the same tools changed.
    expect(
      (await call("GET", `/v1/tenants/${tenant}/catalog/diff?from=2&to=1`, { token: key })).body.changed,
    ).toHaveLength(30);
    const back = await call("POST", `/v1/tenants/${tenant}/catalog/rollback`, { token: key, body: { revision: 1 } });
    expect(back.body).toMatchObject({ revision: 3, updated: 30, added: 0, removed: 0 });
    expect(await everyTool(tenant, key)).toEqual(good);
    expect((await search(tenant, key, { query: "documents topic 7" })).body.results[0].tool_id).toBe("docs::doc_7");
    // The rollback is a revision like any other: rolling it back redoes the bad upload.
    const redo = await call("POST", `/v1/tenants/${tenant}/catalog/rollback`, { token: key, body: { revision: 2 } });
    expect(redo.body).toMatchObject({ revision: 4, updated: 30 });
    expect((await call("GET", `/v1/tenants/${tenant}/tools/docs::doc_4`, { token: key })).body.description).toBe(
      "TODO",
    );
    const audit = await call("GET", `/v1/tenants/${tenant}/audit?limit=2`, { token: key });
    expect(audit.body.entries[0]).toMatchObject({
      action: "catalog.rollback",
      revision: 4,
      details: { to: 2, updated: 30 },
    });
  });

  it("sessions follow: a tool that goes away leaves activated sets, one that comes back is found again", async () => {
    const { tenant, key } = await tenantWithKey();
    await upsert(tenant, key, [{ server: "mail", ...mcpTool("send_mail", "Send an email message") }]);
    await call("POST", `/v1/tenants/${tenant}/sessions`, { token: key, body: { session_id: "chat" } });
    const found = await search(tenant, key, { query: "send an email", session_id: "chat" });
    expect(found.body.activated).toEqual(["mail::send_mail"]);
    // Revision 2 adds a calendar tool, which the session activates; rolling back to 1 removes it.
    await upsert(tenant, key, [{ server: "cal", ...mcpTool("create_event", "Create a calendar event") }]);
    await search(tenant, key, { query: "calendar event", session_id: "chat" });
    expect((await call("GET", `/v1/tenants/${tenant}/sessions/chat`, { token: key })).body.activated).toEqual([
      "mail::send_mail",
      "cal::create_event",
    ]);
    const back = await call("POST", `/v1/tenants/${tenant}/catalog/rollback`, { token: key, body: { revision: 1 } });
    expect(back.body).toMatchObject({ removed: 1, servers: { removed: 1 } });
    expect((await call("GET", `/v1/tenants/${tenant}/sessions/chat`, { token: key })).body.activated).toEqual([
      "mail::send_mail",
    ]);
    const resolve = await call("POST", `/v1/tenants/${tenant}/sessions/chat/resolve`, {
      token: key,
      body: { name: "cal__create_event" },
    });
    expect(resolve.status).toBe(409);
    expect((await search(tenant, key, { query: "calendar event" })).body.results).toEqual([]);
    // Rolling forward again brings it back: searchable, and found by a session at once.
    await call("POST", `/v1/tenants/${tenant}/catalog/rollback`, { token: key, body: { revision: 2 } });
    const again = await search(tenant, key, { query: "calendar event", session_id: "chat" });
    expect(again.body.results[0].tool_id).toBe("cal::create_event");
    expect(again.body.activated).toEqual(["cal::create_event"]);
  });

  it("restores model-facing names and servers' defer_tools as they were", async () => {
    const { tenant, key } = await tenantWithKey();
    // Revision 1: `a.b` holds the plain name; `a_b` arrives later with a suffix.
    await upsert(tenant, key, [{ server: "s", ...mcpTool("a.b", "Dotted") }]);
    await upsert(tenant, key, [{ server: "s", ...mcpTool("a_b", "Underscored") }]);
    await call("PUT", `/v1/tenants/${tenant}/servers/s/tools`, {
      token: key,
      body: { tools: [mcpTool("a.b", "Dotted"), mcpTool("a_b", "Underscored")], defer_tools: "never" },
    });
    const names = async () =>
      (await call("GET", `/v1/tenants/${tenant}/tools`, { token: key })).body.tools.map(
        (t: { tool_id: string; model_name: string }) => `${t.tool_id}=${t.model_name}`,
      );
    const at3 = await names();
    // Revisions 4-6 empty the server, then add `a_b` before `a.b`: now `a_b` holds the plain name, `a.b` the suffix.
    await call("PUT", `/v1/tenants/${tenant}/servers/s/tools`, {
      token: key,
      body: { tools: [], defer_tools: "auto" },
    });
    await upsert(tenant, key, [{ server: "s", ...mcpTool("a_b", "Underscored") }]);
    await upsert(tenant, key, [{ server: "s", ...mcpTool("a.b", "Dotted again") }]);
    expect(await names()).not.toEqual(at3);
    const back = await call("POST", `/v1/tenants/${tenant}/catalog/rollback`, { token: key, body: { revision: 3 } });
    expect(back.status, back.text).toBe(200);
    expect(await names()).toEqual(at3);
    const catalog = (await call("GET", `/v1/tenants/${tenant}/catalog`, { token: key })).body;
    expect(catalog.servers).toEqual([
      expect.objectContaining({ name: "s", defer_tools: "never", tools: 2, always_loaded: 2 }),
    ]);
    expect(catalog.always_loaded).toBe(2);
  });

  it("refuses a revision that does not exist (404) or is no longer kept (410), and changes nothing", async () => {
    const { tenant, key } = await tenantWithKey();
    await upsert(tenant, key, [{ server: "a", ...mcpTool("one", "First tool") }]);
    const ahead = await call("POST", `/v1/tenants/${tenant}/catalog/rollback`, { token: key, body: { revision: 9 } });
    expect(ahead.status).toBe(404);
    expect(ahead.body).toMatchObject({ error: "not-found", current_revision: 1 });
    // Rolling back to the current revision is no change and no new revision.
    const same = await call("POST", `/v1/tenants/${tenant}/catalog/rollback`, { token: key, body: { revision: 1 } });
    expect(same.body).toMatchObject({ revision: 1, added: 0, updated: 0, removed: 0 });
    // History that was pruned (here by hand) answers 410 with the oldest kept revision.
    await runInDurableObject(stubOf(tenant), (_o, state) => {
      state.storage.sql.exec(`DELETE FROM catalog_revisions WHERE revision < 1`);
    });
    const gone = await call("POST", `/v1/tenants/${tenant}/catalog/rollback`, { token: key, body: { revision: 0 } });
    expect(gone.status).toBe(410);
    expect(gone.body).toMatchObject({ error: "gone", oldest_revision: 1 });
    expect(gone.body.message).toContain("oldest revision that can be rolled back to is 1");
    const diff = await call("GET", `/v1/tenants/${tenant}/catalog/diff?from=0`, { token: key });
    expect(diff.status).toBe(410);
    for (const bad of [{ revision: -1 }, { revision: "1" }, {}, { revision: 1, extra: true }]) {
      const r = await call("POST", `/v1/tenants/${tenant}/catalog/rollback`, { token: key, body: bad });
      expect(r.status, JSON.stringify(bad)).toBe(400);
    }
    expect((await call("GET", `/v1/tenants/${tenant}/catalog`, { token: key })).body.revision).toBe(1);
  });

  it("needs the write scope to roll back and the search scope to read history", async () => {
    const { tenant } = await tenantWithKey();
    const reader = await createKey(tenant, ["search"]);
    const writer = await createKey(tenant, ["write"]);
    expect((await call("GET", `/v1/tenants/${tenant}/catalog/revisions`, { token: reader })).status).toBe(200);
    expect((await call("GET", `/v1/tenants/${tenant}/catalog/revisions`, { token: writer })).status).toBe(403);
    const r = await call("POST", `/v1/tenants/${tenant}/catalog/rollback`, { token: reader, body: { revision: 0 } });
    expect(r.status).toBe(403);
  });

  it("reports what history costs in GET .../catalog", async () => {
    const { tenant, key } = await tenantWithKey();
    await upsert(
      tenant,
      key,
      github(10).map((t) => ({ server: "g", ...t })),
    );
    const before = (await call("GET", `/v1/tenants/${tenant}/catalog`, { token: key })).body.history;
    expect(before).toMatchObject({ revisions: 2, oldest_revision: 0, tool_versions: 10 });
    await upsert(
      tenant,
      key,
      github(10).map((t) => ({ server: "g", ...t, description: `${t.description} (v2)` })),
    );
    const after = (await call("GET", `/v1/tenants/${tenant}/catalog`, { token: key })).body.history;
    expect(after).toMatchObject({ revisions: 3, tool_versions: 20 });
    // The second write's before-images hold the full rows: bigger than the first's absence markers.
    expect(after.bytes - before.bytes).toBeGreaterThan(10 * 200);
  });
});
