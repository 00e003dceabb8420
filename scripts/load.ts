/**
 * `npm run load`: starts the Worker under `wrangler dev` on a free loopback port, seeds tenants,
 * drives a mixed agent workload at a fixed concurrency for a fixed time, then reports requests per
 * second, latency percentiles and statuses, and checks the catalog and sessions for consistency.
 *
 *   npm run load -- --concurrency 16 --duration 30 --tenants 3 --tools 1000
 *
 * Loopback only: the script starts its own local worker and talks to nothing else. Bounded: at
 * most 256 concurrent users for at most 600 s. Exits 1 when any response other than 2xx or the
 * expected budget 429 came back, or when a consistency check fails.
 */
import { cpus, totalmem } from "node:os";
import { parseArgsWith, type CommandHelp } from "../src/cli/usage.ts";
import { startLocalWorker } from "./local-worker.ts";
import { runChecks, listToolIds } from "./load/checks.ts";
import { Stats } from "./load/stats.ts";
import { catalogFor, emptyObserved, queriesFor, runUser, type Api, type Tenant } from "./load/workload.ts";
import { seeded } from "./random.ts";

const HELP: CommandHelp = {
  usage: ["npm run load -- [options]"],
  summary:
    "A mixed agent workload (uploads, searches in sessions, turns, resolves) against wrangler dev on a loopback " +
    "port, then checks the catalog and the sessions; prints latency and throughput.",
  flags: {
    concurrency: { text: "simulated agents at a time (1-256)", value: "<n>" },
    duration: { text: "seconds of load (1-600)", value: "<s>" },
    tenants: { text: "tenants (1-50)", value: "<n>" },
    tools: { text: "tools per tenant (75-20000)", value: "<n>" },
    "upsert-share": { text: "share of operations that upsert tools (0-1)", value: "<share>" },
    seed: { text: "random seed, for a repeatable workload", value: "<n>" },
    verbose: "print wrangler's output",
  },
  examples: ["npm run load", "npm run load -- --concurrency 32 --duration 60 --tools 5000"],
};

const { values: flags } = parseArgsWith(HELP)({
  options: {
    concurrency: { type: "string", default: "16" },
    duration: { type: "string", default: "30" },
    tenants: { type: "string", default: "3" },
    tools: { type: "string", default: "1000" },
    "upsert-share": { type: "string", default: "0.03" },
    seed: { type: "string", default: "1" },
    verbose: { type: "boolean", default: false },
  },
});

function bounded(name: string, value: string | undefined, min: number, max: number): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < min || n > max)
    throw new Error(`--${name} must be a number from ${min} to ${max} (got ${value})`);
  return n;
}

const concurrency = Math.floor(bounded("concurrency", flags.concurrency, 1, 256));
const duration = bounded("duration", flags.duration, 1, 600);
const tenantCount = Math.floor(bounded("tenants", flags.tenants, 1, 50));
const toolCount = Math.floor(bounded("tools", flags.tools, 75, 20_000));
const upsertShare = bounded("upsert-share", flags["upsert-share"], 0, 1);
const seed = Math.floor(bounded("seed", flags.seed, 0, 2 ** 31));

/** Budget 429s are part of the workload (a search one past the cap); nothing else but 2xx is. */
const expected = (status: number, code: string | null) =>
  (status >= 200 && status < 300) || (status === 429 && code === "search-budget-exhausted");

const fmt = (n: number, digits = 0) =>
  n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });

