/**
 * `npm run backup` and `npm run restore` as a user runs them, against a real local worker (wrangler dev): a backup
 * file written and checked, restored under another tenant id with the same catalog and search answers, a key moved
 * with --rekey, and refusals (a cut file before anything is sent, a tenant that is not empty) with exit status 1.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalWorker, type LocalWorker } from "../../scripts/local-worker.ts";
import { ROOT, type Run } from "./cli.ts";

let worker: LocalWorker;
beforeAll(async () => {
  worker = await startLocalWorker();
});
afterAll(async () => {
  await worker?.stop();
});

function run(script: "backup" | "restore", args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const name of Object.keys(env))
      if (name.startsWith("TOOL_SEARCH_") || name === "ADMIN_TOKEN") delete env[name];
    const child = spawn(process.execPath, [join(ROOT, "scripts", `${script}.ts`), ...args], { cwd: ROOT, env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

async function api(method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(`${worker.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as any };
}

const tool = (server: string, name: string, description: string) => ({
  server,
  name,
  description,
  inputSchema: { type: "object", properties: { id: { type: "string", description: `${name} id` } } },
});

describe("npm run backup / npm run restore", () => {
  it("round trip under another tenant id: the same catalog and answers; the key moved with --rekey works", async () => {
    const op = worker.adminToken;
    const tenant = `cli-${Date.now().toString(36)}`;
    expect((await api("POST", "/v1/tenants", op, { id: tenant })).status).toBe(201);
    const key = (await api("POST", `/v1/tenants/${tenant}/keys`, op, { scopes: ["search", "write", "admin"] })).body
      .key as string;
    const tools = Array.from({ length: 300 }, (_, i) =>
      tool(`srv${i % 7}`, `op_${i}`, `Operation ${i} on ${["files", "issues", "mail"][i % 3]}`),
    );
    expect((await api("POST", `/v1/tenants/${tenant}/tools`, key, { tools })).status).toBe(200);
    const dir = mkdtempSync(join(tmpdir(), "recovery-cli-"));
    const file = join(dir, "backup.ndjson");

    const backup = await run("backup", ["--url", worker.url, "--tenant", tenant, "--token", key, "--out", file]);
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stdout).toContain(`backed up tenant ${tenant} at revision 1`);
    expect(backup.stdout).toContain("300 tools, 7 servers, 1 keys");
    expect(backup.stdout).toMatch(/checked/);

    const copy = `${tenant}-copy`;
    const dry = await run("restore", [file, "--url", worker.url, "--tenant", copy, "--dry-run"]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`would restore into ${copy}`);
    expect((await api("GET", `/v1/tenants/${copy}/catalog`, op)).status).toBe(404);

    const restored = await run("restore", [file, "--url", worker.url, "--tenant", copy, "--token", op]);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toContain(`into tenant ${copy} (created)`);
    expect(restored.stdout).toContain("300 tools, 7 servers, 1 keys");

    const moved = await run("restore", ["--rekey", key, "--tenant", copy]);
    expect(moved.code).toBe(0);
    const copyKey = moved.stdout.trim();
    expect(copyKey).toBe(key.replace(`tsk_${tenant}_`, `tsk_${copy}_`));
    for (const query of ["operation on files", "op_123", "mail"]) {
      const a = await api("POST", `/v1/tenants/${tenant}/search`, key, { query, max_results: 10 });
      const b = await api("POST", `/v1/tenants/${copy}/search`, copyKey, { query, max_results: 10 });
      expect(b.status).toBe(200);
      expect(b.body.results).toEqual(a.body.results);
    }
    const catalog = (await api("GET", `/v1/tenants/${copy}/catalog`, copyKey)).body;
    expect(catalog).toMatchObject({ tools: 300 });

    // Again into the same tenant: it is not empty any more (409), exit 1.
    const twice = await run("restore", [file, "--url", worker.url, "--tenant", copy, "--token", op]);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain("409 conflict");

    // A cut file is caught before anything is sent.
    const cut = join(dir, "cut.ndjson");
    const text = readFileSync(file, "utf8");
    writeFileSync(cut, text.slice(0, Math.floor(text.length / 2)));
    const refused = await run("restore", [cut, "--url", worker.url, "--tenant", `${tenant}-cut`, "--token", op]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/not a whole backup: .*(truncated|not JSON)/);
    expect((await api("GET", `/v1/tenants/${tenant}-cut/catalog`, op)).status).toBe(404);

    // A backup with a key that may not take one: exit 1, no file left behind.
    const searchKey = (await api("POST", `/v1/tenants/${tenant}/keys`, op, { scopes: ["search"] })).body.key as string;
    const denied = await run("backup", ["--url", worker.url, "--tenant", tenant, "--token", searchKey, "--out", cut]);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain("403");
  });
});
