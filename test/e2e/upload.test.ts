/**
 * The upload CLI as a user runs it (`node scripts/upload.ts`), against a real local worker
 * (wrangler dev): files, folders, NDJSON, --replace, --dry-run, rejections, a second run, retries.
 */
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalWorker, type LocalWorker } from "../../scripts/local-worker.ts";
import { ToolSearchClient } from "../../src/client/index.ts";
import { folder, mcpTool, ROOT, summaryRow, tenantOn, upload } from "./cli.ts";

let worker: LocalWorker;
beforeAll(async () => {
  worker = await startLocalWorker();
});
afterAll(async () => {
  await worker?.stop();
});

/**
 * A local HTTP server in front of the worker that answers the first writes from `script` instead, and counts requests.
 */
async function proxy(script: { status: number; headers?: Record<string, string>; body?: unknown }[]) {
  const seen: string[] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    seen.push(`${req.method} ${req.url}`);
    const scripted = req.method !== "GET" ? script.shift() : undefined;
    if (scripted) {
      res.writeHead(scripted.status, { "content-type": "application/json", ...scripted.headers });
      res.end(
        JSON.stringify(
          scripted.body ?? {
            error: scripted.status === 429 ? "rate-limited" : "internal",
            message: "scripted failure",
          },
        ),
      );
      return;
    }
    const upstream = await fetch(`${worker.url}${req.url}`, {
      method: req.method,
      headers: Object.fromEntries(
        Object.entries(req.headers).filter(([k]) => k !== "host" && k !== "content-length"),
      ) as Record<string, string>,
      ...(chunks.length ? { body: Buffer.concat(chunks) } : {}),
    });
    res.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "application/json" });
    res.end(Buffer.from(await upstream.arrayBuffer()));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, seen, close: () => new Promise((r) => server.close(r)) };
}

