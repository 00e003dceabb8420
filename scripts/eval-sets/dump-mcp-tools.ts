/**
 * Dumps the `tools/list` answer of real MCP servers published on npm, as fixtures for our own
 * evaluation sets (eval/mcp/README.md says what is there and why).
 *
 *   npx node scripts/eval-sets/dump-mcp-tools.ts --help
 *
 * For every entry of the pinned list (eval/mcp/packages.json) it installs `package@version` into a
 * folder of its own under a work directory (npm, no install scripts unless the entry asks for them),
 * starts the package's bin over stdio with the entry's placeholder credentials in env and args, lists
 * the tools with the MCP SDK's client (following `nextCursor`), and writes
 *   eval/mcp/servers/<server>.json     {server, package, version, license, tools} (tools as returned)
 *   eval/mcp/licenses/<package>.txt    the package's own licence file
 * and the provenance table of eval/mcp/README.md (between its `servers` markers). Entries with a
 * `skip` reason are not run; they are listed in the README with that reason.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { z } from "zod";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const PERMISSIVE = /^(MIT|MIT-0|ISC|Apache-2\.0|BSD-2-Clause|BSD-3-Clause|0BSD)$/;
const SERVER_NAME = /^[A-Za-z0-9_-]{1,64}$/;

const HELP = `Usage: npx node scripts/eval-sets/dump-mcp-tools.ts [options]

Installs each pinned MCP server package from npm, starts it over stdio with placeholder
credentials, calls tools/list (all pages) and writes one fixture per server.

Options:
  --list FILE      pinned package list (default eval/mcp/packages.json)
  --out DIR        output folder (default eval/mcp): servers/, licenses/, README.md table
  --work DIR       where packages are installed (default $TMPDIR/tool-search-mcp-dump);
                   an install of the same version is reused
  --only A,B       only these servers (the others' fixtures are left as they are)
  --timeout MS     per server: start + tools/list (default 60000)
  --clean          remove each install after its dump
  --verbose        show the servers' stderr
  --help           this text

Entry fields in the list: server, package, version, bin? (key of package.json "bin"),
args? and env? (placeholder credentials; {scratch} = an empty folder of the entry's own),
files? (placeholder files written into {scratch}), scripts? (true: run install scripts),
normalize? ([regex, replacement] pairs applied to the listed tools' strings),
upstreamLicense? ({file, source}: licence text under licenses/upstream/ for a package that
ships none), skip? (reason: listed, not run).`;

interface Entry {
  server: string;
  package: string;
  version: string;
  bin?: string;
  args?: string[];
  env?: Record<string, string>;
  scripts?: boolean;
  /** Placeholder files to create in the scratch folder before the start (path -> content). */
  files?: Record<string, string>;
  /**
   * For a package that declares a permissive licence but ships no licence file: the licence text of
   * its source repository (a file under the output's licenses/upstream/) and where it comes from.
   */
  upstreamLicense?: { file: string; source: string };
  /**
   * Replacements (JavaScript regular expression, replacement) applied to every string of the listed
   * tools, for a server whose descriptions describe the machine it runs on (paths, host names).
   */
  normalize?: [string, string][];
  skip?: string;
}

export interface Fixture {
  server: string;
  package: string;
  version: string;
  license: string;
  tools: Record<string, unknown>[];
}

const ToolsPage = z.looseObject({
  tools: z.array(z.looseObject({ name: z.string() })),
  nextCursor: z.string().optional(),
});

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

