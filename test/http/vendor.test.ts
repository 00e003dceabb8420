/**
 * The vendors' client-side tool search with this service doing the finding: the catalog export in
 * each vendor's deferred form, and search answers as Anthropic tool_reference blocks and OpenAI
 * tool_search_output items whose names and definitions match the export exactly.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { mergeExportPages, ToolSearchClient } from "../../src/client/index.ts";
import { call, createKey } from "../helpers.ts";
import { CATALOG, newSession, sessionSearch, tenantWithCatalog } from "./session-helpers.ts";

type Json = Record<string, any>;

async function exportAll(
  tenant: string,
  key: string,
  format: string,
  limit = 1000,
): Promise<{ pages: Json[]; tools: Json[] }> {
  const pages: Json[] = [];
  let cursor: string | null = null;
  do {
    const r: { status: number; text: string; body: Json } = await call(
      "GET",
      `/v1/tenants/${tenant}/catalog/export?format=${format}&limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`,
      { token: key },
    );
    expect(r.status, r.text).toBe(200);
    pages.push(r.body);
    cursor = r.body.next_cursor;
  } while (cursor);
  return { pages, tools: pages.flatMap((p) => p.tools) };
}

const search = (tenant: string, key: string, body: Json) =>
  call("POST", `/v1/tenants/${tenant}/search`, { token: key, body });

describe("catalog export in the vendors' deferred forms", () => {
  it(
    "anthropic: tool_search first, then every tool under its model-facing name, deferred " + "unless always loaded",
    async () => {
      const { tenant, key } = await tenantWithCatalog();
      const { tools } = await exportAll(tenant, key, "anthropic");
      expect(tools[0]).toMatchObject({ name: "tool_search", input_schema: { type: "object" } });
      expect(tools[0]).not.toHaveProperty("defer_loading");
      const catalog = tools.slice(1);
      expect(catalog).toHaveLength(CATALOG.length);
      for (const tool of catalog) {
        const id = CATALOG.find((t) => `${t.server}__${t.name}` === tool.name)!;
        const detail = await call("GET", `/v1/tenants/${tenant}/tools/${id.server}::${id.name}?format=anthropic`, {
          token: key,
        });
        const alwaysLoaded = id.name === "ask_user";
        expect(tool).toEqual({ ...detail.body.definition, ...(alwaysLoaded ? {} : { defer_loading: true }) });
      }
    },
  );

  it(
    "openai-responses: a client-executed tool_search, then one namespace per server with " + "deferred functions",
    async () => {
      const { tenant, key } = await tenantWithCatalog();
      const { tools } = await exportAll(tenant, key, "openai-responses");
      expect(tools[0]).toEqual({
        type: "tool_search",
        execution: "client",
        description: expect.stringContaining("Find and load tools"),
        parameters: expect.objectContaining({ type: "object" }),
      });
      const namespaces = tools.slice(1);
      expect(namespaces.map((n) => n.name)).toEqual(["calendar", "core", "fs", "github", "mail", "weather"]);
      const github = namespaces.find((n) => n.name === "github")!;
      expect(github.type).toBe("namespace");
      expect(github.description).toBe("Tools of the github server (3): create_issue, list_issues, merge_pull_request.");
      expect(github.tools.map((t: Json) => t.name)).toEqual([
        "github__create_issue",
        "github__list_issues",
        "github__merge_pull_request",
      ]);
      expect(github.tools[1]).toEqual({
        type: "function",
        name: "github__list_issues",
        description: "List issues in a GitHub repository",
        parameters: { type: "object", properties: { repo: { type: "string", description: "owner/name" } } },
        strict: null,
        defer_loading: true,
      });
      expect(namespaces.find((n) => n.name === "core")!.tools[0]).not.toHaveProperty("defer_loading");
    },
  );

  it("pages end at server boundaries; a server bigger than a page is split and merges back", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const whole = (await exportAll(tenant, key, "openai-responses")).tools;
    const paged = await exportAll(tenant, key, "openai-responses", 2);
    expect(paged.pages.length).toBeGreaterThan(3);
    // github (3 tools) is the only server that cannot fit a page of 2.
    const split = paged.pages.flatMap((p) =>
      p.tools.filter((t: Json) => t.type === "namespace").map((t: Json) => t.name),
    );
    expect(split.filter((n: string) => n === "github")).toHaveLength(2);
    expect(new Set(split.filter((n: string) => n !== "github")).size).toBe(split.length - 2);
    expect(mergeExportPages(paged.pages as { tools: Json[] }[])).toEqual(whole);
    // The typed client assembles the pages the same way.
    const api = new ToolSearchClient({
      url: "http://tool-search.test",
      token: key,
      fetch: (r) => exports.default.fetch(r),
    }).tenant(tenant);
    expect(await api.catalogExportAll({ format: "openai-responses", limit: 2 })).toEqual(whole);
    const anthropic = await exportAll(tenant, key, "anthropic", 3);
    expect(anthropic.tools).toEqual((await exportAll(tenant, key, "anthropic")).tools);
  });

  it(
    "can leave tool_search out, filter a server, and refuses bad cursors and keys without " + "the search scope",
    async () => {
      const { tenant, key } = await tenantWithCatalog();
      const r = await call("GET", `/v1/tenants/${tenant}/catalog/export?format=anthropic&tool_search=false&server=fs`, {
        token: key,
      });
      expect(r.body.tools.map((t: Json) => t.name)).toEqual(["fs__read_file", "fs__write_file"]);
      expect(
        (await call("GET", `/v1/tenants/${tenant}/catalog/export?format=anthropic&cursor=zzz`, { token: key })).status,
      ).toBe(400);
      expect((await call("GET", `/v1/tenants/${tenant}/catalog/export?format=gemini`, { token: key })).status).toBe(
        400,
      );
      const writer = await createKey(tenant, ["write"]);
      expect(
        (await call("GET", `/v1/tenants/${tenant}/catalog/export?format=anthropic`, { token: writer })).status,
      ).toBe(403);
    },
  );
});

describe("search answers for the vendors' client-side tool search", () => {
  it("anthropic-tool-reference: a tool_result of tool_reference blocks naming tools of the export", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const exported = new Set(
      (await exportAll(tenant, key, "anthropic")).tools.filter((t) => t.defer_loading).map((t) => t.name),
    );
    const r = await search(tenant, key, {
      query: "github issue",
      max_results: 2,
      format: "anthropic-tool-reference",
      call_id: "toolu_01",
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.tool_result).toEqual({
      type: "tool_result",
      tool_use_id: "toolu_01",
      content: r.body.results.map((x: Json) => ({ type: "tool_reference", tool_name: x.model_name })),
    });
    expect(r.body.tool_result.content).toHaveLength(2);
    for (const block of r.body.tool_result.content) expect(exported.has(block.tool_name)).toBe(true);
    expect(r.body.results[0]).not.toHaveProperty("definition");

    const nothing = await search(tenant, key, {
      query: "zebra xylophone",
      format: "anthropic-tool-reference",
      call_id: "toolu_02",
    });
    expect(nothing.body.tool_result).toEqual({
      type: "tool_result",
      tool_use_id: "toolu_02",
      content: [{ type: "text", text: nothing.body.message }],
    });
  });

  it(
    "openai-tool-search-output: the found functions in their namespaces, exactly as the " + "export renders them",
    async () => {
      const { tenant, key } = await tenantWithCatalog();
      const exported = (await exportAll(tenant, key, "openai-responses")).tools;
      const r = await search(tenant, key, {
        query: "read or write a file",
        format: "openai-tool-search-output",
        call_id: "call_7",
      });
      expect(r.status, r.text).toBe(200);
      expect(r.body.input_items).toHaveLength(1);
      const [output] = r.body.input_items;
      expect(output).toMatchObject({
        type: "tool_search_output",
        call_id: "call_7",
        execution: "client",
        status: "completed",
      });
      const fs = exported.find((t) => t.name === "fs")!;
      expect(output.tools).toEqual([
        { ...fs, tools: fs.tools.filter((f: Json) => r.body.results.some((x: Json) => x.model_name === f.name)) },
      ]);
      expect(output.tools[0].tools.map((f: Json) => f.name).sort()).toEqual(["fs__read_file", "fs__write_file"]);

      const nothing = await search(tenant, key, {
        query: "zebra xylophone",
        format: "openai-tool-search-output",
        call_id: "call_8",
      });
      expect(nothing.body.input_items).toEqual([
        { type: "tool_search_output", call_id: "call_8", execution: "client", status: "completed", tools: [] },
        { type: "message", role: "developer", content: nothing.body.message },
      ]);
    },
  );

  it("answers a spent budget and an unknown tool_id with the vendor's error form, keeping the API's JSON", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const id = await newSession(tenant, key, { budget_cap: 1 });
    const first = await sessionSearch(tenant, key, id, {
      query: "email",
      format: "anthropic-tool-reference",
      call_id: "toolu_1",
    });
    expect(first.status, first.text).toBe(200);
    expect(first.body.activated).toEqual(["mail::send_email"]);
    const refused = await sessionSearch(tenant, key, id, {
      query: "email",
      format: "anthropic-tool-reference",
      call_id: "toolu_2",
    });
    expect(refused.status).toBe(429);
    expect(refused.text.startsWith('{"error":"search-budget-exhausted","budgetCap":1,')).toBe(true);
    expect(refused.body.tool_result).toEqual({
      type: "tool_result",
      tool_use_id: "toolu_2",
      is_error: true,
      content: [
        {
          type: "text",
          text: JSON.stringify({ error: "search-budget-exhausted", budgetCap: 1, message: refused.body.message }),
        },
      ],
    });
    const openai = await sessionSearch(tenant, key, id, {
      query: "email",
      format: "openai-tool-search-output",
      call_id: "call_3",
    });
    expect(openai.status).toBe(429);
    expect(openai.body.input_items[0]).toEqual({
      type: "tool_search_output",
      call_id: "call_3",
      execution: "client",
      status: "completed",
      tools: [],
    });
    expect(JSON.parse(openai.body.input_items[1].content)).toMatchObject({
      error: "search-budget-exhausted",
      budgetCap: 1,
    });

    const unknown = await search(tenant, key, {
      tool_id: "fs::reed_file",
      format: "anthropic-tool-reference",
      call_id: "toolu_4",
    });
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body.tool_result.content[0].text)).toMatchObject({
      error: "not-found",
      suggestions: expect.arrayContaining(["fs::read_file"]),
    });
  });

  it("needs call_id with the vendor formats and only with them", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const missing = await search(tenant, key, { query: "file", format: "anthropic-tool-reference" });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toContain("call_id");
    expect((await search(tenant, key, { query: "file", format: "mcp", call_id: "x" })).status).toBe(400);
    expect((await search(tenant, key, { query: "file", call_id: "x" })).status).toBe(400);
  });
});
