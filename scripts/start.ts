/**
 * `npm start`: runs the Worker locally (wrangler dev, local Durable Object storage in .wrangler/state)
 * and leaves a demo tenant ready: the demo catalog in demo/catalog uploaded, an API key, and a curl
 * example to copy. `npm start -- --help` lists the flags; what follows a second `--` goes to wrangler as it is.
 *
 * The operator token comes from ADMIN_TOKEN (environment), .dev.vars, or `--var ADMIN_TOKEN:...`;
 * when none is set, one is generated, saved to .dev.vars (git-ignored) and printed. It reaches
 * wrangler through a .dev.vars file, never its command line (which every user of the machine can
 * read in the process list): the project's own, or, for a token from the environment, a private
 * copy of it with the token added. Files that hold secrets (.dev.vars, .wrangler/demo-key) are
 * readable by their owner only (mode 0600).
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgsWith, type CommandHelp } from "../src/cli/usage.ts";
import { ToolSearchClient } from "../src/client/index.ts";
import { DEMO_TENANT, uploadDemoCatalog } from "./demo.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const DEMO_KEY_FILE = join(root, ".wrangler", "demo-key");
const DEV_VARS = join(root, ".dev.vars");

const HELP: CommandHelp = {
  usage: ["npm start -- [options] [-- <wrangler dev flags>]"],
  summary:
    "Runs the Worker locally (wrangler dev, Durable Object storage in .wrangler/state) and leaves a demo tenant " +
    "ready: the demo catalog uploaded, an API key, a curl search to copy.",
  flags: {
    port: { text: "the port to listen on", value: "<port>" },
    ip: { text: "the address to listen on", value: "<ip>" },
    var: {
      text: "a variable for the Worker, as wrangler takes it; ADMIN_TOKEN:<token> sets the operator token",
      default: "ADMIN_TOKEN from the environment, else .dev.vars, else one generated and saved there",
      value: "<NAME:value>",
    },
    "persist-to": {
      text: "where Durable Object storage lives",
      default: "wrangler's, .wrangler/state",
      value: "<dir>",
    },
  },
  examples: [
    "npm start",
    "npm start -- --port 9000",
    "npm start -- --var ADMIN_TOKEN:op_my_long_secret_token",
    "npm start -- -- --local-protocol https",
  ],
};

// What follows `--` goes to wrangler as it is.
const argv = process.argv.slice(2);
const dash = argv.indexOf("--");
const passThrough = dash < 0 ? [] : argv.slice(dash + 1);
const { values: flags } = parseArgsWith(HELP)({
  args: dash < 0 ? argv : argv.slice(0, dash),
  options: {
    port: { type: "string", default: "8787" },
    ip: { type: "string", default: "localhost" },
    var: { type: "string", multiple: true, default: [] },
    "persist-to": { type: "string" },
  },
});

function devVarsToken(): string | undefined {
  if (!existsSync(DEV_VARS)) return undefined;
  const line = readFileSync(DEV_VARS, "utf8")
    .split("\n")
    .find((l) => /^\s*ADMIN_TOKEN\s*=/.test(l));
  return line
    ?.split("=")
    .slice(1)
    .join("=")
    .trim()
    .replace(/^["']|["']$/g, "");
}

/** Writes a file only its owner may read, whatever mode an older copy had. */
function writePrivate(file: string, content: string): void {
  writeFileSync(file, content, { mode: 0o600 });
  chmodSync(file, 0o600);
}

/**
 * A private copy of the project's .dev.vars (if any) with `token` as ADMIN_TOKEN, for wrangler's --env-file: a token
 * given on npm start's command line or in its environment reaches wrangler in a file only its owner reads, never on
 * wrangler's command line. The copy is removed when npm start exits.
 */
function privateDevVars(token: string): string[] {
  const previous = existsSync(DEV_VARS) ? readFileSync(DEV_VARS, "utf8") : "";
  const kept = previous
    .split("\n")
    .filter((l) => l.trim() !== "" && !/^\s*ADMIN_TOKEN\s*=/.test(l))
    .join("\n");
  const file = join(mkdtempSync(join(tmpdir(), "tool-search-start-")), ".dev.vars");
  writePrivate(file, `${kept ? `${kept}\n` : ""}ADMIN_TOKEN='${token}'\n`);
  process.on("exit", () => rmSync(join(file, ".."), { recursive: true, force: true }));
  return ["--env-file", file];
}

