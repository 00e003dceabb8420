/**
 * `npm run eval -- --learn`: learning from use, evaluated on queries it was not trained on.
 *
 * Per set, the queries are split in two halves by a hash of their id (deterministic, independent of file order).
 * The first half is replayed as agent sessions: each searches its query, finds its gold tools and resolves them,
 * which credits the query's words to those tools. The other half is searched before and after the replay, and
 * nDCG@10 is reported for both.
 *
 * In process, the replay runs the tenant object's own learning rules (src/search/learning.ts: `searchTerms`,
 * `creditTerms`, `mayCredit`, `applyCredit`) on the same index (`ToolIndex.setLearned`). With `--http`, it runs
 * through the real API: a session per query, `POST .../search` with the query, a `tool_id` lookup for each gold tool
 * the query did not find (so that it is active), `POST .../sessions/{id}/resolve` for each gold tool. Over HTTP the
 * script also checks, and fails if not so: a second tenant with the same catalog ranks exactly as before the replay;
 * a tenant with `learn_from_use: false` that replays the same sessions ranks exactly as before; and after
 * `DELETE .../learned` the learning tenant ranks exactly as before. In process it checks the last of these.
 */
import type { ToolRow } from "../../src/catalog/tool.ts";
import { searchable } from "../../src/catalog/render.ts";
import {
  applyCredit,
  creditTerms,
  dayOf,
  mayCredit,
  searchTerms,
  type LearnedTerm,
} from "../../src/search/learning.ts";
import { passing, ToolIndex } from "../../src/search/tool-index.ts";
import { toolId } from "../../src/catalog/tool.ts";
import { clientQuery, loadSet, toServiceTools, type EvalQuery, type EvalSet, type ServiceTool } from "./dataset.ts";
import { DECISION_POOL, toRows } from "./engines.ts";
import { DEPTH, queryMetrics, summarize } from "./metrics.ts";
import { Progress } from "./progress.ts";
import { request, uploadTenant, type HttpTenant } from "./http.ts";

export interface LearnFigures {
  set: string;
  mode: "script" | "http";
  replayed: number;
  heldOut: number;
  before: number;
  after: number;
  /** Held-out queries whose gold tools include one a replayed query resolved. */
  seenShare: number;
  /** nDCG@10 before and after of those queries (seen) and of the others (unseen). */
  split: { seen: [number, number]; unseen: [number, number] };
  /**
   * What perfect tool-level learning could reach: each held-out query's before-ranking with its replayed gold tools
   * moved to the top (null over HTTP: the same as in process).
   */
  ceiling: number | null;
  /** Share of the set's irrelevant queries answered "no match", before and after (null when it has none). */
  noMatch: { before: number; after: number } | null;
  checks: string[];
}

/** FNV-1a of a query id: the split does not depend on the order of the file. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** The queries in two halves: the first is replayed, the second held out. Ordered by hash, then id. */
function splitHalves(queries: readonly EvalQuery[]): { replay: EvalQuery[]; heldOut: EvalQuery[] } {
  const ordered = [...queries].sort((a, b) => hash(a.id) - hash(b.id) || (a.id < b.id ? -1 : 1));
  const half = Math.ceil(ordered.length / 2);
  return { replay: ordered.slice(0, half), heldOut: ordered.slice(half) };
}

type Answer = { id: string; score: number }[];

function ndcg(answers: readonly Answer[], queries: readonly EvalQuery[]): number {
  return summarize(
    answers.map((a, i) =>
      queryMetrics(
        a.map((h) => h.id),
        queries[i]!.groups,
      ),
    ),
  ).ndcg10;
}

function same(a: readonly Answer[], b: readonly Answer[]): boolean {
  return a.every(
    (x, i) => x.length === b[i]!.length && x.every((h, j) => h.id === b[i]![j]!.id && h.score === b[i]![j]!.score),
  );
}

function seenShare(replay: readonly EvalQuery[], heldOut: readonly EvalQuery[]): number {
  const seen = new Set(replay.flatMap((q) => q.strict.flat()));
  return heldOut.filter((q) => q.strict.flat().some((id) => seen.has(id))).length / Math.max(heldOut.length, 1);
}

function ceiling(replay: readonly EvalQuery[], heldOut: readonly EvalQuery[], before: readonly Answer[]): number {
  const seen = new Set(replay.flatMap((q) => q.strict.flat()));
  const moved = heldOut.map((q, i) => {
    const top = q.strict.flat().filter((id) => seen.has(id));
    return [...top.map((id) => ({ id, score: 0 })), ...before[i]!.filter((h) => !top.includes(h.id))];
  });
  return ndcg(moved, heldOut);
}

