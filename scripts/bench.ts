/**
 * `npm run bench` (`npm run bench -- --help` lists the flags).
 *
 * Measures the search core the worker runs against MiniSearch and SQLite FTS5 on the same
 * documents and queries, in the same run (so machine load weighs on every side alike), and with
 * --http the worker itself through `wrangler dev`. Prints a table; with --json, one final JSON line.
 */
import { cpus, loadavg, totalmem } from "node:os";
import { parseArgsWith, type CommandHelp } from "../src/cli/usage.ts";
import { splitWords } from "../src/search/tokenizer.ts";
import { longQueries, queryMix, realCatalog, syntheticCatalogOf } from "./bench/catalogs.ts";
import { Fts5Engine, MiniSearchEngine, Ours, TenantRows, warmUp, type Engine, type Figures } from "./bench/engines.ts";
import { runHttpBench, type HttpFigures } from "./bench/http.ts";
import { log, percentile, Progress, requireGc, round } from "./bench/measure.ts";
import type { BenchTool } from "./bench/synthetic.ts";

const CATALOGS: Record<string, () => BenchTool[]> = {
  "real-5k": realCatalog,
  "synthetic-10k": () => syntheticCatalogOf(10_000),
  "synthetic-100k": () => syntheticCatalogOf(100_000),
};
const FIGURES = [
  "build_ms",
  "heap_mb",
  "snapshot_bytes",
  "restore_ms",
  "rebuild_ms",
  "p50_ms",
  "p99_ms",
  "p50_16kb_ms",
  "p99_16kb_ms",
] as const;
const PEERS = ["minisearch", "fts5"] as const;
const WARMUP = 200;
/** 16 KB queries per catalog: a whole user message, the longest query the API accepts. */
const LONG_QUERIES = 60;

interface CatalogResult {
  tools: number;
  queries: number;
  ours: Figures;
  minisearch: Figures;
  fts5: Figures;
  ratios: Record<`ours/${(typeof PEERS)[number]}`, Record<string, number | null>>;
}

const HELP: CommandHelp = {
  usage: ["npm run bench -- [options]"],
  summary:
    "The search core the worker runs against MiniSearch and SQLite FTS5 on the same documents and queries, in the " +
    "same run; with --http also the worker itself under wrangler dev. Prints a table.",
  flags: {
    json: "end with one JSON line of every figure",
    markdown: "also print the tables as Markdown",
    http: "also measure the worker through wrangler dev (search, healthz, first search after an eviction)",
    port: { text: "the port for --http", default: "a free loopback port", value: "<port>" },
    "http-catalog": { text: "the catalog --http uploads", value: "<name>" },
    catalogs: { text: "catalogs of the core benchmark, comma-separated; empty for --http alone", value: "<names>" },
    queries: { text: "queries per catalog (at least 1000)", value: "<n>" },
  },
  examples: ["npm run bench", "npm run bench -- --catalogs=real-5k --json", "npm run bench -- --http --catalogs="],
};

const { values: flags } = parseArgsWith(HELP)({
  options: {
    json: { type: "boolean" },
    markdown: { type: "boolean" },
    http: { type: "boolean" },
    port: { type: "string" },
    "http-catalog": { type: "string", default: "real-5k" },
    catalogs: { type: "string", default: Object.keys(CATALOGS).join(",") },
    queries: { type: "string", default: "1200" },
  },
});

/** A flag's value: a string, "" for a boolean that is set, undefined when not given. */
function option(name: keyof typeof flags): string | undefined {
  const value = flags[name];
  return value === undefined || value === false ? undefined : value === true ? "" : value;
}

/** Rows in SQLite and the query mix; the generated tool objects are garbage once this returns. */
async function setUp(
  name: string,
  queryCount: number,
): Promise<{ tools: number; rows: TenantRows; queries: string[] }> {
  const tools = CATALOGS[name]!();
  return { tools: tools.length, rows: await TenantRows.of(tools), queries: queryMix(tools, queryCount, splitWords) };
}