/** The operator token and where it came from; a generated one is saved so restarts keep it. */
function operatorToken(): { token: string; source: string; wranglerArgs: string[] } {
  if (existsSync(DEV_VARS)) chmodSync(DEV_VARS, 0o600);
  const fromVar = flags.var.find((v) => v.startsWith("ADMIN_TOKEN:"));
  if (fromVar) {
    const token = fromVar.slice("ADMIN_TOKEN:".length);
    return { token, source: "--var", wranglerArgs: privateDevVars(token) };
  }
  if (process.env.ADMIN_TOKEN) {
    const token = process.env.ADMIN_TOKEN;
    return { token, source: "ADMIN_TOKEN environment variable", wranglerArgs: privateDevVars(token) };
  }
  const saved = devVarsToken();
  if (saved) return { token: saved, source: ".dev.vars", wranglerArgs: [] };
  const token = `op_${randomBytes(24).toString("base64url")}`;
  const previous = existsSync(DEV_VARS) ? readFileSync(DEV_VARS, "utf8").replace(/\n?$/, "\n") : "";
  writePrivate(DEV_VARS, `${previous === "\n" ? "" : previous}ADMIN_TOKEN=${token}\n`);
  return { token, source: "generated now and saved to .dev.vars", wranglerArgs: [] };
}

async function waitUntilUp(base: string, child: ReturnType<typeof spawn>): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited with code ${child.exitCode}`);
    try {
      if ((await fetch(`${base}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the worker did not answer on ${base} within 2 minutes`);
}

async function api(
  base: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: any }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

/** The demo key from a previous start if it still works, else a new one (keys are shown only once). */
async function demoKey(base: string, operator: string): Promise<string> {
  if (existsSync(DEMO_KEY_FILE)) {
    chmodSync(DEMO_KEY_FILE, 0o600); // written world-readable by earlier versions
    const key = readFileSync(DEMO_KEY_FILE, "utf8").trim();
    if ((await api(base, key, "GET", `/v1/tenants/${DEMO_TENANT}/catalog`)).status === 200) return key;
  }
  const created = await api(base, operator, "POST", `/v1/tenants/${DEMO_TENANT}/keys`, {
    scopes: ["search", "write", "admin"],
    label: "npm start demo key",
  });
  if (created.status !== 201)
    throw new Error(`creating the demo key failed: ${created.status} ${JSON.stringify(created.json)}`);
  mkdirSync(join(root, ".wrangler"), { recursive: true });
  writePrivate(DEMO_KEY_FILE, `${created.json.key}\n`);
  return created.json.key;
}

async function seed(base: string, operator: string): Promise<{ key: string; tools: number; servers: number }> {
  const tenant = await api(base, operator, "POST", "/v1/tenants", { id: DEMO_TENANT });
  if (tenant.status !== 201 && tenant.status !== 409)
    throw new Error(`creating the demo tenant failed: ${tenant.status} ${JSON.stringify(tenant.json)}`);
  const key = await demoKey(base, operator);
  const uploaded = await uploadDemoCatalog(new ToolSearchClient({ url: base, token: key }).tenant(DEMO_TENANT));
  return { key, ...uploaded };
}

async function main(): Promise<void> {
  const port = Number(flags.port);
  const host = flags.ip;
  const base = `http://${host === "0.0.0.0" ? "localhost" : host}:${port}`;
  const operator = operatorToken();
  const wranglerArgs = [
    "dev",
    ...operator.wranglerArgs,
    ...["--port", String(port), "--ip", host],
    // The operator token goes to wrangler in a private .dev.vars (operatorToken), not on its command line.
    ...flags.var.filter((v) => !v.startsWith("ADMIN_TOKEN:")).flatMap((v) => ["--var", v]),
    ...(flags["persist-to"] ? ["--persist-to", flags["persist-to"]] : []),
    ...passThrough,
  ];

  const child = spawn(join(root, "node_modules", ".bin", "wrangler"), wranglerArgs, {
    cwd: root,
    stdio: ["inherit", "inherit", "inherit"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
  child.on("exit", (code) => process.exit(code ?? 0));

  await waitUntilUp(base, child);
  const demo = await seed(base, operator.token);
  const curl =
    `curl -s ${base}/v1/tenants/${DEMO_TENANT}/search -H 'authorization: Bearer ${demo.key}' ` +
    `-H 'content-type: application/json' -d '{"query": "read a file"}'`;
  console.log(
    [
      "",
      "──────────────── tool-search is running ────────────────",
      `  URL            ${base}   (API reference: ${base}/docs, OpenAPI: ${base}/openapi.json)`,
      `  console        ${base}/console   (sign in with the demo key below)`,
      `  operator token ${operator.token}   (${operator.source})`,
      `  demo tenant    '${DEMO_TENANT}': ${demo.tools} tools on ${demo.servers} servers (demo/catalog)`,
      `  demo key       ${demo.key}   (scopes: search, write, admin; saved in .wrangler/demo-key)`,
      "",
      "  Try a search:",
      `  ${curl}`,
      "────────────────────────────────────────────────────────",
      "",
    ].join("\n"),
  );
}

main().catch((e: unknown) => {
  console.error(`npm start failed: ${e instanceof Error ? e.message : e}`);
  process.exit(1);
});
