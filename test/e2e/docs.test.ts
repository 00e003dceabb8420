/**
 * The docs cannot rot: every code block of the README and docs/*.md that is a command or a request runs here, in
 * order, against a `wrangler dev` of its own with the demo tenant of `npm start`; illustrative blocks (deploys,
 * long benchmarks) are checked with --help. Links, page openings and the README's length are checked too.
 * The conventions are in docs/architecture.md ("Docs that run").
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_TENANT, uploadDemoCatalog } from "../../scripts/demo.ts";
import type { LocalWorker } from "../../scripts/local-worker.ts";
import { ToolSearchClient, ToolSearchError } from "../../src/client/index.ts";
import {
  anchors,
  type Block,
  codeBlocks,
  commands,
  curlCalls,
  illustrativeChecks,
  relativeLinks,
  slug,
} from "./docs-blocks.ts";
import { localWorkers } from "./support.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const PAGES = [
  "README.md",
  ...readdirSync(join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`),
];
const read = (page: string) => readFileSync(join(root, page), "utf8");
const scripts = JSON.parse(read("package.json")).scripts as Record<string, string>;
/** The variables the tour documents, which the test sets to its own worker's. */
const PROVIDED = ["URL", "KEY", "OP"];
const SHELL = new Set(["sh", "bash", "shell"]);

function run(command: string, args: string[], env: NodeJS.ProcessEnv, timeout: number) {
  return new Promise<{ code: number; output: string }>((resolve) => {
    execFile(command, args, { cwd: root, env, timeout, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}

/** Runs `work` over `items`, `limit` at a time. */
async function pool<T>(items: T[], limit: number, work: (item: T) => Promise<void>) {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: limit }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
    }),
  );
}

/** The environment blocks run in, before the worker's variables are known. */
function env0(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE: process.execPath, NO_COLOR: "1" };
  for (const name of ["URL", "KEY", "OP", "TOOL_SEARCH_URL", "TOOL_SEARCH_KEY", "TOOL_SEARCH_TENANT"]) delete env[name];
  return env;
}

/**
 * Illustrative blocks, every page's: their npm scripts and npx tools parse what they are shown with (--help), three
 * at a time; their assignments set variables the test provides.
 */
async function checkIllustrative(env: NodeJS.ProcessEnv): Promise<Map<string, string[]>> {
  const problems = new Map<string, string[]>(PAGES.map((p) => [p, []]));
  const checks = PAGES.flatMap((page) =>
    codeBlocks(page, read(page))
      .filter((b) => b.illustrative)
      .flatMap((b) => illustrativeChecks(b.text, scripts).map((c) => ({ ...c, page, where: `${page}:${b.line}` }))),
  );
  await pool(checks, 3, async (c) => {
    const report = (text: string) => problems.get(c.page)!.push(`${c.where}: ${text}`);
    if (c.kind === "variable" && !PROVIDED.includes(c.name))
      report(`'${c.shown}' sets ${c.name}, which the docs test does not provide (${PROVIDED})`);
    if (c.kind === "script-exists" && !(c.script in scripts)) report(`'${c.shown}': package.json has no such script`);
    if (c.kind === "help") {
      const r = await run("bash", ["-c", c.command], env, 90_000);
      if (r.code !== 0) report(`'${c.command}' exited ${r.code}:\n${r.output.slice(-2_000)}`);
    }
  });
  return problems;
}

/**
 * What the page's runnable blocks are run in: `set -euo pipefail`, a function that notes which block runs, and
 * `curl` wrapped so that each call's body is printed as curl would and its status noted.
 */
const PREAMBLE = [
  "set -euo pipefail",
  '__block() { __B=$1; printf "%s\\n" "$1" >> "$DOCS_STARTED"; }',
  "curl() {",
  "  local body code rc=0",
  "  body=$(mktemp)",
  '  code=$(command curl "$@" -o "$body" -w "%{http_code}") || rc=$?',
  '  cat "$body"; echo; rm -f "$body"',
  '  printf "%s %s\\n" "$__B" "$code" >> "$DOCS_STATUS"',
  "  return $rc",
  "}",
];

/**
 * Runs a page's runnable blocks in order: its sh blocks in one bash (so a block may use what an earlier one set),
 * its ts blocks as Node programs in between. Returns what went wrong: a block that failed, a curl answered with
 * another status than the docs give.
 */