async function benchCatalog(name: string, queryCount: number): Promise<CatalogResult> {
  log(`\n[${name}] generating catalog and tool rows`);
  const { tools, rows, queries } = await setUp(name, queryCount);
  warmUp(rows);
  const engines: Engine[] = [new Ours(rows), new MiniSearchEngine(rows), new Fts5Engine(rows)];
  const figures: Record<string, Figures> = {};
  for (const engine of engines) {
    log(`[${name}] ${engine.name}: build, rebuild from rows, snapshot, restore`);
    figures[engine.name] = engine.prepare();
    const f = figures[engine.name]!;
    log(
      `  build ${fmt(f.build_ms)} ms, rebuild ${fmt(f.rebuild_ms)} ms, restore ` +
        `${fmt(f.restore_ms)} ms, heap ${fmt(f.heap_mb)} MB, snapshot ${fmt(f.snapshot_bytes)} B`,
    );
  }
  log(`[${name}] warm-up: ${WARMUP} queries per engine`);
  for (const engine of engines) for (let i = 0; i < WARMUP; i++) engine.search(queries[i % queries.length]!);

  const short = timeQueries(engines, queries, `[${name}] searching`);
  const long = timeQueries(engines, longQueries(LONG_QUERIES), `[${name}] 16 KB queries`);
  engines.forEach((engine, e) => {
    figures[engine.name]!.p50_ms = percentile(short[e]!, 50);
    figures[engine.name]!.p99_ms = percentile(short[e]!, 99);
    figures[engine.name]!.p50_16kb_ms = percentile(long[e]!, 50);
    figures[engine.name]!.p99_16kb_ms = percentile(long[e]!, 99);
  });
  for (const engine of engines) engine.close();
  rows.db.close();

  const rounded = Object.fromEntries(Object.entries(figures).map(([k, f]) => [k, roundFigures(f)])) as Record<
    string,
    Figures
  >;
  const ratios = Object.fromEntries(
    PEERS.map((peer) => [
      `ours/${peer}`,
      Object.fromEntries(FIGURES.map((f) => [f, ratio(figures.ours![f], figures[peer]![f])])),
    ]),
  ) as CatalogResult["ratios"];
  return {
    tools,
    queries: queries.length,
    ours: rounded.ours!,
    minisearch: rounded.minisearch!,
    fts5: rounded.fts5!,
    ratios,
  };
}

/** Each query's time per engine; engines take turns in rotating order, so load spikes hit all of them. */
function timeQueries(engines: readonly Engine[], queries: readonly string[], label: string): Float64Array[] {
  const samples = engines.map(() => new Float64Array(queries.length));
  const progress = new Progress(label, queries.length);
  for (let i = 0; i < queries.length; i++) {
    for (let k = 0; k < engines.length; k++) {
      const e = (i + k) % engines.length;
      const started = performance.now();
      engines[e]!.search(queries[i]!);
      samples[e]![i] = performance.now() - started;
    }
    progress.tick(i + 1);
  }
  return samples;
}

function ratio(a: number | string | null | undefined, b: number | string | null | undefined): number | null {
  return typeof a === "number" && typeof b === "number" && b !== 0 ? round(a / b, 3) : null;
}

function roundHttp(h: HttpFigures): HttpFigures {
  return Object.fromEntries(
    Object.entries(h).map(([k, v]) => [k, typeof v === "number" ? round(v, 3) : v]),
  ) as HttpFigures;
}

function roundFigures(f: Figures): Figures {
  return Object.fromEntries(
    Object.entries(f).map(([k, v]) => [k, typeof v === "number" ? round(v, k === "snapshot_bytes" ? 0 : 3) : v]),
  ) as Figures;
}

function fmt(n: number | string | null | undefined): string {
  if (typeof n !== "number") return "-";
  if (Math.abs(n) >= 100) return n.toFixed(0);
  if (Math.abs(n) >= 10) return n.toFixed(1);
  return n.toFixed(3);
}

function markdown(catalogs: Record<string, CatalogResult>, http: HttpFigures | null): string {
  const out: string[] = [];
  for (const [name, r] of Object.entries(catalogs)) {
    out.push(`**${name}** (${r.tools} tools, ${r.queries} queries)`, "");
    out.push("| figure | ours | MiniSearch | FTS5 | ours/MiniSearch | ours/FTS5 |", "|---|--:|--:|--:|--:|--:|");
    for (const f of FIGURES)
      out.push(
        `| ${f} | ${fmt(r.ours[f])} | ${fmt(r.minisearch[f])} | ${fmt(r.fts5[f])} | ` +
          `${fmt(r.ratios["ours/minisearch"][f])} | ${fmt(r.ratios["ours/fts5"][f])} |`,
      );
    out.push("");
  }
  if (http) {
    out.push(`**http** (wrangler dev, ${http.catalog})`, "", "| figure | value |", "|---|--:|");
    for (const [k, v] of Object.entries(http)) out.push(`| ${k} | ${typeof v === "number" ? fmt(v) : v} |`);
    out.push("");
  }
  return out.join("\n");
}

function machine(): Record<string, string | number> {
  const cpu = cpus();
  return {
    cpu: cpu[0]?.model ?? "unknown",
    cores: cpu.length,
    memory_gb: Math.round(totalmem() / 2 ** 30),
    loadavg_1m: round(loadavg()[0]!, 2)!,
  };
}

