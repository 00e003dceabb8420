/**
 * One query limit everywhere: `max_query_chars` (here TEST_LIMITS' small value, the way a deployment sets LIMITS)
 * bounds POST .../search and MCP tool_search alike, and tool_search's own schema states it, so raising the limit
 * in src/config/limits.ts raises it on every route at once.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/env.ts";
import { call, mcpTool, tenantWithKey, upsert } from "../helpers.ts";

const limit = loadConfig(env).limits.max_query_chars;

type ToolCall = { isError?: boolean; structuredContent?: any };

describe("max_query_chars", () => {
  it("bounds MCP tool_search as POST .../search: at the limit both run, one past it both refuse", async () => {
    const { tenant, key } = await tenantWithKey();
    expect((await upsert(tenant, key, [{ server: "fs", ...mcpTool("read_file", "Read a file") }])).status).toBe(200);
    const transport = new StreamableHTTPClientTransport(new URL(`http://tool-search.test/v1/tenants/${tenant}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
      fetch: (url, init) => exports.default.fetch(new Request(url, init)),
    });
    const client = new Client(
      { name: "limits", version: "1" },
      { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
    );
    await client.connect(transport);

    const { tools } = await client.listTools();
    expect(tools[0]!.inputSchema.properties!.query).toMatchObject({ maxLength: limit });

    const atLimit = "file ".repeat(limit).slice(0, limit);
    const over = `${atLimit}x`;
    const ran = (await client.callTool({ name: "tool_search", arguments: { query: atLimit } })) as ToolCall;
    expect(ran.isError).toBeFalsy();
    expect((await call("POST", `/v1/tenants/${tenant}/search`, { token: key, body: { query: atLimit } })).status).toBe(
      200,
    );

    const refused = (await client.callTool({ name: "tool_search", arguments: { query: over } })) as ToolCall;
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({ error: "invalid-request", limit: "max_query_chars", max: limit });
    expect(refused.structuredContent.message).toContain(`(limit max_query_chars = ${limit})`);
    const http = await call("POST", `/v1/tenants/${tenant}/search`, { token: key, body: { query: over } });
    expect(http.status).toBe(400);
    expect(http.body).toMatchObject({ error: "invalid-request", limit: "max_query_chars", max: limit });
    await client.close();
  });
});
