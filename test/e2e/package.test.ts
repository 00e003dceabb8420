/**
 * The package as its users get it: `npm pack` (whose prepack builds dist/), `npm install <tarball>` into an empty
 * project, then `import "tool-search/client"` and the `tool-search-upload` bin from node_modules, under the
 * machine's plain Node 20 and under Node 22, against a real worker (wrangler dev).
 *
 * The install uses npm's cache first (`--prefer-offline`: the tarballs `npm ci` cached for this checkout) and the
 * registry only for what the cache lacks, such as package metadata; CI reaches the npm registry.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import type { LocalWorker } from "../../scripts/local-worker.ts";
import { api, localWorkers } from "./support.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** A Node of the given major version outside this project (the machine's own), if there is one. */
function systemNode(major: number): string | null {
  const candidates = [
    ...(process.env.PATH ?? "").split(delimiter).map((dir) => join(dir, "node")),
    "/usr/bin/node",
    "/usr/local/bin/node",
  ].filter((p) => !p.startsWith(join(root, "node_modules")) && existsSync(p));
  for (const node of candidates) {
    const version = spawnSync(node, ["--version"], { encoding: "utf8" }).stdout?.trim() ?? "";
    if (version.startsWith(`v${major}.`)) return node;
  }
  return null;
}

const NODES: [string, string | null][] = [
  ["Node 20 (the machine's)", systemNode(20)],
  ["Node 22 (the project's)", process.execPath],
];

let app = "";

describe("the npm package", () => {
  const start = localWorkers();
  let worker: LocalWorker;
  let key = "";

  beforeAll(async () => {
    const packs = mkdtempSync(join(tmpdir(), "tool-search-pack-"));
    execFileSync("npm", ["pack", "--pack-destination", packs], { cwd: root, stdio: "pipe" });
    const tarball = join(packs, readdirSync(packs).find((f) => f.endsWith(".tgz"))!);
    app = join(packs, "app");
    mkdirSync(app);
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
    execFileSync("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", tarball], {
      cwd: app,
      stdio: "pipe",
    });
    worker = await start();
    expect((await api(worker, worker.adminToken, "POST", "/v1/tenants", { id: "pkg" })).status).toBe(201);
    key = (await api(worker, worker.adminToken, "POST", "/v1/tenants/pkg/keys", { scopes: ["search", "write"] })).json
      .key;
  }, 600_000);

  it("ships compiled JavaScript with declarations, not TypeScript sources", () => {
    const installed = join(app, "node_modules", "tool-search");
    expect(existsSync(join(installed, "dist", "client", "index.js"))).toBe(true);
    expect(existsSync(join(installed, "dist", "client", "index.d.ts"))).toBe(true);
    expect(existsSync(join(installed, "dist", "upload", "cli.js"))).toBe(true);
    expect(existsSync(join(installed, "src"))).toBe(false);
    // Only what the client and the CLI need at run time comes along: not the Worker's packages.
    for (const workerOnly of ["@orama/orama", "gpt-tokenizer", "@scalar/hono-api-reference", "wrangler"])
      expect(existsSync(join(app, "node_modules", workerOnly)), workerOnly).toBe(false);
  });

  it.each(NODES)("under %s: the bin uploads and the client imported from node_modules finds it", (label, node) => {
    if (!node) {
      console.warn(`no ${label} on this machine: not checked`);
      return;
    }
    const server = label.includes("20") ? "node20" : "node22";
    const folder = join(app, server);
    mkdirSync(folder, { recursive: true });
    const tool = { name: "convert_currency", description: "Convert an amount between currencies", inputSchema: {} };
    writeFileSync(join(folder, `${server}.json`), JSON.stringify({ tools: [tool] }));
    const help = spawnSync(node, [join(app, "node_modules", ".bin", "tool-search-upload"), "--help"], {
      encoding: "utf8",
    });
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toContain("Usage:");
    const upload = spawnSync(
      node,
      [join(app, "node_modules", ".bin", "tool-search-upload"), "--url", worker.url, "--key", key, folder],
      { encoding: "utf8", cwd: app },
    );
    expect(upload.status, upload.stderr + upload.stdout).toBe(0);
    expect(upload.stdout).toMatch(new RegExp(`${server}\\s+1\\s+1`));

    writeFileSync(
      join(app, `${server}.mjs`),
      `import { ToolSearchClient } from "tool-search/client";
       const client = new ToolSearchClient({ url: ${JSON.stringify(worker.url)}, token: ${JSON.stringify(key)} });
       const t = client.tenant("pkg");
       const found = await t.search({ tool_id: "${server}::convert_currency", format: "openai-responses" });
       console.log(JSON.stringify({ node: process.version, result: found.results[0] }));`,
    );
    const client = spawnSync(node, [`${server}.mjs`], { encoding: "utf8", cwd: app });
    expect(client.status, client.stderr).toBe(0);
    const out = JSON.parse(client.stdout);
    expect(out.node).toMatch(label.includes("20") ? /^v20\./ : /^v22\./);
    expect(out.result).toMatchObject({
      tool_id: `${server}::convert_currency`,
      model_name: `${server}__convert_currency`,
      definition: { type: "function", parameters: { type: "object" }, strict: null },
    });
  });
});
