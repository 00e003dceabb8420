import { describe, expect, it } from "vitest";
import { call, mcpTool } from "../helpers.ts";
import { newSession, sessionSearch, tenantWithCatalog, toolList } from "./session-helpers.ts";

const NAME_RULE = /^[A-Za-z0-9_-]{1,64}$/;

function names(reply: { body: { entries: { name: string }[] } }): string[] {
  return reply.body.entries.map((e) => e.name);
}

describe("the tool list for the next model request", () => {
  it(
    "lists tool_search first, then always-loaded, session and activated tools, appending as " + "tools are activated",
    async () => {
      const { tenant, key } = await tenantWithCatalog({ search_budget: 10 });
      const id = await newSession(tenant, key, { tools: [mcpTool("page_search", "Search this page")] });
      const start = await toolList(tenant, key, id);
      expect(start.status, start.text).toBe(200);
      expect(start.body.entries).toEqual([
        { name: "tool_search", source: "tool_search", tool_id: null },
        { name: "core__ask_user", source: "always-loaded", tool_id: "core::ask_user" },
        { name: "page_search", source: "session", tool_id: null },
      ]);
      await sessionSearch(tenant, key, id, { tool_id: "mail::send_email" });
      const one = await toolList(tenant, key, id);
      await sessionSearch(tenant, key, id, { tool_id: "fs::read_file" });
      await sessionSearch(tenant, key, id, { tool_id: "mail::send_email" }); // again: no change
      const two = await toolList(tenant, key, id);
      expect(names(two)).toEqual(["tool_search", "core__ask_user", "page_search", "mail__send_email", "fs__read_file"]);
      // Append-only: every earlier list is a prefix of the later one, definition for definition.
      expect(two.body.tools.slice(0, start.body.tools.length)).toEqual(start.body.tools);
      expect(two.body.tools.slice(0, one.body.tools.length)).toEqual(one.body.tools);
    },
  );

  it(
    "describes tool_search so a model knows when to call it, with the deferred-tool hint and " +
      "a schema every vendor accepts",
    async () => {
      const { tenant, key } = await tenantWithCatalog();
      const id = await newSession(tenant, key);
      const r = await toolList(tenant, key, id, "anthropic");
      const search = r.body.tools[0];
      expect(search.name).toBe("tool_search");
      expect(search.description).toContain("deferred until you search for them");
      expect(search.description).toContain("calendar, fs, github, mail, weather"); // servers with deferred tools
      expect(search.description).toContain("exactly one of `query`");
      expect(search.description).toContain("3 searches per turn");
      expect(Object.keys(search.input_schema.properties).sort()).toEqual(["max_results", "query", "tool_id"]);
      // No top-level combinators: Anthropic and OpenAI refuse oneOf/anyOf/allOf there.
      for (const k of ["oneOf", "anyOf", "allOf"]) expect(search.input_schema[k]).toBeUndefined();
    },
  );

  it("gives valid, unique model-facing names in every format, long and dotted names included", async () => {
    const longServer = "s".repeat(60);
    const { tenant, key } = await tenantWithCatalog({ default_defer: "never" }, [
      { server: "docs", ...mcpTool("search.v2", "Search docs") },
      { server: longServer, ...mcpTool("a_rather_long_tool_name_for_testing", "Long one") },
      { server: longServer, ...mcpTool("a_rather_long_tool_name_for_testing_2", "Long two") },
      { server: "x", ...mcpTool("plain", "Plain") },
    ]);
    const id = await newSession(tenant, key);
    for (const format of ["mcp", "anthropic", "openai", "openai-responses"]) {
      const r = await toolList(tenant, key, id, format);
      expect(r.status, r.text).toBe(200);
      const defNames = r.body.tools.map(
        (t: { name?: string; function?: { name: string } }) => t.function?.name ?? t.name,
      );
      expect(defNames).toEqual(names(r));
      for (const n of defNames) expect(n, format).toMatch(NAME_RULE);
      expect(new Set(defNames).size).toBe(defNames.length);
    }
    const r = await toolList(tenant, key, id, "openai");
    expect(r.body.tools[1]).toMatchObject({ type: "function", function: { name: "docs__search_v2" } });
  });

  it("rejects an unknown format", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const id = await newSession(tenant, key);
    const r = await call("GET", `/v1/tenants/${tenant}/sessions/${id}/tools?format=xml`, { token: key });
    expect(r.status).toBe(400);
  });
});
