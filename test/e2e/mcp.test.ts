/**
 * The MCP endpoint with the SDK's own client (Client + StreamableHTTPClientTransport) in Node,
 * against the real local runtime (wrangler dev): search, tool errors, and an MCP session that
 * carries on after the runtime restarts on the same storage.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import type { LocalWorker } from "../../scripts/local-worker.ts";
import { api, localWorkers } from "./support.ts";

function transportFor(w: LocalWorker, key: string, sessionId?: string) {
  return new StreamableHTTPClientTransport(new URL(`${w.url}/v1/tenants/mcp-e2e/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
    ...(sessionId ? { sessionId } : {}),
  });
}

type ToolCall = { isError?: boolean; content: { type: string; text: string }[]; structuredContent?: any };

describe("MCP over Streamable HTTP against wrangler dev", () => {
  const start = localWorkers();

  it("finds tools, refuses the 4th search with a tool error, and keeps the session across a restart", async () => {
    const first = await start();
    const op = first.adminToken;
    expect((await api(first, op, "POST", "/v1/tenants", { id: "mcp-e2e" })).status).toBe(201);
    const key = (await api(first, op, "POST", "/v1/tenants/mcp-e2e/keys", { scopes: ["search", "write"] })).json
      .key as string;
    const tools = [
      ["github", "list_issues", "List issues in a GitHub repository"],
      ["github", "create_issue", "Open a new issue in a GitHub repository"],
      ["calendar", "create_event", "Create a calendar event with attendees"],
      ["mail", "send_email", "Send an email message"],
      ["fs", "read_file", "Read the contents of a file"],
    ].map(([server, name, description]) => ({
      server,
      name,
      description,
      inputSchema: { type: "object", properties: {} },
    }));
    expect((await api(first, key, "POST", "/v1/tenants/mcp-e2e/tools", { tools })).status).toBe(200);

    const client = new Client({ name: "e2e", version: "1.0.0" });
    const transport = transportFor(first, key);
    await client.connect(transport);
    const sessionId = transport.sessionId!;
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["tool_search", "tool_describe"]);
    const found = (await client.callTool({ name: "tool_search", arguments: { query: "calendar event" } })) as ToolCall;
    expect(found.structuredContent.results[0].tool_id).toBe("calendar::create_event");
    expect(found.structuredContent.activated).toContain("calendar::create_event");
    for (const query of ["issues", "email"]) await client.callTool({ name: "tool_search", arguments: { query } });
    const refused = (await client.callTool({ name: "tool_search", arguments: { query: "file" } })) as ToolCall;
    expect(refused.isError).toBe(true);
    expect(JSON.parse(refused.content[0]!.text)).toMatchObject({ error: "search-budget-exhausted", budgetCap: 3 });
    await transport.close();
    await first.stop();

    // A new runtime on the same storage: the client resumes its MCP session by id.
    const second = await start({ persistTo: first.persistTo, adminToken: op });
    const resumed = new Client({ name: "e2e", version: "1.0.0" });
    const again = transportFor(second, key, sessionId);
    await resumed.connect(again);
    expect(again.sessionId).toBe(sessionId);
    const stillSpent = (await resumed.callTool({ name: "tool_search", arguments: { query: "file" } })) as ToolCall;
    expect(stillSpent.structuredContent.error).toBe("search-budget-exhausted");
    const nextTurn = (await resumed.callTool({
      name: "tool_search",
      arguments: { query: "file" },
      _meta: { "tool-search/turn": 2 },
    })) as ToolCall;
    expect(nextTurn.isError).toBeFalsy();
    expect(nextTurn.structuredContent.results[0].tool_id).toBe("fs::read_file");
    const state = await api(second, key, "GET", `/v1/tenants/mcp-e2e/sessions/${sessionId}`);
    expect(state.json).toMatchObject({ turn: 2, budget: { used: 1 } });
    expect(state.json.activated).toEqual(expect.arrayContaining(["calendar::create_event", "fs::read_file"]));
    await again.terminateSession();
    await again.close();
  });
});