describe("upload from files and folders", () => {
  it(
    "uploads a folder of tools/list files, one server per file, and a second run finds " + "everything unchanged",
    async () => {
      const { key, api } = await tenantOn(worker, "folder");
      const first = await upload(["--url", worker.url, "--key", key, join(ROOT, "demo", "catalog")]);
      expect(first.code, first.stderr + first.stdout).toBe(0);
      expect(summaryRow(first.stdout, "total")).toMatchObject({
        tools: 75,
        added: 75,
        updated: 0,
        unchanged: 0,
        rejected: 0,
        failed: 0,
      });
      expect(summaryRow(first.stdout, "github")).toMatchObject({ tools: 12, added: 12 });
      const catalog = await api.catalog();
      expect(catalog).toMatchObject({ tools: 75 });
      expect(catalog.servers.map((s) => s.name)).toEqual([
        "billing",
        "calendar",
        "codex",
        "email",
        "filesystem",
        "github",
        "http",
        "jira",
        "maps",
        "postgres",
        "slack",
        "weather",
      ]);
      expect((await api.search({ query: "read a file" })).results[0]?.tool_id).toBe("filesystem::read_file");

      const second = await upload(["--url", worker.url, "--key", key, join(ROOT, "demo", "catalog")]);
      expect(second.code).toBe(0);
      expect(summaryRow(second.stdout, "total")).toMatchObject({
        tools: 75,
        added: 0,
        updated: 0,
        unchanged: 75,
        removed: 0,
      });
      expect(second.stdout).toContain(
        "Done (12 servers): 0 added, 0 updated, 75 unchanged, 0 removed, 0 rejected, 0 failed.",
      );
      expect((await api.catalog()).revision).toBe(catalog.revision);
    },
  );

  it(
    "reads NDJSON, arrays in every format, JSON-RPC tools/list answers; --server and file " + "names pick the server",
    async () => {
      const { key, api } = await tenantOn(worker, "formats");
      const dir = folder({
        "notes.ndjson": `${JSON.stringify(mcpTool("create_note"))}\n${JSON.stringify(mcpTool("delete_note"))}\n\n`,
        "My Vendor.Tools.json": [
          { name: "anthropic_tool", description: "Anthropic shaped", input_schema: { type: "object" } },
          {
            type: "function",
            function: { name: "chat_tool", description: "Chat shaped", parameters: { type: "object" } },
          },
          { type: "function", name: "responses_tool", description: "Responses shaped", parameters: { type: "object" } },
          { ...mcpTool("elsewhere"), server: "other" },
        ],
        "rpc.json": { jsonrpc: "2.0", id: 1, result: { tools: [mcpTool("ping")] } },
        "README.md": "not tools",
      });
      const r = await upload(["--url", worker.url, "--key", key, dir]);
      expect(r.code, r.stderr + r.stdout).toBe(0);
      expect(r.stderr).toContain("skipped");
      expect(r.stderr).toContain("README.md");
      const ids: string[] = [];
      for await (const t of api.tools.all()) ids.push(t.tool_id);
      expect(ids).toEqual([
        "My-Vendor-Tools::anthropic_tool",
        "My-Vendor-Tools::chat_tool",
        "My-Vendor-Tools::responses_tool",
        "notes::create_note",
        "notes::delete_note",
        "other::elsewhere",
        "rpc::ping",
      ]);

      const one = await upload(["--url", worker.url, "--key", key, "--server", "scratch", join(dir, "notes.ndjson")]);
      expect(one.code).toBe(0);
      expect(summaryRow(one.stdout, "scratch")).toMatchObject({ tools: 2, added: 2 });
    },
  );

  it("--replace makes each server hold exactly the file's tools, carrying a file's defer_tools", async () => {
    const { key, api } = await tenantOn(worker, "replace");
    const before = folder({ "alpha.json": { tools: [mcpTool("one"), mcpTool("two"), mcpTool("three")] } });
    expect((await upload(["--url", worker.url, "--key", key, before])).code).toBe(0);

    const after = folder({
      "alpha.json": { tools: [mcpTool("one"), mcpTool("two", "Changed description")], defer_tools: "never" },
    });
    const r = await upload(["--url", worker.url, "--key", key, "--replace", after]);
    expect(r.code, r.stdout).toBe(0);
    expect(summaryRow(r.stdout, "alpha")).toMatchObject({ tools: 2, added: 0, updated: 1, unchanged: 1, removed: 1 });
    expect((await api.tools.list()).tools.map((t) => t.tool_id)).toEqual(["alpha::one", "alpha::two"]);
    expect((await api.catalog()).servers).toEqual([
      expect.objectContaining({ name: "alpha", defer_tools: "never", tools: 2, always_loaded: 2 }),
    ]);

    const again = await upload(["--url", worker.url, "--key", key, "--replace", after]);
    expect(summaryRow(again.stdout, "alpha")).toMatchObject({ unchanged: 2, added: 0, updated: 0, removed: 0 });
  });

  it("refuses a --replace larger than one request instead of replacing it in pieces", async () => {
    const { key, api } = await tenantOn(worker, "big-replace");
    const dir = folder({ "big.json": { tools: [mcpTool("a"), mcpTool("b"), mcpTool("c")] } });
    const r = await upload(["--url", worker.url, "--key", key, "--replace", "--batch-size", "2", dir]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("all-or-nothing");
    expect(summaryRow(r.stdout, "big")).toMatchObject({ tools: 3, rejected: 3, added: 0 });
    expect((await api.catalog()).tools).toBe(0);

    const chunked = await upload(["--url", worker.url, "--key", key, "--batch-size", "2", dir]);
    expect(chunked.code).toBe(0);
    expect(summaryRow(chunked.stdout, "big")).toMatchObject({ tools: 3, added: 3 });
  });
});

describe("rejections", () => {
  it("rejects a server with an invalid tool whole, prints every reason, uploads the rest, exits 1", async () => {
    const { key, api } = await tenantOn(worker, "rejected");
    const dir = folder({
      "bad.json": {
        tools: [mcpTool("fine"), { name: "no schema", description: "x" }, { ...mcpTool("extra"), colour: "red" }],
      },
      "good.json": { tools: [mcpTool("works")] },
    });
    const r = await upload(["--url", worker.url, "--key", key, dir]);
    expect(r.code).toBe(1);
    expect(summaryRow(r.stdout, "bad")).toMatchObject({ tools: 3, rejected: 3, added: 0 });
    expect(summaryRow(r.stdout, "good")).toMatchObject({ tools: 1, added: 1 });
    expect(r.stdout).toMatch(/bad\.json tools\[1\] \(no schema\): .*name: tool names are 1-128 characters/);
    expect(r.stdout).toMatch(/bad\.json tools\[1\] \(no schema\): .*inputSchema/);
    expect(r.stdout).toMatch(/bad\.json tools\[2\] \(extra\): .*colour/);
    expect(r.stdout).toContain("Finished with problems, listed above");
    expect((await api.tools.list()).tools.map((t) => t.tool_id)).toEqual(["good::works"]);
  });

  it("uploads names that map to one model-facing name and lists the one that got a suffix", async () => {
    const { key, api } = await tenantOn(worker, "clash");
    const dir = folder({ "clash.json": { tools: [mcpTool("list.items"), mcpTool("list_items")] } });
    const r = await upload(["--url", worker.url, "--key", key, dir]);
    expect(r.code, r.stderr).toBe(0);
    expect(summaryRow(r.stdout, "clash")).toMatchObject({ tools: 2, added: 2, rejected: 0 });
    expect(r.stdout).toMatch(/clash::list\.items -> clash__list_items_[0-9a-f]{6}/);
    expect((await api.catalog()).tools).toBe(2);
  });

  it("reports a batch the service refuses (a key without write scope) with its reason, writing nothing", async () => {
    const { api } = await tenantOn(worker, "refused");
    const operator = new ToolSearchClient({ url: worker.url, token: worker.adminToken }).tenant("refused");
    const readOnly = (await operator.keys.create({ scopes: ["search"] })).key;
    const dir = folder({ "refused.json": { tools: [mcpTool("list_items")] } });
    const r = await upload(["--url", worker.url, "--key", readOnly, dir]);
    expect(r.code).toBe(1);
    expect(summaryRow(r.stdout, "refused")).toMatchObject({ tools: 1, rejected: 1, added: 0 });
    expect(r.stdout).toContain("403 forbidden");
    expect((await api.catalog()).tools).toBe(0);
  });

  it("--dry-run validates locally and sends nothing", async () => {
    const counter = await proxy([]);
    try {
      const ok = await upload([
        "--url",
        counter.url,
        "--key",
        "tsk_none",
        "--tenant",
        "none",
        "--dry-run",
        join(ROOT, "demo", "catalog"),
      ]);
      expect(ok.code).toBe(0);
      expect(summaryRow(ok.stdout, "total")).toMatchObject({ tools: 75, requests: 12, rejected: 0 });
      expect(ok.stdout).toContain("Dry run, nothing sent");

      const dir = folder({ "bad.json": [{ name: "bad name!", inputSchema: { type: "object" } }] });
      const bad = await upload(["--dry-run", dir]);
      expect(bad.code).toBe(1);
      expect(bad.stdout).toMatch(/bad\.json tools\[0\] \(bad name!\): name: tool names/);
      expect(counter.seen).toEqual([]);
    } finally {
      await counter.close();
    }
  });

  it("refuses wrong usage with exit code 2 and sends nothing", async () => {
    expect((await upload([join(ROOT, "demo", "catalog")])).code).toBe(2); // no key
    const missing = await upload(["--dry-run", "/nonexistent/tools.json"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("no such file or folder");
    const broken = await upload(["--dry-run", folder({ "x.ndjson": '{"name": "a"}\nnot json\n' })]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain("line 2 is not JSON");
    expect((await upload(["--dry-run", "--concurrency", "0", "x.json"])).code).toBe(2);
    const help = await upload(["--help"]);
    expect(help.code).toBe(0);
    for (const option of [
      "--url",
      "--tenant",
      "--key",
      "TOOL_SEARCH_KEY",
      "--server",
      "--replace",
      "--dry-run",
      "--concurrency",
      "--mcp-config",
      "Exit codes",
    ]) {
      expect(help.stdout).toContain(option);
    }
  });
});

describe("the package's tool-search-upload command", () => {
  it("runs the same CLI", async () => {
    const { spawnSync } = await import("node:child_process");
    const run = spawnSync(
      process.execPath,
      [join(ROOT, "bin", "tool-search-upload.js"), "--dry-run", join(ROOT, "demo", "catalog")],
      { encoding: "utf8" },
    );
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("Dry run, nothing sent: all 75 tools of 12 servers are valid");
  });
});

describe("retries", () => {
  it("retries 429 and 5xx answers and succeeds", async () => {
    const { key, api } = await tenantOn(worker, "retry");
    const flaky = await proxy([{ status: 429, headers: { "retry-after": "0" } }, { status: 503 }]);
    try {
      const dir = folder({ "svc.json": { tools: [mcpTool("alpha"), mcpTool("beta")] } });
      const r = await upload(["--url", flaky.url, "--key", key, dir]);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stderr).toContain("(429 rate-limited; retry 1 of 5)");
      expect(r.stderr).toContain("(503 internal; retry 2 of 5)");
      expect(flaky.seen.filter((s) => s.startsWith("POST"))).toHaveLength(3);
      expect(summaryRow(r.stdout, "svc")).toMatchObject({ added: 2, failed: 0 });
      expect((await api.catalog()).tools).toBe(2);
    } finally {
      await flaky.close();
    }
  });

  it("gives up after --retries and reports the tools as failed, exit 1", async () => {
    const { key, api } = await tenantOn(worker, "down");
    const down = await proxy([{ status: 503 }, { status: 502 }]);
    try {
      const dir = folder({ "svc.json": { tools: [mcpTool("alpha")] } });
      const r = await upload(["--url", down.url, "--key", key, "--retries", "1", dir]);
      expect(r.code).toBe(1);
      expect(summaryRow(r.stdout, "svc")).toMatchObject({ tools: 1, failed: 1, added: 0 });
      expect(r.stdout).toContain("not delivered");
      expect(r.stdout).toContain("502 internal");
      expect((await api.catalog()).tools).toBe(0);
    } finally {
      await down.close();
    }
  });
});
