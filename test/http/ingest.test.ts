/** Catalog ingest over HTTP: every input format, all-or-nothing batches, replace, delete, revisions. */
import { describe, expect, it } from "vitest";
import { call, createKey, mcpTool, search, tenantWithKey, upsert } from "../helpers.ts";

const schema = {
  type: "object",
  properties: { city: { type: "string", description: "City name" } },
  required: ["city"],
};

describe("input formats", () => {
  it(
    "accepts MCP, Anthropic, OpenAI Chat and OpenAI Responses shapes and normalises them to " + "one row each",
    async () => {
      const { tenant, key } = await tenantWithKey();
      const r = await upsert(tenant, key, [
        {
          server: "mcp",
          name: "get_weather",
          title: "Weather",
          description: "MCP weather",
          inputSchema: schema,
          annotations: { readOnlyHint: true },
          _meta: { x: 1 },
        },
        {
          server: "anthropic",
          name: "get_weather",
          description: "Anthropic weather",
          input_schema: schema,
          cache_control: { type: "ephemeral" },
        },
        {
          server: "chat",
          type: "function",
          function: { name: "get_weather", description: "Chat weather", parameters: schema, strict: true },
        },
        {
          server: "responses",
          type: "function",
          name: "get_weather",
          description: "Responses weather",
          parameters: schema,
        },
      ]);
      expect(r.status, r.text).toBe(200);
      expect(r.body.added).toBe(4);

      for (const server of ["mcp", "anthropic", "chat", "responses"]) {
        const tool = await call("GET", `/v1/tenants/${tenant}/tools/${server}::get_weather`, { token: key });
        expect(tool.status).toBe(200);
        expect(tool.body).toMatchObject({
          tool_id: `${server}::get_weather`,
          server,
          name: "get_weather",
          model_name: `${server}__get_weather`,
        });
        expect(tool.body.definition.inputSchema).toEqual(schema);
      }
      const mcp = await call("GET", `/v1/tenants/${tenant}/tools/mcp::get_weather`, { token: key });
      expect(mcp.body.title).toBe("Weather");
      expect(mcp.body.definition.annotations).toEqual({ readOnlyHint: true });
    },
  );

  it("renders a definition in every output format", async () => {
    const { tenant, key } = await tenantWithKey();
    await upsert(tenant, key, [{ server: "w", ...mcpTool("getWeather", "Current weather", schema.properties) }]);
    const get = (format: string) =>
      call("GET", `/v1/tenants/${tenant}/tools/w::getWeather?format=${format}`, { token: key });
    const parameters = { type: "object", properties: schema.properties };
    expect((await get("mcp")).body.definition).toEqual({
      name: "w__getWeather",
      description: "Current weather",
      inputSchema: parameters,
    });
    expect((await get("anthropic")).body.definition).toEqual({
      name: "w__getWeather",
      description: "Current weather",
      input_schema: parameters,
    });
    expect((await get("openai")).body.definition).toEqual({
      type: "function",
      function: { name: "w__getWeather", description: "Current weather", parameters },
    });
    expect((await get("openai-responses")).body.definition).toEqual({
      type: "function",
      name: "w__getWeather",
      description: "Current weather",
      parameters,
      strict: null,
    });
    expect((await get("xml")).status).toBe(400);
  });

  it("accepts NDJSON, one tool per line", async () => {
    const { tenant, key } = await tenantWithKey();
    const lines = [
      JSON.stringify({ server: "fs", ...mcpTool("read_file", "Read a file") }),
      "",
      JSON.stringify({ server: "fs", ...mcpTool("write_file", "Write a file") }),
    ].join("\n");
    const r = await call("POST", `/v1/tenants/${tenant}/tools`, {
      token: key,
      raw: lines,
      headers: { "content-type": "application/x-ndjson" },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.added).toBe(2);
  });

  it("takes 10,000 tools in one request", async () => {
    const { tenant, key } = await tenantWithKey();
    const tools = Array.from({ length: 10_000 }, (_, i) => ({
      server: `s${i % 20}`,
      ...mcpTool(
        `tool_${i}`,
        `Tool number ${i} handles ${["files", "issues", "weather", "mail"][i % 4]} for the user`,
        { id: { type: "string", description: "identifier" } },
      ),
    }));
    const r = await upsert(tenant, key, tools);
    expect(r.status, r.text.slice(0, 500)).toBe(200);
    expect(r.body).toMatchObject({ added: 10_000, unchanged: 0 });
    const catalog = await call("GET", `/v1/tenants/${tenant}/catalog`, { token: key });
    expect(catalog.body.tools).toBe(10_000);
    expect(catalog.body.servers).toHaveLength(20);
    const found = await search(tenant, key, { query: "tool_9999" });
    expect(found.body.results[0].tool_id).toBe("s19::tool_9999");
  }, 20_000);
});

describe("all or nothing", () => {
  it("rejects a batch with any bad item, lists every bad item, and writes nothing", async () => {
    const { tenant, key } = await tenantWithKey();
    const r = await upsert(tenant, key, [
      { server: "ok", ...mcpTool("fine_tool", "Fine") },
      { server: "ok", name: "bad name!", description: "spaces", inputSchema: { type: "object" } },
      { server: "ok", name: "no_schema", description: "missing schema" },
      { server: "ok", ...mcpTool("array_schema", "x"), inputSchema: { type: "array" } },
      { name: "no_server", description: "x", inputSchema: { type: "object" } },
      { server: "ok", ...mcpTool("extra", "x"), surprise: true },
      "not an object",
      { server: "ok", ...mcpTool("fine_tool", "Duplicate of the first") },
    ]);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("invalid-request");
    expect(r.body.message).toContain("7 of 8 tools are invalid; nothing was written");
    const byIndex = Object.fromEntries(
      (r.body.items as { index: number; reasons: string[] }[]).map((i) => [i.index, i.reasons.join(" ")]),
    );
    expect(Object.keys(byIndex).map(Number)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(byIndex[1]).toMatch(/1-128 characters/);
    expect(byIndex[2]).toMatch(/inputSchema/);
    expect(byIndex[3]).toMatch(/"type": "object"/);
    expect(byIndex[4]).toMatch(/server is required/);
    expect(byIndex[5]).toMatch(/surprise/);
    expect(byIndex[6]).toMatch(/JSON object/);
    expect(byIndex[7]).toMatch(/duplicate of tools\[0\]/);

    const catalog = await call("GET", `/v1/tenants/${tenant}/catalog`, { token: key });
    expect(catalog.body).toMatchObject({ revision: 0, tools: 0 });
  });

  it("bounds sizes: descriptions, schema depth, keywords", async () => {
    const { tenant, key } = await tenantWithKey();
    let deep: Record<string, unknown> = { type: "string" };
    // 20 levels of {type, properties: {x: ...}} nest 41 deep: over the schema limit (32), within the body limit (64).
    for (let i = 0; i < 20; i++) deep = { type: "object", properties: { x: deep } };
    const r = await upsert(tenant, key, [
      { server: "s", ...mcpTool("long_desc", "x".repeat(20_000)) },
      { server: "s", name: "deep", description: "d", inputSchema: deep },
      { server: "s", ...mcpTool("many_keywords", "k"), keywords: Array.from({ length: 40 }, (_, i) => `k${i}`) },
    ]);
    expect(r.status).toBe(400);
    const reasons = (r.body.items as { reasons: string[] }[]).map((i) => i.reasons.join(" "));
    expect(reasons[0]).toMatch(/at most 16384 bytes/);
    expect(reasons[1]).toMatch(/nested more than 32 levels deep \(limit max_schema_depth = 32\)/);
    expect(reasons[2]).toMatch(/32/);
  });

  it("reports malformed NDJSON lines by number", async () => {
    const { tenant, key } = await tenantWithKey();
    const raw = `${JSON.stringify({ server: "s", ...mcpTool("a", "A") })}\n{not json\n`;
    const r = await call("POST", `/v1/tenants/${tenant}/tools`, {
      token: key,
      raw,
      headers: { "content-type": "application/x-ndjson" },
    });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain("line 2 is not JSON");
  });
});

describe("revisions and unchanged tools", () => {
  it("bumps the revision on every change and skips tools whose content hash is unchanged", async () => {
    const { tenant, key } = await tenantWithKey();
    const tools = [
      { server: "s", ...mcpTool("a", "Alpha") },
      { server: "s", ...mcpTool("b", "Beta") },
    ];
    expect((await upsert(tenant, key, tools)).body).toMatchObject({ revision: 1, added: 2 });
    expect((await upsert(tenant, key, tools)).body).toMatchObject({ revision: 1, added: 0, updated: 0, unchanged: 2 });
    const changed = [tools[0], { server: "s", ...mcpTool("b", "Beta, improved") }];
    expect((await upsert(tenant, key, changed)).body).toMatchObject({
      revision: 2,
      added: 0,
      updated: 1,
      unchanged: 1,
    });
    // Key order does not change the content hash.
    const reordered = [
      { inputSchema: { properties: {}, type: "object" }, description: "Alpha", name: "a", server: "s" },
    ];
    expect((await upsert(tenant, key, reordered)).body).toMatchObject({ revision: 2, unchanged: 1 });
  });

  it("keeps the revision when a replacement re-sends the same tools and deferTools", async () => {
    const { tenant, key } = await tenantWithKey();
    const put = (defer_tools: string) =>
      call("PUT", `/v1/tenants/${tenant}/servers/s/tools`, {
        token: key,
        body: { tools: [mcpTool("a", "Alpha")], defer_tools },
      });
    expect((await put("never")).body).toMatchObject({ revision: 1, added: 1 });
    expect((await put("never")).body).toMatchObject({ revision: 1, unchanged: 1 });
    expect((await put("auto")).body).toMatchObject({ revision: 2, unchanged: 1 });
    expect((await call("GET", `/v1/tenants/${tenant}/catalog`, { token: key })).body.servers).toEqual([
      expect.objectContaining({ name: "s", defer_tools: "auto", tools: 1, always_loaded: 0 }),
    ]);
  });
});

describe("replace a server's tools (setTools)", () => {
  it("replaces the whole set atomically; an empty list removes them; other servers are untouched", async () => {
    const { tenant, key } = await tenantWithKey();
    const put = (server: string, tools: unknown[], extra: Record<string, unknown> = {}) =>
      call("PUT", `/v1/tenants/${tenant}/servers/${server}/tools`, { token: key, body: { tools, ...extra } });
    expect(
      (await put("gh", [mcpTool("list_issues", "List issues"), mcpTool("get_issue", "Get an issue")])).body,
    ).toMatchObject({ added: 2, removed: 0 });
    expect((await put("fs", [mcpTool("read_file", "Read a file")])).status).toBe(200);
    expect(
      (await put("gh", [mcpTool("list_issues", "List issues"), mcpTool("create_issue", "Create an issue")])).body,
    ).toMatchObject({
      added: 1,
      unchanged: 1,
      removed: 1,
    });
    const page = await call("GET", `/v1/tenants/${tenant}/tools?server=gh`, { token: key });
    expect(page.body.tools.map((t: { tool_id: string }) => t.tool_id)).toEqual(["gh::create_issue", "gh::list_issues"]);
    expect(
      (await search(tenant, key, { query: "get an issue" })).body.results.map((r: { tool_id: string }) => r.tool_id),
    ).not.toContain("gh::get_issue");

    expect((await put("gh", [])).body).toMatchObject({ removed: 2 });
    const after = await call("GET", `/v1/tenants/${tenant}/tools`, { token: key });
    expect(after.body.tools.map((t: { tool_id: string }) => t.tool_id)).toEqual(["fs::read_file"]);
  });

  it("a rejected replacement leaves the previous set in place", async () => {
    const { tenant, key } = await tenantWithKey();
    const put = (tools: unknown[]) =>
      call("PUT", `/v1/tenants/${tenant}/servers/gh/tools`, { token: key, body: { tools } });
    await put([mcpTool("list_issues", "List issues")]);
    const bad = await put([mcpTool("new_tool", "New"), { name: "bad name", inputSchema: { type: "object" } }]);
    expect(bad.status).toBe(400);
    const wrongServer = await put([{ server: "other", ...mcpTool("x", "X") }]);
    expect(wrongServer.status).toBe(400);
    expect(wrongServer.body.items[0].reasons[0]).toMatch(/differs from the path's server 'gh'/);
    const page = await call("GET", `/v1/tenants/${tenant}/tools`, { token: key });
    expect(page.body.tools.map((t: { tool_id: string }) => t.tool_id)).toEqual(["gh::list_issues"]);
  });

  it("concurrent replacements apply one at a time: the last one to arrive wins whole", async () => {
    const { tenant, key } = await tenantWithKey();
    const sets = Array.from({ length: 8 }, (_, i) =>
      Array.from({ length: 20 }, (_, j) => mcpTool(`v${i}_t${j}`, `version ${i} tool ${j}`)),
    );
    const results = await Promise.all(
      sets.map((tools) => call("PUT", `/v1/tenants/${tenant}/servers/s/tools`, { token: key, body: { tools } })),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    const revisions = results.map((r) => r.body.revision).sort((a, b) => a - b);
    expect(revisions).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const last = results.findIndex((r) => r.body.revision === 8);
    const page = await call("GET", `/v1/tenants/${tenant}/tools?limit=100`, { token: key });
    expect(page.body.tools).toHaveLength(20);
    expect(page.body.tools.every((t: { name: string }) => t.name.startsWith(`v${last}_`))).toBe(true);
  });
});

describe("delete", () => {
  it("removes one tool, or a server with its tools; unknown ones are 404 with suggestions", async () => {
    const { tenant, key } = await tenantWithKey();
    await upsert(tenant, key, [
      { server: "gh", ...mcpTool("list_issues", "List issues") },
      { server: "gh", ...mcpTool("get_issue", "Get one issue") },
      { server: "fs", ...mcpTool("read_file", "Read a file") },
    ]);
    const del = await call("DELETE", `/v1/tenants/${tenant}/tools/gh::get_issue`, { token: key });
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ removed: 1, revision: 2 });
    const again = await call("DELETE", `/v1/tenants/${tenant}/tools/gh::get_issue`, { token: key });
    expect(again.status).toBe(404);
    const typo = await call("DELETE", `/v1/tenants/${tenant}/tools/gh::list_issue`, { token: key });
    expect(typo.body.suggestions).toContain("gh::list_issues");
    // A key that may write but not search learns no tool ids from a 404: no suggestions, no names.
    const writeOnly = await createKey(tenant, ["write"]);
    for (const id of ["gh::list_issue", "fs::read_fil", "nowhere::read_file"]) {
      const blind = await call("DELETE", `/v1/tenants/${tenant}/tools/${id}`, { token: writeOnly });
      expect(blind.status).toBe(404);
      expect(blind.body.suggestions).toBeUndefined();
      for (const real of ["gh::list_issues", "fs::read_file"]) expect(blind.text).not.toContain(real);
    }

    const server = await call("DELETE", `/v1/tenants/${tenant}/servers/gh`, { token: key });
    expect(server.body).toMatchObject({ removed: 1, revision: 3 });
    expect((await call("DELETE", `/v1/tenants/${tenant}/servers/gh`, { token: key })).status).toBe(404);
    const catalog = await call("GET", `/v1/tenants/${tenant}/catalog`, { token: key });
    expect(catalog.body.servers.map((s: { name: string }) => s.name)).toEqual(["fs"]);
    expect((await search(tenant, key, { query: "list issues" })).body.results).toEqual([]);
  });
});

describe("listing", () => {
  it("pages through tools in id order with an opaque cursor, optionally by server", async () => {
    const { tenant, key } = await tenantWithKey();
    await upsert(
      tenant,
      key,
      Array.from({ length: 7 }, (_, i) => ({ server: i < 4 ? "a" : "b", ...mcpTool(`t${i}`, `tool ${i}`) })),
    );
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await call("GET", `/v1/tenants/${tenant}/tools?limit=3${cursor ? `&cursor=${cursor}` : ""}`, {
        token: key,
      });
      expect(page.status).toBe(200);
      seen.push(...page.body.tools.map((t: { tool_id: string }) => t.tool_id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(["a::t0", "a::t1", "a::t2", "a::t3", "b::t4", "b::t5", "b::t6"]);
    const onlyB = await call("GET", `/v1/tenants/${tenant}/tools?server=b`, { token: key });
    expect(onlyB.body.tools).toHaveLength(3);
    expect((await call("GET", `/v1/tenants/${tenant}/tools?cursor=garbage`, { token: key })).status).toBe(400);
    expect((await call("GET", `/v1/tenants/${tenant}/tools?limit=0`, { token: key })).status).toBe(400);
  });
});
