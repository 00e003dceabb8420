/**
 * `npm run soak -- --minutes 10`: hours of use in minutes, against the real local runtime (wrangler dev on a loopback
 * port). A mixed workload (searches, agent sessions, catalog reads, and catalog churn: uploads, server replaces, tool
 * and server deletes, rollbacks) runs against one tenant for the given time, reporting every few seconds: requests,
 * statuses, p50/p99, the workerd heap and the search index (tools, snapshot size). At the end it checks:
 *
 * - every response was one its operation may give (no 5xx, no refusal of a valid request);
 * - the catalog equals the model of the acknowledged writes, tool by tool, field by field (and by content hash);
 * - no leak, postings compacted: the churned tenant's index (its snapshot) and the workerd heap with it loaded are
 *   within 10 % of a fresh build of the same catalog: its backup restored into a new tenant on a fresh wrangler dev,
 *   whose index is built from the rows.
 *
 * Exits 1 when any check fails. Loopback only; bounded (at most 240 minutes, 64 users).
 */
import { rmSync } from "node:fs";
import { parseArgsWith, type CommandHelp } from "../src/cli/usage.ts";
import { contentHash, type ToolContent } from "../src/catalog/tool.ts";
import { Inspector, type HeapReading } from "./bench/inspector.ts";
import { freePort, startLocalWorker, type LocalWorker } from "./local-worker.ts";
import { seeded } from "./random.ts";
import { CatalogModel, type ModelTool, toolId } from "./soak/model.ts";
import { type Api, type Reply, Workload } from "./soak/workload.ts";

const HELP: CommandHelp = {
  usage: ["npm run soak -- --minutes <n> [options]"],
  summary:
    "A long mixed workload with catalog churn against wrangler dev, reported every few seconds; then checks the " +
    "catalog against a model of the writes, and heap and index against a fresh build of the same catalog.",
  flags: {
    minutes: { text: "how long the workload runs (0.1-240)", value: "<n>" },
    tools: { text: "the catalog size the churn hovers around (100-20000)", value: "<n>" },
    users: { text: "virtual users at a time (1-64)", value: "<n>" },
    every: { text: "seconds between reports (1-300)", value: "<s>" },
    seed: { text: "random seed, for a repeatable workload", value: "<n>" },
    verbose: "print wrangler's output",
  },
  examples: ["npm run soak -- --minutes 10", "npm run soak -- --minutes 60 --tools 5000 --users 16"],
  notes: "Exit status: 0 when every check passed, 1 when one failed, 2 on a usage error.",
};

const { values: flags } = parseArgsWith(HELP)({
  options: {
    minutes: { type: "string", default: "10" },
    tools: { type: "string", default: "2000" },
    users: { type: "string", default: "8" },
    every: { type: "string", default: "5" },
    seed: { type: "string", default: "1" },
    verbose: { type: "boolean", default: false },
  },
});

function bounded(name: string, value: string | undefined, min: number, max: number): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < min || n > max) {
    process.stderr.write(`--${name} must be a number from ${min} to ${max} (got ${value})\n`);
    process.exit(2);
  }
  return n;
}

const minutes = bounded("minutes", flags.minutes, 0.1, 240);
const target = Math.floor(bounded("tools", flags.tools, 100, 20_000));
const users = Math.floor(bounded("users", flags.users, 1, 64));
const every = bounded("every", flags.every, 1, 300);
const seed = Math.floor(bounded("seed", flags.seed, 0, 2 ** 31));
/** How far the churned figures may be from a fresh build's. */
const TOLERANCE = 0.1;

const fmt = (n: number, digits = 0) =>
  n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
const log = (line: string) => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

class Stats {
  total = 0;
  readonly statuses = new Map<string, number>();
  readonly ops = new Map<string, number[]>();
  window: number[] = [];
  all: number[] = [];

  add(op: string, status: number, code: string | null, ms: number): void {
    this.total++;
    const label = code ? `${status} ${code}` : String(status);
    this.statuses.set(label, (this.statuses.get(label) ?? 0) + 1);
    this.window.push(ms);
    this.all.push(ms);
    const list = this.ops.get(op) ?? [];
    if (list.length === 0) this.ops.set(op, list);
    list.push(ms);
  }

  statusLine(): string {
    return [...this.statuses]
      .sort((a, b) => b[1] - a[1])
      .map(([s, n]) => `${s} ${fmt(n)}`)
      .join(", ");
  }
}