function table(name: string, r: CatalogResult): string {
  const head = ["figure", "ours", "minisearch", "fts5", "ours/minisearch", "ours/fts5"];
  const lines = FIGURES.map((f) => [
    f,
    fmt(r.ours[f]),
    fmt(r.minisearch[f]),
    fmt(r.fts5[f]),
    fmt(r.ratios["ours/minisearch"][f]),
    fmt(r.ratios["ours/fts5"][f]),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const row = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  return [`${name}: ${r.tools} tools, ${r.queries} queries`, row(head), ...lines.map(row)].join("\n");
}

/** The targets on the 10,000-tool catalog (and HTTP), checked against this run's figures. */
function targets(results: Record<string, CatalogResult>, http: HttpFigures | null): string[] {
  const out: string[] = [];
  const c = results["synthetic-10k"];
  const check = (label: string, ok: boolean | null, detail: string) =>
    out.push(`${ok === null ? "n/a " : ok ? "PASS" : "FAIL"}  ${label}: ${detail}`);
  if (c) {
    check(
      "p99 <= MiniSearch p99",
      c.ours.p99_ms! <= c.minisearch.p99_ms!,
      `${fmt(c.ours.p99_ms)} vs ${fmt(c.minisearch.p99_ms)} ms`,
    );
    check(
      "p99 <= 2x FTS5 p99",
      c.ours.p99_ms! <= 2 * c.fts5.p99_ms!,
      `${fmt(c.ours.p99_ms)} vs 2 x ${fmt(c.fts5.p99_ms)} ms`,
    );
    check("index heap <= 25 MB", c.ours.heap_mb! <= 25, `${fmt(c.ours.heap_mb)} MB (Node, no pointer compression)`);
    check(
      "restore <= 0.3x rebuild",
      c.ours.restore_ms! <= 0.3 * c.ours.rebuild_ms!,
      `${fmt(c.ours.restore_ms)} vs 0.3 x ${fmt(c.ours.rebuild_ms)} ms`,
    );
  }
  if (http)
    check(
      "HTTP search p50 <= 2x /healthz p50",
      http.search_p50_ms <= 2 * http.healthz_p50_ms,
      `${fmt(http.search_p50_ms)} vs 2 x ${fmt(http.healthz_p50_ms)} ms`,
    );
  return out;
}

async function main(): Promise<void> {
  requireGc();
  const json = option("json") !== undefined;
  const names = (option("catalogs") ?? Object.keys(CATALOGS).join(",")).split(",").filter(Boolean);
  for (const n of names)
    if (!CATALOGS[n]) throw new Error(`unknown catalog '${n}'; known: ${Object.keys(CATALOGS).join(", ")}`);
  const queryCount = Number(option("queries") ?? 1200);
  if (!(queryCount >= 1000)) throw new Error("--queries must be at least 1000");

  const started = Date.now();
  const before = machine();
  log(`machine: ${before.cpu}, ${before.cores} cores, ${before.memory_gb} GB, load average ${before.loadavg_1m}`);
  const catalogs: Record<string, CatalogResult> = {};
  for (const name of names) catalogs[name] = await benchCatalog(name, queryCount);
  const port = option("port");
  const httpCatalog = option("http-catalog") || "real-5k";
  if (!CATALOGS[httpCatalog]) throw new Error(`unknown --http-catalog '${httpCatalog}'`);
  const http =
    option("http") !== undefined
      ? await runHttpBench({
          catalog: httpCatalog,
          tools: CATALOGS[httpCatalog]!,
          ...(port ? { port: Number(port) } : {}),
        })
      : null;

  console.log("");
  for (const [name, r] of Object.entries(catalogs)) console.log(`${table(name, r)}\n`);
  if (http) {
    console.log(`http (wrangler dev, ${http.catalog})`);
    for (const [k, v] of Object.entries(http)) console.log(`  ${k.padEnd(24)} ${typeof v === "number" ? fmt(v) : v}`);
    console.log("");
  }
  const checks = targets(catalogs, http);
  if (checks.length) console.log(["targets", ...checks.map((c) => `  ${c}`)].join("\n"));
  const after = machine();
  if (option("markdown") !== undefined) console.log(`\n${markdown(catalogs, http)}`);
  console.log(
    `\nbench finished in ${((Date.now() - started) / 1000).toFixed(0)} s (${names.length} ` +
      `catalogs${http ? " + http" : ""}); load average ${before.loadavg_1m} at start, ` +
      `${after.loadavg_1m} at end`,
  );
  const run = {
    date: new Date().toISOString(),
    node: process.version,
    machine: { ...before, loadavg_1m_end: after.loadavg_1m },
  };
  if (json) console.log(JSON.stringify({ ...run, catalogs, http: http ? roundHttp(http) : null }));
}

main().catch((e) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : e);
  process.exit(1);
});
