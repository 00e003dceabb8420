/**
 * The MCP project's conformance suite (@modelcontextprotocol/conformance, pinned) against the MCP endpoint under
 * wrangler dev: every server scenario (`--suite all`), with test/e2e/conformance/baseline.yml listing the scenarios
 * for capabilities this server does not offer, each with its reason. The suite exits non-zero on any other failure
 * and on a baseline entry that passes. It runs offline: the suite is a local CLI talking to a loopback address.
 *
 * The suite's client sends no Authorization header, so it talks to a small loopback proxy that adds a tenant key
 * (what an MCP client's configured `headers` do) and passes everything else on unchanged, Host and Origin included:
 * its DNS-rebinding scenario then reaches the Worker exactly as it sent it.
 */
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { api, localWorkers } from "./support.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const SUITE = join(root, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
const BASELINE = join(root, "test", "e2e", "conformance", "baseline.yml");

/** A loopback proxy to `target` that adds `authorization` to every request. */
async function authorizingProxy(target: string, authorization: string): Promise<{ url: string; server: Server }> {
  const to = new URL(target);
  const server = createServer((req, res) => {
    const upstream = request(
      {
        host: to.hostname,
        port: to.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, authorization },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", (e) => {
      res.writeHead(502);
      res.end(String(e));
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, server };
}

function run(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [SUITE, ...args], { cwd: root, env: { ...process.env, NO_COLOR: "1" } });
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr.on("data", (c: Buffer) => (output += c.toString()));
    child.on("close", (code) => resolve({ code, output }));
  });
}

describe("the MCP conformance suite", () => {
  const start = localWorkers();
  let proxy: Server | undefined;
  afterAll(() => proxy?.close());

  it("passes every server scenario but those in its baseline", async () => {
    const worker = await start();
    expect((await api(worker, worker.adminToken, "POST", "/v1/tenants", { id: "conformance" })).status).toBe(201);
    const key = (await api(worker, worker.adminToken, "POST", "/v1/tenants/conformance/keys", { scopes: ["search"] }))
      .json.key as string;
    const front = await authorizingProxy(worker.url, `Bearer ${key}`);
    proxy = front.server;
    const results = mkdtempSync(join(tmpdir(), "tool-search-conformance-"));
    const suite = await run([
      "server",
      "--url",
      `${front.url}/v1/tenants/conformance/mcp`,
      "--suite",
      "all",
      "--expected-failures",
      BASELINE,
      "--output-dir",
      results,
    ]);
    const summary = suite.output.slice(suite.output.lastIndexOf("=== SUMMARY ==="));
    expect(suite.code, summary || suite.output.slice(-4000)).toBe(0);
    // What it does offer passes: the handshake, ping, tools/list, and the DNS-rebinding protection (the Origin rule).
    for (const scenario of ["server-initialize", "ping", "tools-list", "dns-rebinding-protection"])
      expect(summary).toMatch(new RegExp(`✓ ${scenario}: \\d+ passed, 0 failed`));
  }, 300_000);
});
