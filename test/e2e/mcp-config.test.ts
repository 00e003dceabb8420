/**
 * `upload --mcp-config`: MCP servers started (stdio) or reached (Streamable HTTP) by the SDK's
 * client, their tools listed page by page and uploaded to a real local worker, deferTools carried.
 */
import { createServer, type Server as HttpServer } from "node:http";
import { join } from "node:path";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalWorker, type LocalWorker } from "../../scripts/local-worker.ts";
import { createFixtureServer } from "../fixtures/mcp-server.ts";
import { folder, ROOT, summaryRow, tenantOn, upload } from "./cli.ts";

const FIXTURE = join(ROOT, "test", "fixtures", "mcp-server.ts");

/** A config entry that starts the fixture server over stdio with the test's own Node. */
function stdioServer(prefix: string, tools: number, pageSize: number, extra: Record<string, unknown> = {}) {
  return {
    type: "stdio",
    command: process.execPath,
    args: [FIXTURE, "--prefix", prefix, "--tools", String(tools), "--page-size", String(pageSize)],
    ...extra,
  };
}

let worker: LocalWorker;
let http: HttpServer;
let httpUrl: string;
let sseUrl: string;

beforeAll(async () => {
  worker = await startLocalWorker();
  // The fixture over Streamable HTTP (/mcp, stateless: a fresh server and transport per request)
  // and over the older HTTP+SSE transport (GET /sse opens a session, POST /messages feeds it).
  const sessions = new Map<string, SSEServerTransport>();
  http = createServer(async (req, res) => {
    if (req.url === "/sse") {
      const transport = new SSEServerTransport("/messages", res);
      sessions.set(transport.sessionId, transport);
      await createFixtureServer({ prefix: "legacy", tools: 4, pageSize: 3 }).connect(transport);
      return;
    }
    if (req.url?.startsWith("/messages")) {
      await sessions.get(new URL(req.url, "http://x").searchParams.get("sessionId") ?? "")?.handlePostMessage(req, res);
      return;
    }
    const server = createFixtureServer({ prefix: "web", tools: 7, pageSize: 3 });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => void server.close());
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${(http.address() as { port: number }).port}`;
  httpUrl = `${base}/mcp`;
  sseUrl = `${base}/sse`;
});
afterAll(async () => {
  await new Promise((r) => http?.close(r));
  await worker?.stop();
});

describe("upload --mcp-config", () => {
  it(
    "lists every page of each configured server (stdio, Streamable HTTP, SSE) and replaces " +
      "its set, with deferTools and the allow-list",
    async () => {
      const { key, api } = await tenantOn(worker, "mcp");
      const config = folder({
        "mcp-config.json": {
          mcpServers: {
            notes: stdioServer("notes", 25, 10, { deferTools: "never", tools: ["*"] }),
            "Files Server": stdioServer("files", 12, 5, {
              type: "local",
              tools: ["files_tool_1", "files_tool_3", "missing_tool"],
            }),
            web: { type: "http", url: httpUrl, headers: { "x-test": "1" }, deferTools: "auto" },
            legacy: { type: "sse", url: sseUrl },
            off: { command: "does-not-exist", disabled: true },
          },
        },
      });
      const file = join(config, "mcp-config.json");
      const r = await upload(["--url", worker.url, "--key", key, "--mcp-config", file]);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stderr).toContain("notes: 25 tools listed (3 pages)");
      expect(r.stderr).toContain("Files Server: 2 tools listed (3 pages) -> server 'Files-Server'");
      expect(r.stderr).toContain("web: 7 tools listed (3 pages)");
      expect(r.stderr).toContain("legacy: 4 tools listed (2 pages)");
      expect(r.stderr).toContain("allows tools it does not have: missing_tool");
      expect(r.stderr).toContain("skipped 'off' (disabled)");
      expect(summaryRow(r.stdout, "notes")).toMatchObject({ tools: 25, added: 25 });

      const catalog = await api.catalog();
      expect(catalog.servers).toEqual([
        expect.objectContaining({ name: "Files-Server", defer_tools: "auto", tools: 2, always_loaded: 0 }),
        expect.objectContaining({ name: "legacy", defer_tools: "auto", tools: 4, always_loaded: 0 }),
        expect.objectContaining({ name: "notes", defer_tools: "never", tools: 25, always_loaded: 25 }),
        expect.objectContaining({ name: "web", defer_tools: "auto", tools: 7, always_loaded: 0 }),
      ]);
      expect((await api.tools.list({ server: "Files-Server" })).tools.map((t) => t.name)).toEqual([
        "files_tool_1",
        "files_tool_3",
      ]);
      const tool = await api.tools.get("notes::notes_tool_0");
      expect(tool.definition).toMatchObject({ annotations: { readOnlyHint: true } });
      expect((await api.search({ query: "notes_tool_24" })).results[0]?.tool_id).toBe("notes::notes_tool_24");

      const again = await upload(["--url", worker.url, "--key", key, "--mcp-config", file]);
      expect(again.code).toBe(0);
      expect(summaryRow(again.stdout, "total")).toMatchObject({
        tools: 38,
        added: 0,
        updated: 0,
        unchanged: 38,
        removed: 0,
      });
      expect((await api.catalog()).revision).toBe(catalog.revision);
    },
  );

  it("reports a server that cannot be started, uploads the others, exits 1", async () => {
    const { key, api } = await tenantOn(worker, "mcp-broken");
    const config = folder({
      "mcp.json": {
        mcpServers: {
          good: stdioServer("good", 3, 2),
          broken: {
            command: process.execPath,
            args: ["-e", "console.error('cannot start: missing token'); process.exit(3)"],
          },
        },
      },
    });
    const r = await upload(["--url", worker.url, "--key", key, "--mcp-config", join(config, "mcp.json")]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("cannot list the tools of 'broken'");
    expect(r.stdout).toContain("missing token");
    expect(r.stdout).toContain("Finished with problems, listed above");
    expect((await api.catalog()).servers).toEqual([
      expect.objectContaining({ name: "good", defer_tools: "auto", tools: 3, always_loaded: 0 }),
    ]);
  });

  it("reads the docs' demo/mcp-config.json (dry run: listed and validated, nothing sent)", async () => {
    const r = await upload(["--dry-run", "--mcp-config", join(ROOT, "demo", "mcp-config.json")]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(summaryRow(r.stdout, "notes")).toMatchObject({ tools: 25, requests: 1, rejected: 0 });
    expect(summaryRow(r.stdout, "tasks")).toMatchObject({ tools: 3, requests: 1, rejected: 0 });
  });

  it("refuses a configuration that is not one, with exit code 2", async () => {
    const dir = folder({
      "a.json": { servers: {} },
      "b.json": { mcpServers: { x: { type: "http" } } },
      "c.json": { mcpServers: { "a.b": { command: "x" }, "a-b": { command: "y" } } },
    });
    const a = await upload(["--dry-run", "--mcp-config", join(dir, "a.json")]);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain("mcpServers");
    const b = await upload(["--dry-run", "--mcp-config", join(dir, "b.json")]);
    expect(b.stderr).toContain("an http server needs a url");
    const c = await upload(["--dry-run", "--mcp-config", join(dir, "c.json")]);
    expect(c.stderr).toContain("both become the server name 'a-b'");
  });
});