/** A JSON client of one worker, timing requests into `stats` when given. */
function client(worker: LocalWorker, token: string, stats?: Stats): Api {
  return async (op, method, path, body) => {
    const started = performance.now();
    const res = await fetch(`${worker.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    const ms = performance.now() - started;
    let json: any = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {}
    stats?.add(op, res.status, res.status >= 400 ? (json?.error ?? null) : null, ms);
    return { status: res.status, json };
  };
}

async function must(reply: Promise<Reply>, status: number, what: string): Promise<any> {
  const r = await reply;
  if (r.status !== status) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.json).slice(0, 300)}`);
  return r.json;
}

/** A tenant with a key of every scope. */
async function tenantOn(worker: LocalWorker, id: string): Promise<string> {
  const op = client(worker, worker.adminToken);
  await must(op("setup", "POST", "/v1/tenants", { id }), 201, "create tenant");
  const key = await must(
    op("setup", "POST", `/v1/tenants/${id}/keys`, { scopes: ["search", "write", "admin"] }),
    201,
    "key",
  );
  return key.key as string;
}

/** Waits until the tenant's index snapshot reflects its catalog as it is (the alarm writes it after writes settle). */
async function settledSnapshot(api: Api, base: string): Promise<{ revision: number; tools: number; bytes: number }> {
  let c: any = null;
  for (let i = 0; i < 600; i++) {
    c = await must(api("control", "GET", `${base}/catalog`), 200, "catalog");
    if (c.snapshot?.current && c.snapshot.revision === c.revision)
      return { revision: c.revision, tools: c.tools, bytes: c.snapshot.bytes };
    await sleep(500);
  }
  throw new Error(`the index snapshot did not settle within 5 minutes: ${JSON.stringify(c?.snapshot)} r${c?.revision}`);
}

/** Every tool of the tenant, by id (summaries, page by page). */
async function listAll(api: Api, base: string): Promise<Map<string, any>> {
  const out = new Map<string, any>();
  let cursor: string | null = null;
  do {
    const page: { tools: any[]; next_cursor: string | null } = await must(
      api("control", "GET", `${base}/tools?limit=500${cursor ? `&cursor=${cursor}` : ""}`),
      200,
      "list tools",
    );
    for (const t of page.tools) out.set(t.tool_id, t);
    cursor = page.next_cursor;
  } while (cursor);
  return out;
}

const content = (t: ModelTool): ToolContent => ({
  server: t.server,
  name: t.name,
  title: null,
  description: t.description,
  inputSchema: t.inputSchema,
  outputSchema: null,
  annotations: null,
  keywords: t.keywords ?? [],
  defer: null,
  vendor: null,
});

/** The catalog against the model: the same tools and servers, every field, every content hash. */
async function checkModel(api: Api, base: string, model: CatalogModel): Promise<string[]> {
  const problems: string[] = [];
  const listed = await listAll(api, base);
  for (const id of model.tools.keys()) if (!listed.has(id)) problems.push(`missing ${id}`);
  for (const id of listed.keys()) if (!model.tools.has(id)) problems.push(`unexpected ${id}`);
  for (const [id, t] of model.tools) {
    const got = listed.get(id);
    if (got && (got.description !== t.description || got.server !== t.server || got.name !== t.name))
      problems.push(`${id}: description ${JSON.stringify(got.description)}, model ${JSON.stringify(t.description)}`);
  }
  // Every field, through the content hash, tool by tool.
  let at = 0;
  const tools = [...model.tools.values()];
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (at < tools.length) {
        const t = tools[at++]!;
        const r = await api("control", "GET", `${base}/tools/${encodeURIComponent(toolId(t))}`);
        if (r.status !== 200) continue; // reported above
        if (r.json.hash !== (await contentHash(content(t)))) problems.push(`${toolId(t)}: content hash differs`);
      }
    }),
  );
  const catalog = await must(api("control", "GET", `${base}/catalog`), 200, "catalog");
  const servers = (catalog.servers as { name: string }[]).map((s) => s.name).sort();
  const expected = [...model.servers].sort();
  if (JSON.stringify(servers) !== JSON.stringify(expected))
    problems.push(`servers ${servers.join(",")}; model ${expected.join(",")}`);
  if (catalog.revision !== model.revision) problems.push(`revision ${catalog.revision}; model ${model.revision}`);
  return problems;
}

const QUERIES = ["list invoices", "create a ticket", "export reports by date", "sync calendar", "delete user"];