/** nDCG@10 before and after, of the held-out queries with a replayed gold tool and of the others. */
function split(
  replay: readonly EvalQuery[],
  heldOut: readonly EvalQuery[],
  before: readonly Answer[],
  after: readonly Answer[],
): LearnFigures["split"] {
  const seen = new Set(replay.flatMap((q) => q.strict.flat()));
  const part = (want: boolean): [number, number] => {
    const at = heldOut.flatMap((q, i) => (q.strict.flat().some((id) => seen.has(id)) === want ? [i] : []));
    const pick = (answers: readonly Answer[]) =>
      ndcg(
        at.map((i) => answers[i]!),
        at.map((i) => heldOut[i]!),
      );
    return [pick(before), pick(after)];
  };
  return { seen: part(true), unseen: part(false) };
}

/** In process: the service's search core and learning rules, one day, the default half-life. */
function learnInProcess(
  set: EvalSet,
  rows: readonly ToolRow[],
  evalIds: ReadonlyMap<string, string>,
  threshold: number,
  queries: readonly EvalQuery[],
): LearnFigures {
  const { replay, heldOut } = splitHalves(queries);
  const serviceIds = new Map([...evalIds].map(([service, evalId]) => [evalId, service]));
  const index = ToolIndex.fromTools(rows.map(searchable));
  const day = dayOf(Date.now());
  const run = () =>
    heldOut.map((q) =>
      passing(index.search(clientQuery(q.query), { limit: DECISION_POOL, threshold: 0, day }), threshold)
        .slice(0, DEPTH)
        .map((h) => ({
          id: evalIds.get(h.id)!,
          score: h.score,
        })),
    );
  const before = run();
  const irrelevant = set.irrelevant.map((q) => clientQuery(q.query));
  const noMatch = () =>
    irrelevant.filter(
      (q) => passing(index.search(q, { limit: DECISION_POOL, threshold: 0, day }), threshold).length === 0,
    ).length / Math.max(irrelevant.length, 1);
  const noMatchBefore = noMatch();

  const learned = new Map<string, LearnedTerm[]>();
  let version = 0;
  const progress = new Progress(`${set.name}: replay`, replay.length);
  replay.forEach((q, i) => {
    // One session, one turn: it searched the query, then resolved each gold tool.
    const records = [searchTerms(clientQuery(q.query))];
    let credits = 0;
    for (const evalId of new Set(q.strict.map((g) => g[0]!))) {
      const id = serviceIds.get(evalId);
      if (!id || !mayCredit(false, credits)) continue;
      credits++;
      const terms = applyCredit(learned.get(id) ?? [], day, creditTerms(records), day, 30);
      learned.set(id, terms);
      index.setLearned(id, { day, terms }, ++version);
    }
    progress.tick(i + 1);
  });
  const after = run();
  const noMatchAfter = noMatch();

  index.loadLearned([], ++version);
  const forgotten = run();
  if (!same(forgotten, before)) throw new Error(`${set.name}: after forgetting, the ranking differs from before`);
  return {
    set: set.name,
    mode: "script",
    replayed: replay.length,
    heldOut: heldOut.length,
    before: ndcg(before, heldOut),
    after: ndcg(after, heldOut),
    seenShare: seenShare(replay, heldOut),
    split: split(replay, heldOut, before, after),
    ceiling: ceiling(replay, heldOut, before),
    noMatch: irrelevant.length ? { before: noMatchBefore, after: noMatchAfter } : null,
    checks: ["forget restores the exact ranking"],
  };
}

export interface LearnOptions {
  threshold: number;
  /** Picks the queries to use (all, or a sample). */
  sample: (queries: EvalQuery[]) => EvalQuery[];
  http?: string | undefined;
  token?: string | undefined;
}

const points = (n: number) => (100 * n).toFixed(1);
const arrow = ([before, after]: [number, number]) => `${before.toFixed(3)} → ${after.toFixed(3)}`;

/** Runs the learning evaluation on each set and prints one table. */
export async function learnReport(dirs: readonly string[], options: LearnOptions): Promise<LearnFigures[]> {
  const all: LearnFigures[] = [];
  for (const dir of dirs) {
    const set = loadSet(dir);
    const tools = toServiceTools(set.tools);
    const rows = await toRows(tools);
    const evalIds = new Map(tools.map((t) => [toolId(t.server, t.name), t.evalId]));
    const queries = options.sample(set.queries);
    all.push(learnInProcess(set, rows, evalIds, options.threshold, queries));
    if (options.http) all.push(await learnOverHttp(set, tools, queries, options.http, options.token!));
  }
  const lines = [
    "| set | mode | replayed | held out | nDCG@10 before | after | gain (points) | " +
      "with a replayed gold tool: share, before → after | without: before → after | " +
      "ceiling | irrelevant answered no match, before / after |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...all.map(
      (f) =>
        `| ${f.set} | ${f.mode} | ${f.replayed} | ${f.heldOut} | ${f.before.toFixed(3)} | ${f.after.toFixed(3)} | ` +
        `${(100 * (f.after - f.before)).toFixed(1)} | ${points(f.seenShare)} %: ${arrow(f.split.seen)} | ` +
        `${arrow(f.split.unseen)} | ${f.ceiling === null ? "–" : f.ceiling.toFixed(3)} | ` +
        `${f.noMatch ? `${points(f.noMatch.before)} % / ${points(f.noMatch.after)} %` : "–"} |`,
    ),
  ];
  console.log(`\nLearning from use, threshold ${options.threshold}:`);
  console.log(lines.join("\n"));
  for (const f of all) console.log(`${f.set} (${f.mode}) checks passed: ${f.checks.join("; ")}`);
  return all;
}

