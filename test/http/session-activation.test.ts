import { evictDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call } from "../helpers.ts";
import {
  newSession,
  resolve,
  sessionPath,
  sessionSearch,
  tenantStub,
  tenantWithCatalog,
  toolList,
} from "./session-helpers.ts";

describe("activation inside the search", () => {
  it("activates the results before the answer leaves: a resolve right after the search finds them", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const id = await newSession(tenant, key);
    const before = await resolve(tenant, key, id, "github__list_issues");
    expect(before.status).toBe(409);
    const found = await sessionSearch(tenant, key, id, { query: "list issues" });
    expect(found.status, found.text).toBe(200);
    expect(found.body.results[0].tool_id).toBe("github::list_issues");
    expect(found.body.activated).toContain("github::list_issues");
    const after = await resolve(tenant, key, id, "github__list_issues");
    expect(after.status, after.text).toBe(200);
    expect(after.body).toMatchObject({
      name: "github__list_issues",
      source: "activated",
      tool_id: "github::list_issues",
    });
    expect(after.body.definition.inputSchema.properties.repo).toBeDefined();
  });

  it("holds up for every one of many back-to-back search/resolve pairs", async () => {
    const { tenant, key } = await tenantWithCatalog({ search_budget: 20 });
    const id = await newSession(tenant, key);
    const targets = [
      "fs::read_file",
      "fs::write_file",
      "weather::get_forecast",
      "calendar::create_event",
      "mail::send_email",
      "github::merge_pull_request",
    ];
    for (const target of targets) {
      const s = await sessionSearch(tenant, key, id, { tool_id: target });
      expect(s.status).toBe(200);
      const r = await resolve(tenant, key, id, target);
      expect(r.status, `${target}: ${r.text}`).toBe(200);
    }
  });

  it("lists in `activated` only the tools that were not active before", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const id = await newSession(tenant, key);
    const first = await sessionSearch(tenant, key, id, { tool_id: "fs::read_file" });
    expect(first.body.activated).toEqual(["fs::read_file"]);
    const again = await sessionSearch(tenant, key, id, { tool_id: "fs::read_file" });
    expect(again.body.results[0].tool_id).toBe("fs::read_file");
    expect(again.body.activated).toEqual([]);
    const always = await sessionSearch(tenant, key, id, { tool_id: "core::ask_user" });
    expect(always.body.activated).toEqual([]); // always loaded already
  });

  it(
    "keeps activated tools across Durable Object eviction (a client can rebuild its list " + "after compaction)",
    async () => {
      const { tenant, key } = await tenantWithCatalog();
      const id = await newSession(tenant, key);
      await sessionSearch(tenant, key, id, { tool_id: "weather::get_forecast" });
      await sessionSearch(tenant, key, id, { tool_id: "fs::read_file" });
      const listBefore = await toolList(tenant, key, id);
      await evictDurableObject(tenantStub(tenant));
      const state = await call("GET", sessionPath(tenant, id), { token: key });
      expect(state.status, state.text).toBe(200);
      expect(state.body.activated).toEqual(["weather::get_forecast", "fs::read_file"]);
      expect(state.body.budget.used).toBe(2);
      const listAfter = await toolList(tenant, key, id);
      expect(listAfter.body.tools).toEqual(listBefore.body.tools);
      expect((await resolve(tenant, key, id, "weather__get_forecast")).status).toBe(200);
    },
  );

  it("drops activated tools that leave the catalog: deleted tool, deleted server, replaced server set", async () => {
    const { tenant, key } = await tenantWithCatalog({ search_budget: 10 });
    const id = await newSession(tenant, key);
    for (const t of [
      "fs::read_file",
      "fs::write_file",
      "weather::get_forecast",
      "github::list_issues",
      "github::create_issue",
    ]) {
      expect((await sessionSearch(tenant, key, id, { tool_id: t })).status).toBe(200);
    }
    expect((await call("DELETE", `/v1/tenants/${tenant}/tools/fs::read_file`, { token: key })).status).toBe(200);
    expect((await call("DELETE", `/v1/tenants/${tenant}/servers/weather`, { token: key })).status).toBe(200);
    const replaced = await call("PUT", `/v1/tenants/${tenant}/servers/github/tools`, {
      token: key,
      body: { tools: [{ name: "list_issues", description: "List issues (v2)", inputSchema: { type: "object" } }] },
    });
    expect(replaced.status, replaced.text).toBe(200);
    const state = await call("GET", sessionPath(tenant, id), { token: key });
    // list_issues was replaced in place (same id): it stays; create_issue left with the replace.
    expect(state.body.activated).toEqual(["fs::write_file", "github::list_issues"]);
    const gone = await resolve(tenant, key, id, "fs__read_file");
    expect(gone.status).toBe(409);
    expect(gone.body.in_catalog).toBe(false);
    // Uploading the tool again does not bring the activation back: it must be found again.
    await call("POST", `/v1/tenants/${tenant}/tools`, {
      token: key,
      body: {
        tools: [{ server: "fs", name: "read_file", description: "Read a file", inputSchema: { type: "object" } }],
      },
    });
    expect((await resolve(tenant, key, id, "fs__read_file")).status).toBe(409);
  });
});
