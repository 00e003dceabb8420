/**
 * The audit trail: every change to keys, settings and the catalog, with who, what, when and the
 * revision, newest first and paginated; ids and counts only, never secrets or tool bodies.
 */
import { describe, expect, it } from "vitest";
import { call, createTenant, mcpTool, OPERATOR, upsert } from "../helpers.ts";

interface Entry {
  seq: number;
  at: string;
  actor: string;
  action: string;
  revision: number;
  details: Record<string, unknown>;
}

async function trail(tenant: string, token: string): Promise<Entry[]> {
  const entries: Entry[] = [];
  let cursor: string | null = null;
  do {
    const page: { status: number; body: { entries: Entry[]; next_cursor: string | null } } = await call(
      "GET",
      `/v1/tenants/${tenant}/audit?limit=3${cursor ? `&cursor=${cursor}` : ""}`,
      { token },
    );
    expect(page.status).toBe(200);
    expect(page.body.entries.length).toBeLessThanOrEqual(3);
    entries.push(...page.body.entries);
    cursor = page.body.next_cursor;
  } while (cursor);
  return entries;
}

describe("audit trail", () => {
  it(
    "records each change with who, what, when and the revision, newest first, without " + "secrets or tool bodies",
    async () => {
      const tenant = await createTenant();
      const created = await call("POST", `/v1/tenants/${tenant}/keys`, {
        token: OPERATOR,
        body: { scopes: ["search", "write", "admin"], label: "ops" },
      });
      const key = created.body.key as string;
      const keyId = created.body.id as string;
      const actor = `key:${keyId}`;
      const secretBody = "SECRET-TOOL-BODY convert currencies";
      const tools = [
        { server: "fx", ...mcpTool("convert", secretBody) },
        { server: "fx", ...mcpTool("rates", "Exchange rates") },
      ];

      expect((await upsert(tenant, key, tools)).status).toBe(200);
      expect((await upsert(tenant, key, tools)).body).toMatchObject({ unchanged: 2 }); // no change: not recorded
      expect((await upsert(tenant, key, [{ ...tools[0]!, server: "fx", inputSchema: "not a schema" }])).status).toBe(
        400,
      ); // refused: not recorded
      expect(
        (
          await call("PUT", `/v1/tenants/${tenant}/servers/fx/tools`, {
            token: key,
            body: { tools: [mcpTool("convert", "Convert")], defer_tools: "never" },
          })
        ).status,
      ).toBe(200);
      expect((await call("DELETE", `/v1/tenants/${tenant}/tools/fx::convert`, { token: key })).status).toBe(200);
      expect((await upsert(tenant, key, [{ server: "gone", ...mcpTool("x", "X") }])).status).toBe(200);
      expect((await call("DELETE", `/v1/tenants/${tenant}/servers/gone`, { token: key })).status).toBe(200);
      expect(
        (await call("PATCH", `/v1/tenants/${tenant}/settings`, { token: key, body: { search_budget: 5 } })).status,
      ).toBe(200);
      const other = await call("POST", `/v1/tenants/${tenant}/keys`, { token: key, body: { scopes: ["search"] } });
      expect((await call("DELETE", `/v1/tenants/${tenant}/keys/${other.body.id}`, { token: OPERATOR })).status).toBe(
        204,
      );

      const entries = await trail(tenant, key);
      expect(entries.map((e) => [e.actor, e.action, e.revision, e.details])).toEqual([
        ["operator", "key.revoke", 5, { key_id: other.body.id, sessions_ended: 0 }],
        [actor, "key.create", 5, { key_id: other.body.id, scopes: ["search"] }],
        [actor, "settings.update", 5, { patch: { search_budget: 5 } }],
        [actor, "server.delete", 5, { server: "gone", removed: 1 }],
        [actor, "tools.upsert", 4, { added: 1, updated: 0, unchanged: 0, removed: 0, servers: 1 }],
        [actor, "tool.delete", 3, { tool_id: "fx::convert" }],
        [
          actor,
          "server.replace",
          2,
          { server: "fx", added: 0, updated: 1, unchanged: 0, removed: 1, defer_tools: "never" },
        ],
        [actor, "tools.upsert", 1, { added: 2, updated: 0, unchanged: 0, removed: 0, servers: 1 }],
        ["operator", "key.create", 0, { key_id: keyId, scopes: ["search", "write", "admin"] }],
        ["operator", "tenant.create", 0, { settings: [] }],
      ]);
      const seqs = entries.map((e) => e.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => b - a));
      for (const e of entries) expect(Date.parse(e.at)).toBeGreaterThan(Date.now() - 60_000);

      const text = JSON.stringify(entries);
      expect(text).not.toContain(key);
      expect(text).not.toContain(key.split("_")[3]);
      expect(text).not.toContain(other.body.key);
      expect(text).not.toContain("SECRET-TOOL-BODY");
    },
  );

  it("no audit entry for writes that change nothing: empty or same settings, same synonyms, no learning", async () => {
    const tenant = await createTenant();
    const count = async () => (await trail(tenant, OPERATOR)).length;
    const patch = (body: unknown) => call("PATCH", `/v1/tenants/${tenant}/settings`, { token: OPERATOR, body });
    const synonyms = (map: unknown) =>
      call("PUT", `/v1/tenants/${tenant}/synonyms`, { token: OPERATOR, body: { synonyms: map } });
    expect((await patch({ search_budget: 4 })).status).toBe(200);
    expect((await synonyms({ repo: ["repository"] })).status).toBe(200);
    const before = await count();
    for (let i = 0; i < 5; i++) {
      expect((await patch({})).status).toBe(200);
      expect((await patch({ search_budget: 4 })).status).toBe(200);
      expect((await synonyms({ repo: ["repository"] })).status).toBe(200);
      const forget = await call("DELETE", `/v1/tenants/${tenant}/learned`, { token: OPERATOR });
      expect(forget.body).toEqual({ tools: 0, terms: 0 });
    }
    expect(await count()).toBe(before);
    expect((await patch({ search_budget: 5 })).status).toBe(200);
    expect(await count()).toBe(before + 1);
  });

  it("refuses a cursor it did not make", async () => {
    const tenant = await createTenant();
    const r = await call("GET", `/v1/tenants/${tenant}/audit?cursor=bm9wZQ`, { token: OPERATOR });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("invalid-request");
  });
});