async function runPage(page: string, env: NodeJS.ProcessEnv, scratch: string): Promise<string[]> {
  const runnable = codeBlocks(page, read(page)).filter(
    (b) => !b.illustrative && (SHELL.has(b.lang) || b.lang === "ts"),
  );
  if (runnable.length === 0) return [];
  const tag = page.replace(/\W/g, "_");
  const statuses = join(scratch, `${tag}.statuses`);
  const started = join(scratch, `${tag}.started`);
  const client = JSON.stringify(pathToFileURL(join(root, "src", "client", "index.ts")).href);
  const script = [...PREAMBLE];
  for (const b of runnable) {
    script.push(`__block ${b.line}`);
    if (b.lang === "ts") {
      const file = join(scratch, `${tag}-${b.line}.ts`);
      writeFileSync(file, b.text.replaceAll('"tool-search/client"', client));
      script.push(`TOOL_SEARCH_URL=$URL TOOL_SEARCH_KEY=$KEY "$NODE" --disable-warning=ExperimentalWarning '${file}'`);
    } else script.push(b.text);
  }
  const r = await run(
    "bash",
    ["-c", script.join("\n")],
    { ...env, DOCS_STATUS: statuses, DOCS_STARTED: started },
    110_000,
  );
  const output = r.output.slice(-3_000);
  const lines = (path: string) => (existsSync(path) ? readFileSync(path, "utf8").split("\n").filter(Boolean) : []);
  const ran = lines(started).map(Number);
  const answered = lines(statuses).map((l) => l.split(" ").map(Number) as [number, number]);
  const problems: string[] = [];
  if (r.code !== 0)
    problems.push(`${page}:${ran.at(-1)}: the block exited ${r.code}; the output ends with:\n${output}`);
  for (const b of runnable.filter((b) => SHELL.has(b.lang) && ran.includes(b.line))) {
    const got = answered.filter(([line]) => line === b.line).map(([, status]) => status);
    const shown = curlCalls(b.text);
    if (r.code === 0 && got.length !== shown.length)
      problems.push(`${page}:${b.line}: ${got.length} curl calls ran, the block shows ${shown.length}`);
    got.forEach((status, i) => {
      const want = shown[i]?.status ?? null;
      if (want === null ? status >= 200 && status < 300 : status === want) return;
      const at = b.line + (shown[i]?.line ?? 0);
      problems.push(
        `${page}:${at}: answered ${status}, the docs say ${want ?? "2xx"}; the output ends with:\n${output}`,
      );
    });
  }
  return problems;
}

/** A block that starts with a command (not with a program's output: `npm run load: 16 users ...`). */
const COMMAND = /^\s*(\$ |curl\s|npx\s|npm\s+(start|test|install|ci|run\s+[\w:-]*[\w-])(\s|$))/;

