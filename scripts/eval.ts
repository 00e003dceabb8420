/**
 * Retrieval quality of the search core, beside MiniSearch and Orama defaults, on tool-retrieval
 * sets in the tools.jsonl / queries.jsonl format (../shared/eval and this repository's eval/ by default).
 *
 *   npm run eval                                  every set in ../shared/eval and eval/
 *   npm run eval -- --data DIR                    one set (any folder in that format)
 *   npm run eval -- --irrelevant FILE             no-match rate over queries that no tool answers
 *   npm run eval -- --threshold 2                 override the service's default threshold
 *   npm run eval -- --sweep                       recall and no-match rate across thresholds
 *   npm run eval -- --http http://127.0.0.1:8787  also through a running service (operator token
 *                                                 from --token or ADMIN_TOKEN), at its default threshold
 *   npm run eval -- --json                        end with one JSON line of every figure
 *   npm run eval -- --loso                        each ranking choice tuned without a set and measured on it
 *                                                 (--choices a,b: only the choices whose names contain a or b)
 *   npm run eval -- --learn                       learning from use: replay half of each set's queries as sessions,
 *                                                 nDCG@10 of the other half before and after (scripts/eval/learn.ts)
 *   npm run eval -- --suggest                     suggestions: each query as a user's message, precision, coverage
 *                                                 and any-suggestion shares across suggest_threshold; with --http
 *                                                 also a session per message through POST .../turns (eval/suggest.ts)
 *   --sample N (every k-th query, N in all), --no-peers (only the service)
 */
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgsWith, type CommandHelp } from "../src/cli/usage.ts";
import { loadConfig } from "../src/config/env.ts";
import { toolId } from "../src/catalog/tool.ts";
import {
  clientQuery,
  findSets,
  loadSet,
  pooled,
  toServiceTools,
  type EvalQuery,
  type EvalSet,
} from "./eval/dataset.ts";
import { miniSearch, oramaDefaults, ours, toRows, type Engine, type Ranked } from "./eval/engines.ts";
import { httpEngine } from "./eval/http.ts";
import { CHOICES } from "./eval/choices.ts";
import { leaveOneSetOut, type LosoSet, losoTable } from "./eval/loso.ts";
import { SUGGEST_SWEEP, suggestInProcess, suggestOverHttp, suggestTable, type SuggestReport } from "./eval/suggest.ts";
import { passing } from "../src/search/tool-index.ts";
import { queryMetrics, summarize, type Summary } from "./eval/metrics.ts";
import { Progress } from "./eval/progress.ts";
import { learnReport } from "./eval/learn.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** The external benchmarks beside the repository, and our own sets (eval/README.md). */
const DEFAULT_DATA = [resolve(ROOT, "../shared/eval"), resolve(ROOT, "eval")];
const SWEEP = [0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.5, 3, 3.5, 4, 5, 6, 8];
const HTTP_CONCURRENCY = 8;

const HELP: CommandHelp = {
  usage: ["npm run eval -- [options]"],
  summary:
    "Retrieval quality of the search core beside MiniSearch and Orama defaults, on tool-retrieval sets in the " +
    "tools.jsonl / queries.jsonl format.",
  flags: {
    data: {
      text: "one set: a folder in that format",
      default: "every set in ../shared/eval and eval/",
      value: "<dir>",
    },
    irrelevant: { text: "queries no tool answers, for the no-match rate", value: "<file>" },
    threshold: { text: "the matching threshold", default: "the service's, 1.5", value: "<n>" },
    sweep: "recall and no-match rate across thresholds",
    thresholds: {
      text: `the thresholds --sweep tries (--suggest: the suggest_threshold sweep, ${SUGGEST_SWEEP.join(",")})`,
      default: SWEEP.join(","),
      value: "<n,n,...>",
    },
    json: "end with one JSON line of every figure",
    http: { text: "also evaluate through a running service at this URL", value: "<url>" },
    token: { text: "the operator token for --http", default: "$ADMIN_TOKEN", value: "<token>" },
    sample: { text: "every k-th query, N per file in all", default: "every query", value: "<N>" },
    "no-peers": "only the service, not MiniSearch and Orama",
    loso: "leave-one-set-out: each ranking choice tuned without a set, measured on it (docs/quality.md)",
    choices: { text: "with --loso, only the choices whose names contain one of these", value: "<a,b,...>" },
    suggest:
      "suggestions: each query as a user's message, precision and coverage across suggest_threshold " +
      "(with --http also through the service: a session per message, POST .../turns with it)",
    learn: "learning from use: half of each set's queries replayed as sessions, the other half before and after",
    pooled: "each set's queries against the catalog of every set given (the others' tools as distractors)",
  },
  examples: [
    "npm run eval",
    "npm run eval -- --data ../shared/eval/bfcl --sweep",
    "npm run eval -- --sample 200 --json",
    "npm run eval -- --loso --choices thesaurus,coverage",
    "npm run eval -- --suggest --sample 2000",
    "npm run eval -- --suggest --http http://127.0.0.1:8787 --data eval/mcp-requests",
    "npm run eval -- --learn",
    "npm run eval -- --pooled --sample 1000",
  ],
};

