/** Helpers for end-to-end tests of the upload CLI: run it as a user would, and set up a tenant on a local worker. */
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ToolSearchClient } from "../../src/client/index.ts";
import type { LocalWorker } from "../../scripts/local-worker.ts";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SCRIPT = join(ROOT, "scripts", "upload.ts");

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `node scripts/upload.ts ...args`; of the TOOL_SEARCH_* variables only those given reach it. */
export function upload(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
    for (const name of Object.keys(childEnv))
      if (name.startsWith("TOOL_SEARCH_") && !(name in env)) delete childEnv[name];
    const child = spawn(process.execPath, [SCRIPT, ...args], { cwd: ROOT, env: childEnv });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** A fresh tenant with a write+search key, and the typed client on it. */
export async function tenantOn(worker: LocalWorker, id: string) {
  const operator = new ToolSearchClient({ url: worker.url, token: worker.adminToken });
  await operator.createTenant({ id });
  const { key } = await operator.tenant(id).keys.create({ scopes: ["search", "write"] });
  return { key, api: new ToolSearchClient({ url: worker.url, token: key }).tenant(id) };
}

/** A temporary folder with these files (name -> content; objects are written as JSON). */
export function folder(files: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), "upload-test-"));
  for (const [name, content] of Object.entries(files))
    writeFileSync(join(dir, name), typeof content === "string" ? content : JSON.stringify(content));
  return dir;
}

export function mcpTool(name: string, description = `Does ${name.replace(/_/g, " ")}`) {
  return { name, description, inputSchema: { type: "object", properties: { id: { type: "string" } } } };
}

/** The summary table's row for a server (or `total`) as numbers by column. */
export function summaryRow(stdout: string, server: string): Record<string, number> {
  const lines = stdout.split("\n");
  const header = lines
    .find((l) => l.startsWith("server "))!
    .trim()
    .split(/\s+/)
    .slice(1);
  const row = lines.find((l) => l.split(/\s+/)[0] === server);
  if (!row) throw new Error(`no summary row '${server}' in:\n${stdout}`);
  const values = row.trim().split(/\s+/).slice(1).map(Number);
  return Object.fromEntries(header.map((h, i) => [h, values[i]!]));
}