async function main(): Promise<void> {
  process.stderr.write(`starting wrangler dev on a loopback port...\n`);
  const worker = await startLocalWorker({ verbose: flags.verbose });
  const stats = new Stats();
  let measuring = false;
  const api: Api = async (token, method, path, body, op = "other") => {
    const started = performance.now();
    const res = await fetch(`${worker.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const ms = performance.now() - started;
    let json: any = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    if (measuring && op !== "check")
      stats.add({ op, status: res.status, code: res.status >= 400 ? (json?.error ?? null) : null, ms });
    if (!measuring && res.status === 429 && json?.error === "rate-limited") {
      // Seeding and checking are not the load: wait as told and go on.
      await new Promise((r) => setTimeout(r, Number(res.headers.get("retry-after") ?? 1) * 1000));
      return api(token, method, path, body, op);
    }
    return { status: res.status, json };
  };

  try {
    // ---- seed ------------------------------------------------------------------------------------
    const op = worker.adminToken;
    const catalog = catalogFor(toolCount);
    const queries = queriesFor(catalog);
    const tenants: Tenant[] = [];
    for (let t = 0; t < tenantCount; t++) {
      const id = `load-${t}`;
      const created = await api(op, "POST", "/v1/tenants", { id });
      if (created.status !== 201)
        throw new Error(`creating tenant ${id}: ${created.status} ${JSON.stringify(created.json)}`);
      for (const server of catalog) {
        const r = await api(op, "PUT", `/v1/tenants/${id}/servers/${server.server}/tools`, {
          tools: server.tools,
          defer_tools: server.defer_tools,
        });
        if (r.status !== 200) throw new Error(`seeding ${id}/${server.server}: ${r.status} ${JSON.stringify(r.json)}`);
      }
      const info = await api(op, "GET", `/v1/tenants/${id}/catalog`);
      const audit = await api(op, "GET", `/v1/tenants/${id}/audit?limit=500`);
      const ids = await listToolIds(api, op, id);
      tenants.push({
        id,
        seededRevision: info.json.revision,
        seededUpserts: audit.json.entries.filter((e: { action: string }) => e.action === "tools.upsert").length,
        toolIds: new Set(ids),
        queries,
      });
      process.stderr.write(`seeded tenant ${id}: ${ids.length} tools on ${catalog.length} servers\n`);
    }
    // One key per user: rate limits are per key, as they would be for separate agent backends.
    const keys: string[] = [];
    for (let u = 0; u < concurrency; u++) {
      const r = await api(op, "POST", `/v1/tenants/${tenants[u % tenantCount]!.id}/keys`, {
        scopes: ["search", "write"],
        label: `load user ${u}`,
      });
      if (r.status !== 201) throw new Error(`creating a key: ${r.status} ${JSON.stringify(r.json)}`);
      keys.push(r.json.key);
    }

    // ---- run -------------------------------------------------------------------------------------
    const observed = emptyObserved();
    const deadline = Date.now() + duration * 1000;
    measuring = true;
    stats.start();
    const progress = setInterval(
      () => {
        const unexpected = stats.samples.filter((s) => !expected(s.status, s.code)).length;
        const line =
          `running ${stats.seconds().toFixed(0)}/${duration} s: ${fmt(stats.count)} requests ` +
          `(${fmt(stats.count / stats.seconds(), 1)}/s), unexpected ${unexpected}`;
        process.stderr.write(process.stderr.isTTY ? `\r${line}   ` : `${line}\n`);
      },
      process.stderr.isTTY ? 1000 : 5000,
    );
    const random = seeded(seed);
    await Promise.all(
      keys.map((key, u) =>
        runUser({
          api,
          tenant: tenants[u % tenantCount]!,
          key,
          user: u,
          deadline,
          observed,
          random: seeded(Math.floor(random() * 2 ** 31)),
          upsertShare,
        }),
      ),
    );
    measuring = false;
    clearInterval(progress);
    const seconds = stats.seconds();
    if (process.stderr.isTTY) process.stderr.write("\n");

    // ---- check and report ------------------------------------------------------------------------
    process.stderr.write("checking consistency...\n");
    const checks = await runChecks(api, op, tenants, observed);
    const latency = stats.latency();
    const unexpected = stats.byStatus((s) => !expected(s.status, s.code));
    const rule = "─".repeat(16);
    const lines = [
      `${rule} npm run load: ${concurrency} users x ${duration} s, ${tenantCount} tenants x ` +
        `${fmt(tenants[0]!.toolIds.size)} tools ${rule}`,
      `machine       ${cpus()[0]?.model ?? "?"} (${cpus().length} cores), ` +
        `${fmt(totalmem() / 2 ** 30, 0)} GB, Node ${process.version}; worker under wrangler dev ` +
        `on the same machine`,
      `requests      ${fmt(stats.count)} in ${seconds.toFixed(1)} s = ${fmt(stats.count / seconds, 1)} requests/s`,
      `latency       p50 ${latency.p50.toFixed(1)} ms, p99 ${latency.p99.toFixed(1)} ms, max ` +
        `${latency.max.toFixed(1)} ms`,
      `by operation`,
      ...stats
        .byOperation()
        .map(
          (o) =>
            `  ${o.op.padEnd(16)} ${fmt(o.count).padStart(8)}   p50 ${o.p50.toFixed(1).padStart(6)} ` +
            `ms   p99 ${o.p99.toFixed(1).padStart(6)} ms`,
        ),
      `statuses`,
      ...stats.byStatus().map(([label, n]) => {
        const [status, code] = label.split(" ");
        const flag = expected(Number(status), code ?? null) ? "" : "   UNEXPECTED";
        return `  ${label.padEnd(34)} ${fmt(n).padStart(8)}${flag}`;
      }),
      `unexpected    ${
        unexpected.length
          ? unexpected.map(([l, n]) => `${l}: ${n}`).join(", ")
          : "none (only 2xx and the expected search-budget-exhausted 429s)"
      }`,
      `consistency`,
      ...checks.map((c) => `  ${c.ok ? "ok  " : "FAIL"} ${c.name}: ${c.detail}`),
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
    const failed = unexpected.length > 0 || checks.some((c) => !c.ok);
    process.stdout.write(failed ? "RESULT: FAILED\n" : "RESULT: OK\n");
    process.exitCode = failed ? 1 : 0;
  } finally {
    await worker.stop();
  }
}

main().catch((e) => {
  process.stderr.write(`load: ${e instanceof Error ? e.message : e}\n`);
  process.exitCode = 1;
});