async function answers(api: Api, base: string): Promise<string> {
  const out = [];
  for (const query of QUERIES) {
    const r = await must(api("control", "POST", `${base}/search`, { query, max_results: 10 }), 200, "search");
    out.push(r.results.map((x: { tool_id: string; score: number }) => `${x.tool_id} ${x.score}`));
  }
  return JSON.stringify(out);
}

const within = (a: number, b: number) => Math.abs(a - b) / b <= TOLERANCE;
const pct = (a: number, b: number) => `${a >= b ? "+" : ""}${fmt(((a - b) / b) * 100, 1)} %`;

async function main(): Promise<number> {
  log(`soak: ${minutes} min, ~${fmt(target)} tools, ${users} users, seed ${seed}; starting wrangler dev...`);
  const inspectorPort = await freePort();
  const worker = await startLocalWorker({ inspectorPort, verbose: flags.verbose });
  let fresh: LocalWorker | null = null;
  const failures: string[] = [];
  try {
    const inspector = await Inspector.connect(inspectorPort);
    const tenant = "soak";
    const base = `/v1/tenants/${tenant}`;
    const key = await tenantOn(worker, tenant);
    const control = client(worker, key);
    const model = new CatalogModel(40);
    const workload = new Workload(model, base, target);
    const rand = seeded(seed);
    await workload.seed(control, rand);
    const seeded_ = await settledSnapshot(control, base);
    const startHeap = await inspector.usage();
    log(
      `seeded ${fmt(seeded_.tools)} tools (revision ${seeded_.revision}, snapshot ${fmt(seeded_.bytes / 1024)} KB); ` +
        `heap ${fmt(startHeap.usedMb, 1)} MB`,
    );

    const stats = new Stats();
    const api = client(worker, key, stats);
    const started = performance.now();
    const ends = started + minutes * 60_000;
    const userRuns = Array.from({ length: users }, async (_, u) => {
      const r = seeded(seed * 1000 + u + 1);
      while (performance.now() < ends) await workload.step(api, r);
    });
    log("   time  requests    req/s   p50 ms   p99 ms  heap MB  tools  snapshot KB  revision  statuses");
    let last = started;
    let lastTotal = 0;
    const ticker = (async () => {
      while (performance.now() < ends) {
        await sleep(Math.min(every * 1000, Math.max(0, ends - performance.now())));
        const now = performance.now();
        const heap = await inspector.usage();
        const c = await must(control("control", "GET", `${base}/catalog`), 200, "catalog");
        const window = stats.window;
        stats.window = [];
        log(
          `${fmt((now - started) / 1000).padStart(6)} s ${fmt(stats.total).padStart(9)} ` +
            `${fmt((stats.total - lastTotal) / ((now - last) / 1000), 0).padStart(8)} ` +
            `${fmt(percentile(window, 50), 1).padStart(8)} ${fmt(percentile(window, 99), 1).padStart(8)} ` +
            `${fmt(heap.usedMb, 1).padStart(8)} ${fmt(c.tools).padStart(6)} ` +
            `${c.snapshot ? fmt(c.snapshot.bytes / 1024).padStart(12) : "-".padStart(12)} ` +
            `${fmt(c.revision).padStart(9)}  ${stats.statusLine()}`,
        );
        last = now;
        lastTotal = stats.total;
      }
    })();
    await Promise.all(userRuns);
    await ticker;
    await workload.settle();
    const seconds = (performance.now() - started) / 1000;
    await workload.touch(control, rand);

    // ---- the checks ----------------------------------------------------------------------------------------------
    log("\nchecking...");
    failures.push(...workload.violations.slice(0, 20));
    if (workload.violations.length > 20) failures.push(`... and ${workload.violations.length - 20} more violations`);
    const modelProblems = await checkModel(control, base, model);
    failures.push(...modelProblems.slice(0, 20).map((p) => `model: ${p}`));
    const churned = await settledSnapshot(control, base);
    const churnedAnswers = await answers(control, base);
    const churnedHeap: HeapReading = await inspector.heap();
    const backup = await fetch(`${worker.url}${base}/backup`, { headers: { authorization: `Bearer ${key}` } });
    if (backup.status !== 200) throw new Error(`backup: ${backup.status}`);
    const backupText = await backup.text();
    inspector.close();

    // A fresh build of the same catalog: the backup restored on a fresh wrangler dev (index built from the rows).
    log("fresh build: the churned tenant's backup restored on a fresh wrangler dev...");
    const freshPort = await freePort();
    fresh = await startLocalWorker({ inspectorPort: freshPort, verbose: flags.verbose });
    const freshInspector = await Inspector.connect(freshPort);
    const restored = await fetch(`${fresh.url}${base}/restore`, {
      method: "POST",
      headers: { authorization: `Bearer ${fresh.adminToken}`, "content-type": "application/x-ndjson" },
      body: backupText,
    });
    if (restored.status !== 201) throw new Error(`restore: ${restored.status} ${await restored.text()}`);
    const freshApi = client(fresh, key);
    const rebuilt = await settledSnapshot(freshApi, base);
    const freshAnswers = await answers(freshApi, base);
    const freshHeap = await freshInspector.heap();
    freshInspector.close();

    if (churned.tools !== rebuilt.tools)
      failures.push(`fresh build holds ${rebuilt.tools} tools, not ${churned.tools}`);
    if (churnedAnswers !== freshAnswers) failures.push("search answers differ between the churned and fresh builds");
    if (!within(churned.bytes, rebuilt.bytes))
      failures.push(`index snapshot ${fmt(churned.bytes)} B vs fresh ${fmt(rebuilt.bytes)} B: more than 10 % apart`);
    if (!within(churnedHeap.usedMb, freshHeap.usedMb))
      failures.push(
        `heap ${fmt(churnedHeap.usedMb, 1)} MB vs fresh ${fmt(freshHeap.usedMb, 1)} MB: more than 10 % apart`,
      );

    // ---- the summary ---------------------------------------------------------------------------------------------
    const unexpected = workload.violations.length;
    const c = workload.counts;
    log(
      [
        "",
        `soak summary (${fmt(minutes, 1)} min, ${users} users, seed ${seed}, ~${fmt(target)} tools)`,
        `  requests      ${fmt(stats.total)} in ${fmt(seconds)} s (${fmt(stats.total / seconds)}/s); ` +
          `p50 ${fmt(percentile(stats.all, 50), 1)} ms, p99 ${fmt(percentile(stats.all, 99), 1)} ms`,
        `  statuses      ${stats.statusLine()}`,
        "  by operation",
        ...[...stats.ops]
          .sort((a, b) => b[1].length - a[1].length)
          .map(
            ([op, ms]) =>
              `    ${op.padEnd(16)}${fmt(ms.length).padStart(8)}   p50 ${fmt(percentile(ms, 50), 1).padStart(7)} ms` +
              `   p99 ${fmt(percentile(ms, 99), 1).padStart(7)} ms`,
          ),
        `  unexpected    ${unexpected === 0 ? "none" : fmt(unexpected)}`,
        `  churn         ${fmt(c.upserts)} uploads, ${fmt(c.replaces)} server replaces (${fmt(c.emptied)} emptied), ` +
          `${fmt(c.toolDeletes)} tool deletes, ${fmt(c.serverDeletes)} server deletes, ` +
          `${fmt(c.rollbacks)} rollbacks; revision ${fmt(seeded_.revision)} -> ${fmt(model.revision)}`,
        `  model         ${modelProblems.length === 0 ? "catalog = model" : `${modelProblems.length} differences`}: ` +
          `${fmt(model.tools.size)} tools, ${fmt(model.servers.size)} servers, every field and content hash`,
        `  index         snapshot ${fmt(churned.bytes / 1024)} KB after churn vs ${fmt(rebuilt.bytes / 1024)} KB ` +
          `fresh (${pct(churned.bytes, rebuilt.bytes)}); ` +
          `same answers: ${churnedAnswers === freshAnswers ? "yes" : "no"}`,
        `  heap          ${fmt(churnedHeap.usedMb, 1)} MB after churn vs ${fmt(freshHeap.usedMb, 1)} MB fresh ` +
          `(${pct(churnedHeap.usedMb, freshHeap.usedMb)}); ${fmt(startHeap.usedMb, 1)} MB after seeding (no GC)`,
        `  result        ${failures.length === 0 ? "PASS" : `FAIL (${failures.length})`}`,
        ...failures.map((f) => `    - ${f}`),
      ].join("\n"),
    );
    return failures.length === 0 ? 0 : 1;
  } finally {
    await worker.stop();
    rmSync(worker.persistTo, { recursive: true, force: true });
    if (fresh) {
      await fresh.stop();
      rmSync(fresh.persistTo, { recursive: true, force: true });
    }
  }
}

process.exitCode = await main();