const { values: args } = parseArgsWith(HELP)({
  options: {
    data: { type: "string" },
    irrelevant: { type: "string" },
    threshold: { type: "string" },
    sweep: { type: "boolean", default: false },
    thresholds: { type: "string" },
    json: { type: "boolean", default: false },
    http: { type: "string" },
    token: { type: "string" },
    sample: { type: "string" },
    "no-peers": { type: "boolean", default: false },
    loso: { type: "boolean", default: false },
    choices: { type: "string" },
    suggest: { type: "boolean", default: false },
    learn: { type: "boolean", default: false },
    pooled: { type: "boolean", default: false },
  },
  strict: true,
});

const threshold = args.threshold !== undefined ? Number(args.threshold) : loadConfig({}).matchingThreshold;
if (!Number.isFinite(threshold) || threshold < 0)
  throw new Error(`--threshold must be a number >= 0, got ${args.threshold}`);
const sweep = args.thresholds ? args.thresholds.split(",").map(Number) : SWEEP;
const operatorToken = args.token ?? process.env.ADMIN_TOKEN;
if (args.http && !operatorToken) throw new Error("--http needs the operator token: pass --token or set ADMIN_TOKEN");

interface Figures extends Summary {
  strict: Summary;
  /** Share of irrelevant queries answered with no result (null when the set has none). */
  noMatchIrrelevant: number | null;
  /** Share of relevant queries answered with no result (misses caused by the threshold). */
  noMatchRelevant: number;
  msPerQuery: number;
}

interface Run {
  engine: Engine;
  answers: Ranked[];
  irrelevant: Ranked[];
  ms: number;
}

function sample<T>(items: T[], n: number | undefined): T[] {
  if (!n || n >= items.length) return items;
  const step = items.length / n;
  return Array.from({ length: n }, (_, i) => items[Math.floor(i * step)]!);
}

/** The ids that pass the threshold, by the service's own rule (peers have no threshold). */
function cut(answer: Ranked, engine: Engine, at: number): string[] {
  return (engine.thresholded ? passing(answer.hits, at) : answer.hits).map((h) => h.id);
}

function figures(run: Run, queries: EvalQuery[], at: number): Figures {
  const lists = run.answers.map((a) => cut(a, run.engine, at));
  const total = run.answers.length + run.irrelevant.length;
  return {
    ...summarize(lists.map((ids, i) => queryMetrics(ids, queries[i]!.groups))),
    strict: summarize(lists.map((ids, i) => queryMetrics(ids, queries[i]!.strict))),
    noMatchIrrelevant: run.irrelevant.length
      ? run.irrelevant.filter((a) => cut(a, run.engine, at).length === 0).length / run.irrelevant.length
      : null,
    noMatchRelevant: lists.filter((ids) => ids.length === 0).length / Math.max(lists.length, 1),
    msPerQuery: run.ms / Math.max(total, 1),
  };
}

async function runQueries(
  engine: Engine,
  label: string,
  texts: string[],
  concurrency: number,
): Promise<{ answers: Ranked[]; ms: number }> {
  const answers: Ranked[] = new Array(texts.length);
  const progress = new Progress(`${label}: ${engine.name}`, texts.length);
  let next = 0;
  let done = 0;
  const started = performance.now();
  async function worker() {
    while (next < texts.length) {
      const i = next++;
      answers[i] = await engine.search(texts[i]!);
      progress.tick(++done);
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, texts.length) }, worker));
  return { answers, ms: performance.now() - started };
}

/**
 * Per category of a set's queries (sets that have categories): nDCG@10 and the share answered "no match" for the
 * categories with a right tool; the share answered "no match" for those without (absent capabilities, chit-chat).
 */