describe("the docs, read", () => {
  it("the README stays within 300 lines", () => {
    expect(read("README.md").trimEnd().split("\n").length).toBeLessThanOrEqual(300);
  });

  it("every page of docs/ opens with a title and then a sentence saying what it is for", () => {
    for (const page of PAGES.filter((p) => p.startsWith("docs/"))) {
      const [title, blank, first] = read(page).split("\n");
      expect(title, page).toMatch(/^# \S/);
      expect(blank, page).toBe("");
      expect(first, page).toMatch(/^[A-Z]/);
    }
  });

  it("every relative link points at a file that exists, and every #anchor at a heading of its page", () => {
    const broken: string[] = [];
    for (const page of PAGES) {
      for (const link of relativeLinks(read(page))) {
        const [path = "", anchor] = link.split("#");
        const target = path === "" ? join(root, page) : join(root, dirname(page), decodeURIComponent(path));
        if (!existsSync(target)) broken.push(`${page}: ${link} (no such file)`);
        else if (anchor && target.endsWith(".md") && !anchors(readFileSync(target, "utf8")).has(anchor))
          broken.push(`${page}: ${link} (no heading '${anchor}' in ${relative(root, target)})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("the README links every page of docs/", () => {
    const linked = new Set(relativeLinks(read("README.md")).map((l) => l.split("#")[0]));
    expect(PAGES.filter((p) => p.startsWith("docs/") && !linked.has(p))).toEqual([]);
  });

  it("the README's dependency tables say why each package of package.json is there", () => {
    const pkg = JSON.parse(read("package.json")) as Record<string, Record<string, string>>;
    const readme = read("README.md");
    const listed = (name: string) => new RegExp(`^\\|[^|]*\`${name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}\``, "m");
    const missing = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies }).filter((n) => !listed(n).test(readme));
    expect(missing).toEqual([]);
  });

  it("blocks of commands are tagged sh, so that they run", () => {
    const untagged = PAGES.flatMap((page) => codeBlocks(page, read(page)))
      .filter((b) => !SHELL.has(b.lang) && b.lang !== "ts" && COMMAND.test(b.text))
      .map((b) => `${b.file}:${b.line}`);
    expect(untagged).toEqual([]);
  });

  it("reads blocks, statuses and illustrative commands as docs/architecture.md says", () => {
    const page = [
      "Intro",
      "",
      "```sh",
      "curl -s $URL/a",
      '# 409 {"error": 1}',
      "curl -s $URL/b \\",
      "  -d '{}'",
      "curl -s $URL/c   # 201 in a trailing comment is no status",
      "```",
      "",
      "<!-- illustrative -->",
      "",
      "  ```sh",
      "  npm run eval -- --sweep   # long",
      "  npm start && npm run check",
      "  npx wrangler login",
      "  KEY=$(cat .wrangler/demo-key)   # the key",
      "  ADMIN_TOKEN=$T npm run eval -- --http x",
      "  npm install",
      "  ```",
    ].join("\n");
    const [shell, shown] = codeBlocks("page.md", page) as [Block, Block];
    expect(shell).toMatchObject({ line: 3, lang: "sh", illustrative: false });
    expect(curlCalls(shell.text)).toEqual([
      { line: 1, status: 409 },
      { line: 3, status: null },
      { line: 5, status: null },
    ]);
    expect(shown).toMatchObject({ line: 13, illustrative: true });
    expect(commands(shown.text)).toHaveLength(7);
    expect(
      illustrativeChecks(shown.text, { eval: "node scripts/eval.ts", start: "node s.ts", check: "a && b" }),
    ).toEqual([
      { kind: "help", command: "npm run eval -- --sweep --help", shown: "npm run eval -- --sweep" },
      { kind: "help", command: "npm start -- --help", shown: "npm start" },
      { kind: "script-exists", script: "check", shown: "npm run check" },
      { kind: "help", command: "npx --no-install wrangler login --help", shown: "npx wrangler login" },
      { kind: "variable", name: "KEY", shown: "KEY=$(cat .wrangler/demo-key)" },
      {
        kind: "help",
        command: "ADMIN_TOKEN=$T npm run eval -- --http x --help",
        shown: "ADMIN_TOKEN=$T npm run eval -- --http x",
      },
    ]);
    expect(slug("With the vendors' client-side tool search")).toBe("with-the-vendors-client-side-tool-search");
    expect(slug("`match` kinds: a table")).toBe("match-kinds-a-table");
  });
});

describe("the docs' code blocks, against wrangler dev with the demo tenant", () => {
  const start = localWorkers();
  let worker: LocalWorker;
  let env: NodeJS.ProcessEnv;
  const scratch = join(root, ".wrangler", "docs-test");

  /** Problems of each page's illustrative blocks, checked while the worker starts. */
  let illustrative: Promise<Map<string, string[]>>;

  beforeAll(async () => {
    illustrative = checkIllustrative(env0());
    worker = await start();
    // TMPDIR: what a page writes to a temporary file stays in the scratch folder, removed at the end.
    env = { ...env0(), URL: worker.url, OP: worker.adminToken, TMPDIR: scratch };
    rmSync(scratch, { recursive: true, force: true });
    mkdirSync(scratch, { recursive: true });
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  /** The demo tenant as `npm start` leaves it, made again for each page: its catalog and a key with every scope. */
  async function freshDemo(): Promise<string> {
    const operator = new ToolSearchClient({ url: worker.url, token: worker.adminToken });
    await operator.request("DELETE", `/v1/tenants/${DEMO_TENANT}`).catch((e: unknown) => {
      if (!(e instanceof ToolSearchError && e.status === 404)) throw e;
    });
    await operator.createTenant({ id: DEMO_TENANT });
    const { key } = await operator.tenant(DEMO_TENANT).keys.create({ scopes: ["search", "write", "admin"] });
    await uploadDemoCatalog(new ToolSearchClient({ url: worker.url, token: key }).tenant(DEMO_TENANT));
    return key;
  }

  it.each(PAGES)("%s", async (page) => {
    const illustrativeProblems = (await illustrative).get(page) ?? [];
    const ran = await runPage(page, { ...env, KEY: await freshDemo() }, scratch);
    expect([...illustrativeProblems, ...ran]).toEqual([]);
  });
});