function install(entry: Entry, dir: string): string {
  const pkgDir = join(dir, "node_modules", ...entry.package.split("/"));
  const manifest = join(pkgDir, "package.json");
  if (existsSync(manifest) && JSON.parse(readFileSync(manifest, "utf8")).version === entry.version) return pkgDir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "dump", private: true }));
  const args = [
    "install",
    `${entry.package}@${entry.version}`,
    "--no-audit",
    "--no-fund",
    "--no-save",
    "--loglevel=error",
  ];
  if (!entry.scripts) args.push("--ignore-scripts");
  const run = spawnSync("npm", args, { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  if (run.status !== 0)
    throw new Error(`npm install failed: ${(run.stderr || run.stdout).trim().split("\n").slice(-3).join(" | ")}`);
  return pkgDir;
}

function binPath(entry: Entry, pkgDir: string): string {
  const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
  const bins: Record<string, string> =
    typeof manifest.bin === "string" ? { [manifest.name]: manifest.bin } : (manifest.bin ?? {});
  const key = entry.bin ?? Object.keys(bins)[0];
  const rel = key ? bins[key] : undefined;
  if (!rel)
    throw new Error(`no bin ${entry.bin ?? ""} in ${entry.package} (has: ${Object.keys(bins).join(", ") || "none"})`);
  return join(pkgDir, rel);
}

function licenseOf(entry: Entry, pkgDir: string, out: string): { id: string; text: string } {
  const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
  const id = typeof manifest.license === "string" ? manifest.license : (manifest.license?.type ?? "UNKNOWN");
  if (!PERMISSIVE.test(id)) throw new Error(`licence ${id} is not on the permissive list`);
  const file = readdirSync(pkgDir).find((f) => /^(licen[sc]e|copying)(\.(md|txt))?$/i.test(f));
  if (file) return { id, text: readFileSync(join(pkgDir, file), "utf8") };
  if (!entry.upstreamLicense)
    throw new Error("the package ships no licence file (and the entry names no upstreamLicense)");
  const upstream = readFileSync(join(out, "licenses", "upstream", entry.upstreamLicense.file), "utf8");
  const note =
    `${entry.package}@${entry.version} declares "${id}" in its package.json and ships no licence file.\n` +
    `The text below is the licence of its source repository: ${entry.upstreamLicense.source}.\n\n`;
  return { id, text: note + upstream };
}

async function listTools(entry: Entry, bin: string, scratch: string, timeoutMs: number, verbose: boolean) {
  const home = join(scratch, "home");
  mkdirSync(home, { recursive: true });
  const fill = (text: string) => text.replaceAll("{scratch}", scratch);
  const args = (entry.args ?? []).map(fill);
  const env = Object.fromEntries(Object.entries(entry.env ?? {}).map(([k, v]) => [k, fill(v)]));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, ...args],
    env: { ...getDefaultEnvironment(), HOME: home, USERPROFILE: home, NODE_ENV: "production", ...env },
    cwd: scratch,
    stderr: verbose ? "inherit" : "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const client = new Client({ name: "tool-search-eval-dump", version: "1.0.0" });
  const work = async () => {
    await client.connect(transport);
    const tools: Record<string, unknown>[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.request({ method: "tools/list", params: cursor ? { cursor } : {} }, ToolsPage);
      tools.push(...(page.tools as Record<string, unknown>[]));
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor && pages < 100);
    return { tools, pages };
  };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([work(), timeout]);
  } catch (error) {
    const tail = stderr.trim().split("\n").slice(-4).join(" | ").slice(0, 600);
    throw new Error(`${(error as Error).message}${tail ? ` (stderr: ${tail})` : ""}`);
  } finally {
    clearTimeout(timer);
    await client.close().catch(() => undefined);
  }
}

/** Every string inside `value`, with the entry's replacements applied. */
function normalized(value: unknown, rules: [RegExp, string][]): unknown {
  if (typeof value === "string") return rules.reduce((text, [re, to]) => text.replace(re, to), value);
  if (Array.isArray(value)) return value.map((v) => normalized(v, rules));
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalized(v, rules)]));
  return value;
}

function licenseFileName(pkg: string): string {
  return `${pkg.replace(/^@/, "").replaceAll("/", "__")}.txt`;
}

function readmeTable(entries: Entry[], out: string): string {
  const rows = ["| server | package | version | licence | tools |", "|---|---|---|---|---|"];
  const skipped = ["| package | version | why it is not included |", "|---|---|---|"];
  let total = 0;
  let servers = 0;
  for (const e of entries) {
    const path = join(out, "servers", `${e.server}.json`);
    if (e.skip || !existsSync(path)) {
      skipped.push(`| \`${e.package}\` | ${e.version} | ${e.skip ?? "no fixture"} |`);
      continue;
    }
    const f = JSON.parse(readFileSync(path, "utf8")) as Fixture;
    total += f.tools.length;
    servers += 1;
    rows.push(`| \`${f.server}\` | \`${f.package}\` | ${f.version} | ${f.license} | ${f.tools.length} |`);
  }
  return [`${servers} servers, ${total} tools.`, "", ...rows, "", "Tried and left out:", "", ...skipped].join("\n");
}