function categoryRows(set: string, run: Run, queries: EvalQuery[], irrelevant: EvalSet["irrelevant"], at: number) {
  const rows: string[][] = [];
  const byCategory = new Map<string, number[]>();
  queries.forEach((q, i) => {
    if (q.category) byCategory.set(q.category, [...(byCategory.get(q.category) ?? []), i]);
  });
  for (const [category, indexes] of byCategory) {
    const lists = indexes.map((i) => cut(run.answers[i]!, run.engine, at));
    const ndcg = summarize(lists.map((ids, k) => queryMetrics(ids, queries[indexes[k]!]!.groups))).ndcg10;
    const none = lists.filter((ids) => ids.length === 0).length / lists.length;
    rows.push([set, run.engine.name, category, String(lists.length), f3(ndcg), pct(none)]);
  }
  const categories = [...new Set(irrelevant.map((q) => q.category))];
  for (const category of categories) {
    const answers = run.irrelevant.filter((_, i) => irrelevant[i]!.category === category);
    const none = answers.filter((a) => cut(a, run.engine, at).length === 0).length / answers.length;
    rows.push([set, run.engine.name, `${category} (no tool)`, String(answers.length), "-", pct(none)]);
  }
  return byCategory.size > 0 || categories.length > 1 ? rows : [];
}

async function evaluate(
  set: EvalSet,
): Promise<{ runs: Run[]; queries: EvalQuery[]; irrelevant: EvalSet["irrelevant"] }> {
  const queries = sample(set.queries, args.sample ? Number(args.sample) : undefined);
  const irrelevant = sample(set.irrelevant, args.sample ? Number(args.sample) : undefined);
  const tools = toServiceTools(set.tools);
  const rows = await toRows(tools);
  const evalIds = new Map(tools.map((t) => [toolId(t.server, t.name), t.evalId]));
  const engines: Engine[] = [ours(rows, evalIds)];
  if (!args["no-peers"]) {
    engines.push(miniSearch(rows, evalIds, true), miniSearch(rows, evalIds), await oramaDefaults(rows, evalIds));
  }
  if (args.http) engines.push(await httpEngine(args.http, operatorToken!, set.name, tools));
  const runs: Run[] = [];
  for (const engine of engines) {
    const concurrency = engine.name.includes("HTTP") ? HTTP_CONCURRENCY : 1;
    const main = await runQueries(
      engine,
      set.name,
      queries.map((q) => clientQuery(q.query)),
      concurrency,
    );
    const none = await runQueries(
      engine,
      `${set.name} irrelevant`,
      irrelevant.map((q) => clientQuery(q.query)),
      concurrency,
    );
    runs.push({ engine, answers: main.answers, irrelevant: none.answers, ms: main.ms + none.ms });
  }
  return { runs, queries, irrelevant };
}

// ---- output -------------------------------------------------------------------------------------

