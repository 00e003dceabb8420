/**
 * Every vendor field round-trips: uploaded in a vendor's shape, read back in the same vendor's format (one tool, the
 * export, search definitions, the session tool list), the fields that change what the vendor does are there and
 * equal; the ones that only concern one request are accepted and not kept. Schemas always come back with
 * `"type": "object"`; Responses definitions always carry `strict`; a Responses namespace uploads as a server.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ToolSearchClient } from "../../src/client/index.ts";
import { call, search, tenantWithKey, upsert } from "../helpers.ts";
import { newSession, sessionPath } from "./session-helpers.ts";

const schema = { type: "object", properties: { city: { type: "string", description: "City" } }, required: ["city"] };
const output = { type: "object", properties: { celsius: { type: "number" } }, required: ["celsius"] };

async function definition(tenant: string, key: string, id: string, format: string) {
  const r = await call("GET", `/v1/tenants/${tenant}/tools/${id}?format=${format}`, { token: key });
  expect(r.status, r.text).toBe(200);
  return r.body.definition;
}

async function exported(tenant: string, key: string, format: string, server: string) {
  const r = await call("GET", `/v1/tenants/${tenant}/catalog/export?format=${format}&server=${server}`, { token: key });
  expect(r.status, r.text).toBe(200);
  return r.body;
}

describe("Anthropic Tool", () => {
  const tool = {
    server: "weather",
    name: "get_weather",
    description: "Weather for a city",
    input_schema: schema,
    type: null,
    cache_control: { type: "ephemeral" },
    eager_input_streaming: true,
    strict: true,
    input_examples: [{ city: "Paris" }, { city: "Lagos" }],
    allowed_callers: ["code_execution_20250825"],
    defer_loading: true,
  };
  const kept = { strict: true, input_examples: tool.input_examples, allowed_callers: tool.allowed_callers };

  it("keeps strict, input_examples and allowed_callers and gives them back in every Anthropic answer", async () => {
    const { tenant, key } = await tenantWithKey();
    const r = await upsert(tenant, key, [tool]);
    expect(r.status, r.text).toBe(200);
    const own = await definition(tenant, key, "weather::get_weather", "anthropic");
    expect(own).toEqual({ name: "weather__get_weather", description: tool.description, input_schema: schema, ...kept });

    const page = await exported(tenant, key, "anthropic", "weather");
    expect(page.tools.find((t: { name: string }) => t.name === "weather__get_weather")).toEqual({
      ...own,
      defer_loading: true,
    });
    const found = await search(tenant, key, { tool_id: "weather::get_weather", format: "anthropic" });
    expect(found.body.results[0].definition).toEqual(own);
    const session = await newSession(tenant, key, { inline: ["weather::get_weather"] });
    const list = await call("GET", sessionPath(tenant, session, "/tools?format=anthropic"), { token: key });
    expect(list.body.tools.find((t: { name: string }) => t.name === "weather__get_weather")).toEqual(own);

    // Options of one vendor stay out of the others' formats, where their values would mean something else.
    expect(await definition(tenant, key, "weather::get_weather", "openai-responses")).toEqual({
      type: "function",
      name: "weather__get_weather",
      description: tool.description,
      parameters: schema,
      strict: null,
    });
    expect(await definition(tenant, key, "weather::get_weather", "mcp")).not.toHaveProperty("strict");
  }, 20_000);

  it("counts a change of a kept field as an update, and re-sending it as unchanged", async () => {
    const { tenant, key } = await tenantWithKey();
    expect((await upsert(tenant, key, [tool])).body.added).toBe(1);
    expect((await upsert(tenant, key, [tool])).body.unchanged).toBe(1);
    expect((await upsert(tenant, key, [{ ...tool, eager_input_streaming: false }])).body.unchanged).toBe(1);
    expect((await upsert(tenant, key, [{ ...tool, strict: false }])).body.updated).toBe(1);
    expect((await definition(tenant, key, "weather::get_weather", "anthropic")).strict).toBe(false);
  });

  it("refuses callers the SDK does not list, naming the field", async () => {
    const { tenant, key } = await tenantWithKey();
    const r = await upsert(tenant, key, [{ ...tool, allowed_callers: ["everyone"] }]);
    expect(r.status).toBe(400);
    expect(r.body.items[0].reasons.join(" ")).toContain("allowed_callers");
  });
});

describe("OpenAI Chat function tool", () => {
  it("keeps strict", async () => {
    const { tenant, key } = await tenantWithKey();
    const tool = {
      server: "weather",
      type: "function",
      function: { name: "get_weather", description: "Weather", parameters: schema, strict: true },
    };
    expect((await upsert(tenant, key, [tool])).status).toBe(200);
    expect(await definition(tenant, key, "weather::get_weather", "openai")).toEqual({
      type: "function",
      function: { name: "weather__get_weather", description: "Weather", parameters: schema, strict: true },
    });
    expect((await definition(tenant, key, "weather::get_weather", "openai-responses")).strict).toBe(true);
    const nulls = { ...tool, function: { ...tool.function, name: "other", strict: null } };
    expect((await upsert(tenant, key, [nulls])).status).toBe(200);
    expect(await definition(tenant, key, "weather::other", "openai")).not.toHaveProperty("function.strict");
  });
});

describe("OpenAI Responses FunctionTool and NamespaceTool", () => {
  const fn = {
    type: "function",
    name: "get_weather",
    description: "Weather for a city",
    parameters: schema,
    strict: true,
    allowed_callers: ["direct", "programmatic"],
    output_schema: output,
    defer_loading: true,
  };
  const kept = {
    type: "function",
    name: "weather__get_weather",
    description: fn.description,
    parameters: schema,
    strict: true,
    allowed_callers: fn.allowed_callers,
    output_schema: output,
  };

  it("keeps strict, allowed_callers and output_schema (MCP's outputSchema) in Responses answers", async () => {
    const { tenant, key } = await tenantWithKey();
    expect((await upsert(tenant, key, [{ server: "weather", ...fn }])).status).toBe(200);
    expect(await definition(tenant, key, "weather::get_weather", "openai-responses")).toEqual(kept);
    const page = await exported(tenant, key, "openai-responses", "weather");
    const namespace = page.tools.find((t: { type: string }) => t.type === "namespace");
    expect(namespace.tools).toEqual([{ ...kept, defer_loading: true }]);
    const found = await search(tenant, key, {
      query: "weather",
      format: "openai-tool-search-output",
      call_id: "call_1",
    });
    expect(found.body.input_items[0].tools[0].tools[0]).toEqual({ ...kept, defer_loading: true });
    const mcp = await definition(tenant, key, "weather::get_weather", "mcp");
    expect(mcp.outputSchema).toEqual(output);
  });

  it("takes null wherever the SDK type allows it", async () => {
    const { tenant, key } = await tenantWithKey();
    const nulls = {
      server: "s",
      type: "function",
      name: "ping",
      description: null,
      parameters: null,
      strict: null,
      allowed_callers: null,
      output_schema: null,
    };
    const r = await upsert(tenant, key, [nulls]);
    expect(r.status, r.text).toBe(200);
    expect(await definition(tenant, key, "s::ping", "openai-responses")).toEqual({
      type: "function",
      name: "s__ping",
      description: "",
      parameters: { type: "object", properties: {} },
      strict: null,
    });
  });

  it("uploads a namespace as the tools of the server of its name", async () => {
    const { tenant, key } = await tenantWithKey();
    const namespace = {
      type: "namespace",
      name: "crm",
      description: "CRM tools",
      tools: [
        { ...fn, name: "find_customer", description: "Find a customer by name" },
        { type: "function", name: "add_note", description: "Add a note to a customer", keywords: ["memo"] },
      ],
    };
    const r = await upsert(tenant, key, [namespace, { server: "other", ...fn }]);
    expect(r.status, r.text).toBe(200);
    expect(r.body.added).toBe(3);
    expect(await definition(tenant, key, "crm::find_customer", "openai-responses")).toEqual({
      ...kept,
      name: "crm__find_customer",
      description: "Find a customer by name",
    });
    expect((await search(tenant, key, { query: "memo" })).body.results[0].tool_id).toBe("crm::add_note");
    const replaced = await call("PUT", `/v1/tenants/${tenant}/servers/crm/tools`, {
      token: key,
      body: { tools: [{ ...namespace, tools: [namespace.tools[1]] }] },
    });
    expect(replaced.body).toMatchObject({ removed: 1, unchanged: 1 });
  });

  it("refuses a namespace under another server's path, a custom tool, a bad function, naming each", async () => {
    const { tenant, key } = await tenantWithKey();
    const namespace = { type: "namespace", name: "crm", description: "CRM", tools: [fn] };
    const elsewhere = await call("PUT", `/v1/tenants/${tenant}/servers/sales/tools`, {
      token: key,
      body: { tools: [namespace] },
    });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.message).toContain("differs from the path's server 'sales'");
    const custom = await upsert(tenant, key, [
      { ...namespace, tools: [fn, { type: "custom", name: "sql", description: "Run SQL" }] },
    ]);
    expect(custom.status).toBe(400);
    expect(custom.body.items[0].reasons.join(" ")).toMatch(/tools\.1.*custom tools/);
    const bad = await upsert(tenant, key, [{ ...namespace, tools: [{ ...fn, colour: "red" }] }]);
    expect(bad.status).toBe(400);
    expect(bad.body.items[0].reasons.join(" ")).toContain("colour");
    expect((await call("GET", `/v1/tenants/${tenant}/catalog`, { token: key })).body.tools).toBe(0);
  });
});

describe("MCP Tool", () => {
  it("keeps outputSchema and annotations; accepts icons, execution and _meta", async () => {
    const { tenant, key } = await tenantWithKey();
    const tool = {
      server: "weather",
      name: "get_weather",
      title: "Weather",
      description: "Weather for a city",
      inputSchema: schema,
      outputSchema: output,
      annotations: { readOnlyHint: true, openWorldHint: true },
      icons: [{ src: "https://example.com/w.png", mimeType: "image/png" }],
      execution: { taskSupport: "optional" },
      _meta: { "example.com/owner": "team-a" },
    };
    expect((await upsert(tenant, key, [tool])).status).toBe(200);
    expect(await definition(tenant, key, "weather::get_weather", "mcp")).toEqual({
      name: "weather__get_weather",
      title: "Weather",
      description: tool.description,
      inputSchema: schema,
      outputSchema: output,
      annotations: tool.annotations,
    });
    expect((await definition(tenant, key, "weather::get_weather", "openai-responses")).output_schema).toEqual(output);
  });
});

describe('schemas come back with "type": "object"', () => {
  it("in every format, for a schema uploaded without a type", async () => {
    const { tenant, key } = await tenantWithKey();
    const untyped = { properties: { q: { type: "string" } } };
    const up = await upsert(tenant, key, [
      { server: "s", name: "a", description: "A", inputSchema: untyped, outputSchema: untyped },
      { server: "s", name: "b", description: "B", input_schema: untyped },
      { server: "s", type: "function", function: { name: "c", description: "C", parameters: untyped } },
      { server: "s", type: "function", name: "d", description: "D", parameters: untyped },
    ]);
    expect(up.status, up.text).toBe(200);
    const typed = { type: "object", ...untyped };
    for (const name of ["a", "b", "c", "d"]) {
      expect((await definition(tenant, key, `s::${name}`, "mcp")).inputSchema).toEqual(typed);
      expect((await definition(tenant, key, `s::${name}`, "anthropic")).input_schema).toEqual(typed);
      expect((await definition(tenant, key, `s::${name}`, "openai")).function.parameters).toEqual(typed);
      expect((await definition(tenant, key, `s::${name}`, "openai-responses")).parameters).toEqual(typed);
    }
    expect((await definition(tenant, key, "s::a", "mcp")).outputSchema).toEqual(typed);
    const page = await exported(tenant, key, "anthropic", "s");
    for (const t of page.tools) expect(t.input_schema.type).toBe("object");
  });
});

describe("the Anthropic export at more than 10,000 deferred tools", () => {
  it("comes in parts of at most 10,000 deferred tools, says so, and the client returns one part", async () => {
    const { tenant, key } = await tenantWithKey();
    const tools = Array.from({ length: 10_003 }, (_, i) => ({
      server: `s${Math.floor(i / 2500)}`,
      name: `tool_${String(i).padStart(5, "0")}`,
      description: `Tool ${i}`,
      inputSchema: { type: "object" },
      // Two always-loaded tools, which a request sends but which do not count as deferred.
      ...(i === 1 || i === 9_000 ? { defer: "never" } : {}),
    }));
    for (let i = 0; i < tools.length; i += 5_000) {
      const up = await upsert(tenant, key, tools.slice(i, i + 5_000));
      expect(up.status, up.text).toBe(200);
    }
    const pages: any[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `format=anthropic&limit=5000${cursor ? `&cursor=${cursor}` : ""}`;
      const page = await call("GET", `/v1/tenants/${tenant}/catalog/export?${query}`, { token: key });
      expect(page.status, page.text).toBe(200);
      pages.push(page.body);
      cursor = page.body.next_cursor;
    } while (cursor);
    for (const page of pages) expect(page).toMatchObject({ parts: 2, deferred_total: 10_001 });
    expect(pages[0].message).toContain("at most 10000 per request");
    const deferredIn = (part: number) =>
      pages
        .filter((p) => p.part === part)
        .flatMap((p) => p.tools)
        .filter((t: { defer_loading?: boolean }) => t.defer_loading).length;
    expect(deferredIn(1)).toBe(10_000);
    expect(deferredIn(2)).toBe(1);

    const api = new ToolSearchClient({
      url: "http://tool-search.test",
      token: key,
      fetch: (r) => exports.default.fetch(r),
    }).tenant(tenant);
    const second = await api.catalogExportAll({ format: "anthropic", limit: 5000, part: 2 });
    expect(second.map((t) => t.name)).toEqual(["tool_search", "s4__tool_10002"]);
    const first = await api.catalogExportAll({ format: "anthropic", limit: 5000 });
    expect(first.filter((t) => t.defer_loading)).toHaveLength(10_000);
    expect(first[0]!.name).toBe("tool_search");
  }, 120_000);
});