function writeReadmeTable(entries: Entry[], out: string): void {
  const readme = join(out, "README.md");
  const begin = "<!-- servers:begin -->";
  const end = "<!-- servers:end -->";
  const table = `${begin}\n${readmeTable(entries, out)}\n${end}`;
  const text = existsSync(readme) ? readFileSync(readme, "utf8") : `# MCP server fixtures\n\n${begin}\n${end}\n`;
  const at = text.indexOf(begin);
  const stop = text.indexOf(end);
  if (at < 0 || stop < at) throw new Error(`${readme} has no ${begin} ... ${end} markers`);
  writeFileSync(readme, text.slice(0, at) + table + text.slice(stop + end.length));
}

async function main(): Promise<number> {
  const { values: opts } = parseArgs({
    options: {
      list: { type: "string" },
      out: { type: "string" },
      work: { type: "string" },
      only: { type: "string" },
      timeout: { type: "string", default: "60000" },
      clean: { type: "boolean", default: false },
      verbose: { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
    strict: true,
  });
  if (opts.help) {
    console.log(HELP);
    return 0;
  }
  const out = resolve(opts.out ?? join(ROOT, "eval/mcp"));
  const listFile = resolve(opts.list ?? join(out, "packages.json"));
  const work = resolve(opts.work ?? join(tmpdir(), "tool-search-mcp-dump"));
  const timeoutMs = Number(opts.timeout);
  const entries = JSON.parse(readFileSync(listFile, "utf8")) as Entry[];
  const names = new Set<string>();
  for (const e of entries) {
    if (!SERVER_NAME.test(e.server)) throw new Error(`server name ${e.server} does not match ${SERVER_NAME}`);
    if (names.has(e.server)) throw new Error(`server name ${e.server} is used twice`);
    names.add(e.server);
  }
  const only = opts.only ? new Set(opts.only.split(",")) : null;
  const unknown = [...(only ?? [])].filter((s) => !names.has(s));
  if (unknown.length > 0) throw new Error(`--only names servers that are not in ${listFile}: ${unknown.join(", ")}`);
  const todo = entries.filter((e) => !e.skip && (!only || only.has(e.server)));
  mkdirSync(join(out, "servers"), { recursive: true });
  mkdirSync(join(out, "licenses"), { recursive: true });

  const failed: string[] = [];
  let tools = 0;
  const started = performance.now();
  for (const [i, entry] of todo.entries()) {
    const label = `[${i + 1}/${todo.length}] ${entry.server} (${entry.package}@${entry.version})`;
    const t0 = performance.now();
    const dir = join(work, entry.server);
    try {
      const pkgDir = install(entry, dir);
      const license = licenseOf(entry, pkgDir, out);
      const scratch = join(dir, "scratch");
      rmSync(scratch, { recursive: true, force: true });
      mkdirSync(scratch, { recursive: true });
      for (const [path, content] of Object.entries(entry.files ?? {})) {
        mkdirSync(dirname(join(scratch, path)), { recursive: true });
        writeFileSync(join(scratch, path), content.replaceAll("{scratch}", scratch));
      }
      const { tools: list, pages } = await listTools(entry, binPath(entry, pkgDir), scratch, timeoutMs, opts.verbose);
      if (list.length === 0) throw new Error("tools/list returned no tools");
      const rules = (entry.normalize ?? []).map(([re, to]) => [new RegExp(re, "g"), to] as [RegExp, string]);
      const listed = rules.length > 0 ? (normalized(list, rules) as Record<string, unknown>[]) : list;
      const fixture: Fixture = {
        server: entry.server,
        package: entry.package,
        version: entry.version,
        license: license.id,
        tools: listed,
      };
      writeFileSync(join(out, "servers", `${entry.server}.json`), `${JSON.stringify(fixture, null, 2)}\n`);
      writeFileSync(join(out, "licenses", licenseFileName(entry.package)), license.text);
      tools += list.length;
      log(
        `${label}: ${list.length} tools in ${pages} page(s), ${license.id}, ` +
          `${((performance.now() - t0) / 1000).toFixed(1)}s`,
      );
    } catch (error) {
      failed.push(`${entry.server}: ${(error as Error).message}`);
      log(`${label}: FAILED ${(error as Error).message}`);
    } finally {
      if (opts.clean) rmSync(dir, { recursive: true, force: true });
    }
  }
  writeReadmeTable(entries, out);
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  log(
    `\n${todo.length - failed.length}/${todo.length} servers dumped, ${tools} tools, ${seconds}s; ` +
      `${entries.length - todo.length} not run (skipped or not in --only)`,
  );
  if (failed.length > 0) log(`failed:\n  ${failed.join("\n  ")}`);
  return failed.length > 0 ? 1 : 0;
}

process.exitCode = await main();