const pct = (n: number | null) => (n === null ? "-" : (100 * n).toFixed(1));
const f3 = (n: number) => n.toFixed(3);

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(" | ")} |`;
  return [
    line(header),
    `|${widths.map((w, i) => (i === 0 ? "-".repeat(w + 2) : `${"-".repeat(w + 1)}:`)).join("|")}|`,
    ...rows.map(line),
  ].join("\n");
}

function resultTable(results: { set: string; engine: string; f: Figures }[]): string {
  return table(
    [
      "set",
      "engine",
      "R@1",
      "R@5",
      "R@10",
      "MRR@10",
      "nDCG@10",
      "nDCG@10 strict",
      "no match: irrelevant %",
      "no match: relevant %",
      "ms/query",
    ],
    results.map(({ set, engine, f }) => [
      set,
      engine,
      f3(f.recall1),
      f3(f.recall5),
      f3(f.recall10),
      f3(f.mrr10),
      f3(f.ndcg10),
      f3(f.strict.ndcg10),
      pct(f.noMatchIrrelevant),
      pct(f.noMatchRelevant),
      f.msPerQuery.toFixed(3),
    ]),
  );
}

function sweepTable(set: string, run: Run, queries: EvalQuery[]): string {
  return table(
    [`${set} threshold`, "nDCG@10", "nDCG@10 strict", "R@5", "no match: relevant %", "no match: irrelevant %"],
    sweep.map((t) => {
      const f = figures(run, queries, t);
      return [
        String(t) + (t === threshold ? " *" : ""),
        f3(f.ndcg10),
        f3(f.strict.ndcg10),
        f3(f.recall5),
        pct(f.noMatchRelevant),
        pct(f.noMatchIrrelevant),
      ];
    }),
  );
}

const dirs = args.data
  ? [resolve(args.data)]
  : DEFAULT_DATA.flatMap((root) => (existsSync(root) ? findSets(root) : []));
if (dirs.length === 0) throw new Error(`no evaluation sets found in ${args.data ?? DEFAULT_DATA.join(" or ")}`);
if (args.suggest) {
  const reports: SuggestReport[] = [];
  const thresholds = args.thresholds ? sweep : SUGGEST_SWEEP;
  for (const dir of dirs) {
    const set = loadSet(dir);
    const tools = toServiceTools(set.tools);
    const evalIds = new Map(tools.map((t) => [toolId(t.server, t.name), t.evalId]));
    const queries = sample(set.queries, args.sample ? Number(args.sample) : undefined);
    const { irrelevant } = set;
    const runs = [suggestInProcess(set.name, await toRows(tools), evalIds, queries, irrelevant, thresholds)];
    if (args.http)
      runs.push(suggestOverHttp(args.http, operatorToken!, set.name, tools, queries, irrelevant, thresholds));
    for (const run of runs) {
      const report = await run;
      reports.push(report);
      console.log(`\n${suggestTable(report)}`);
    }
  }
  if (args.json) console.log(JSON.stringify({ suggest: reports }));
  process.exit(0);
}
if (args.loso) {
  const sets: LosoSet[] = [];
  for (const dir of dirs) {
    const set = loadSet(dir);
    const tools = toServiceTools(set.tools);
    const evalIds = new Map(tools.map((t) => [toolId(t.server, t.name), t.evalId]));
    sets.push({
      name: set.name,
      rows: await toRows(tools),
      evalIds,
      queries: sample(set.queries, args.sample ? Number(args.sample) : undefined),
      irrelevant: set.irrelevant.map((q) => q.query),
    });
  }
  const only = args.choices?.split(",").map((c) => c.trim().toLowerCase());
  const chosen = only ? CHOICES.filter((c) => only.some((o) => c.name.toLowerCase().includes(o))) : CHOICES;
  const rows = leaveOneSetOut(sets, chosen, threshold);
  console.log(
    `\n${losoTable(
      rows,
      sets.map((s) => s.name),
    )}`,
  );
  if (args.json) console.log(JSON.stringify({ loso: rows }));
  process.exit(0);
}
if (args.learn) {
  const sampled = args.sample ? Number(args.sample) : undefined;
  await learnReport(dirs, { threshold, sample: (q) => sample(q, sampled), http: args.http, token: operatorToken });
  process.exit(0);
}
const results: { set: string; engine: string; f: Figures }[] = [];
const categories: string[][] = [];
const sweeps: Record<string, { threshold: number; figures: Figures }[]> = {};
let httpThreshold: number | null = null;
const loaded = dirs.map((dir) => loadSet(dir, args.irrelevant ? resolve(args.irrelevant) : undefined));
for (const set of args.pooled ? pooled(loaded) : loaded) {
  console.error(
    `${set.name}: ${set.tools.length} tools, ${set.queries.length} queries, ${set.irrelevant.length} irrelevant`,
  );
  const { runs, queries, irrelevant } = await evaluate(set);
  for (const run of runs) {
    results.push({ set: set.name, engine: run.engine.name, f: figures(run, queries, threshold) });
    // Every engine's, peers' too: what the ranking adds shows by category (other words, task) as well.
    categories.push(...categoryRows(set.name, run, queries, irrelevant, threshold));
    const applied = (run.engine as { threshold?: () => number | null }).threshold?.();
    if (applied !== undefined) httpThreshold = applied;
  }
  if (args.sweep) {
    const own = runs[0]!;
    console.log(`\n${sweepTable(set.name, own, queries)}`);
    sweeps[set.name] = sweep.map((t) => ({ threshold: t, figures: figures(own, queries, t) }));
  }
}

console.log(
  `\nThreshold ${threshold} ` +
    `(script)${httpThreshold !== null ? `, ${httpThreshold} (HTTP, the service's default)` : ""}; ` +
    `peers have no threshold.`,
);
console.log("nDCG@10 counts gold_groups where a set has them; 'strict' counts only the first member of each group.");
if (args.sample) console.log(`Sampled: at most ${args.sample} queries per file.`);
console.log(resultTable(results));
if (categories.length > 0) {
  console.log(`\nBy category (the service; "no tool": queries no tool answers, where "no match" is right):`);
  console.log(table(["set", "engine", "category", "queries", "nDCG@10", "no match %"], categories));
}
if (args.json) {
  console.log(
    JSON.stringify({
      threshold,
      httpThreshold,
      sample: args.sample ? Number(args.sample) : null,
      results,
      ...(args.sweep ? { sweeps } : {}),
    }),
  );
}