// ---- over HTTP ------------------------------------------------------------------------------------

const CONCURRENCY = 8;

interface Reply {
  results: { tool_id: string; score: number }[];
}

/** The held-out queries through POST .../search, as the main evaluation sends them (default threshold). */
async function searchAll(base: string, t: HttpTenant, queries: readonly EvalQuery[], evalIds: Map<string, string>) {
  const answers: Answer[] = new Array(queries.length);
  let next = 0;
  const worker = async () => {
    while (next < queries.length) {
      const i = next++;
      const reply = await request<Reply>(base, t.key, "POST", `/v1/tenants/${t.id}/search`, {
        query: clientQuery(queries[i]!.query),
        max_results: DEPTH,
      });
      answers[i] = reply.results.map((r) => ({ id: evalIds.get(r.tool_id)!, score: r.score }));
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return answers;
}

/**
 * The replay, one session after the other (the order credits arrive in decides ties at a tool's term cap, so the
 * same order as in process gives the same learned state): a session that searches the query, looks up by id each
 * gold tool the search did not return (lookups record no words), resolves each gold tool, and ends.
 */
async function replay(
  base: string,
  t: HttpTenant,
  queries: readonly EvalQuery[],
  label: string,
  ids: Map<string, string>,
) {
  const path = `/v1/tenants/${t.id}`;
  const progress = new Progress(`${label}: replay over HTTP`, queries.length);
  for (const [i, q] of queries.entries()) {
    const gold = [...new Set(q.strict.map((g) => ids.get(g[0]!)!))];
    const session = `replay-${i}`;
    await request(base, t.key, "POST", `${path}/sessions`, { session_id: session, budget_cap: gold.length + 1 });
    const found = await request<Reply>(base, t.key, "POST", `${path}/search`, {
      query: clientQuery(q.query),
      max_results: DEPTH,
      session_id: session,
    });
    const active = new Set(found.results.map((r) => r.tool_id));
    for (const id of gold) {
      if (!active.has(id)) await request(base, t.key, "POST", `${path}/search`, { tool_id: id, session_id: session });
      await request(base, t.key, "POST", `${path}/sessions/${session}/resolve`, { name: id });
    }
    await request(base, t.key, "DELETE", `${path}/sessions/${session}`);
    progress.tick(i + 1);
  }
}

/**
 * Through the running service: the learning tenant before and after the replay, and the checks the issue asks for
 * (another tenant unchanged, learn_from_use false changes nothing, DELETE .../learned restores the exact ranking).
 */
async function learnOverHttp(
  set: EvalSet,
  tools: readonly ServiceTool[],
  queries: readonly EvalQuery[],
  base: string,
  operator: string,
): Promise<LearnFigures> {
  const { replay: replayed, heldOut } = splitHalves(queries);
  const evalIds = new Map(tools.map((t) => [toolId(t.server, t.name), t.evalId]));
  const serviceIds = new Map(tools.map((t) => [t.evalId, toolId(t.server, t.name)]));
  const [learner, other, off] = await Promise.all([
    uploadTenant(base, operator, `learn-${set.name}`, tools),
    uploadTenant(base, operator, `learn-${set.name}-other`, tools),
    uploadTenant(base, operator, `learn-${set.name}-off`, tools, { learn_from_use: false }),
  ]);
  const before = await searchAll(base, learner, heldOut, evalIds);
  await Promise.all([
    replay(base, learner, replayed, set.name, serviceIds),
    replay(base, off, replayed, `${set.name} (learn_from_use: false)`, serviceIds),
  ]);
  const after = await searchAll(base, learner, heldOut, evalIds);
  const checks: string[] = [];
  const check = (what: string, answers: Answer[]) => {
    if (!same(answers, before)) throw new Error(`${set.name} over HTTP: ${what}: the ranking differs from before`);
    checks.push(what);
  };
  check("another tenant with the same catalog is unchanged", await searchAll(base, other, heldOut, evalIds));
  check("learn_from_use: false: replayed sessions changed nothing", await searchAll(base, off, heldOut, evalIds));
  await request(base, learner.key, "DELETE", `/v1/tenants/${learner.id}/learned`);
  check("DELETE .../learned restores the exact ranking", await searchAll(base, learner, heldOut, evalIds));
  return {
    set: set.name,
    mode: "http",
    replayed: replayed.length,
    heldOut: heldOut.length,
    before: ndcg(before, heldOut),
    after: ndcg(after, heldOut),
    seenShare: seenShare(replayed, heldOut),
    split: split(replayed, heldOut, before, after),
    ceiling: null,
    noMatch: null,
    checks,
  };
}
