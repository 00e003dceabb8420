/**
 * `npm run eval -- --suggest`: suggestions measured on a set's queries used as users' messages (src/search/suggest.ts).
 * Precision is the share of suggested tools that are gold; coverage the share of messages with at least one gold
 * tool suggested; "any" the share of messages without a right tool (absent capabilities, chit-chat, irrelevant
 * questions) that got any suggestion, in all and per category. A sweep of suggest_threshold shows where the default
 * sits.
 *
 * In process the rule runs on the set's index. With `--http <url>` the same messages go through a running service:
 * a fresh tenant holds the catalog; at the tenant's default settings each message gets a session of its own and
 * `POST .../sessions/{id}/turns` with the message (what an agent harness sends when the user speaks); each threshold
 * of the sweep creates the session with the message and `suggest: {threshold}` (`POST .../sessions`). Every session
 * is deleted after its message.
 */
import { searchable } from "../../src/catalog/render.ts";
import type { ToolRow } from "../../src/catalog/tool.ts";
import { SUGGEST_MAX, SUGGEST_THRESHOLD, suggest } from "../../src/search/suggest.ts";
import { ToolIndex } from "../../src/search/tool-index.ts";
import { clientQuery, type EvalQuery, type EvalSet, type ServiceTool } from "./dataset.ts";
import { request, uploadTenant, type HttpTenant } from "./http.ts";
import { Progress } from "./progress.ts";

export const SUGGEST_SWEEP = [2, 2.5, 3, 3.5, 4, 4.5, 5];
const HTTP_CONCURRENCY = 8;

interface SuggestFigures {
  /** The suggest_threshold; null: the service's defaults, unchanged (over HTTP: the tenant's settings as created). */
  threshold: number | null;
  precision: number;
  coverage: number;
  /** Suggested tools per message with a right tool. */
  perMessage: number;
  /** Share of messages without a right tool that got any suggestion (null: the set has none). */
  anyOnIrrelevant: number | null;
  /** The same per category of those messages (absent, chit-chat, ...). */
  anyByCategory: Record<string, number>;
}

export interface SuggestReport {
  set: string;
  mode: "script" | "http";
  queries: number;
  irrelevant: number;
  /** At the default settings: in process the defaults of suggest.ts, over HTTP a turn with nothing overridden. */
  defaults: SuggestFigures;
  sweep: SuggestFigures[];
}

/** What a suggester returns for a message: the eval ids of the tools suggested, best first. */
type Suggester = (message: string, threshold: number | null) => Promise<string[]>;

type Irrelevant = EvalSet["irrelevant"];

function figures(
  threshold: number | null,
  queries: readonly EvalQuery[],
  answers: readonly string[][],
  irrelevant: Irrelevant,
  irrelevantAnswers: readonly string[][],
): SuggestFigures {
  let suggested = 0;
  let good = 0;
  let covered = 0;
  queries.forEach((q, i) => {
    const gold = new Set(q.groups.flat());
    const ids = answers[i]!;
    const hits = ids.filter((id) => gold.has(id)).length;
    suggested += ids.length;
    good += hits;
    if (hits > 0) covered++;
  });
  const byCategory: Record<string, { n: number; any: number }> = {};
  irrelevant.forEach((q, i) => {
    byCategory[q.category] ??= { n: 0, any: 0 };
    const entry = byCategory[q.category]!;
    entry.n++;
    if (irrelevantAnswers[i]!.length > 0) entry.any++;
  });
  const any = irrelevantAnswers.filter((ids) => ids.length > 0).length;
  return {
    threshold,
    precision: suggested === 0 ? 0 : good / suggested,
    coverage: queries.length === 0 ? 0 : covered / queries.length,
    perMessage: queries.length === 0 ? 0 : suggested / queries.length,
    anyOnIrrelevant: irrelevant.length === 0 ? null : any / irrelevant.length,
    anyByCategory: Object.fromEntries(Object.entries(byCategory).map(([c, { n, any }]) => [c, any / n])),
  };
}

async function answerAll(
  suggester: Suggester,
  texts: readonly string[],
  threshold: number | null,
  concurrency: number,
  progress: { tick(): void },
): Promise<string[][]> {
  const answers: string[][] = new Array(texts.length);
  let next = 0;
  const worker = async () => {
    while (next < texts.length) {
      const i = next++;
      answers[i] = await suggester(clientQuery(texts[i]!), threshold);
      progress.tick();
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, texts.length) }, worker));
  return answers;
}

async function measure(
  set: string,
  mode: SuggestReport["mode"],
  suggester: Suggester,
  queries: readonly EvalQuery[],
  irrelevant: Irrelevant,
  thresholds: readonly number[],
  concurrency: number,
): Promise<SuggestReport> {
  const runs: (number | null)[] = [null, ...thresholds];
  const total = runs.length * (queries.length + irrelevant.length);
  const bar = new Progress(`${set}: suggestions (${mode})`, total);
  let done = 0;
  const progress = { tick: () => bar.tick(++done) };
  const measured: SuggestFigures[] = [];
  for (const threshold of runs) {
    const answers = await answerAll(
      suggester,
      queries.map((q) => q.query),
      threshold,
      concurrency,
      progress,
    );
    const none = await answerAll(
      suggester,
      irrelevant.map((q) => q.query),
      threshold,
      concurrency,
      progress,
    );
    measured.push(figures(threshold, queries, answers, irrelevant, none));
  }
  const [defaults, ...sweep] = measured;
  return { set, mode, queries: queries.length, irrelevant: irrelevant.length, defaults: defaults!, sweep };
}

/** The rule of src/search/suggest.ts on the set's own index, with the service's default ranking. */
export function suggestInProcess(
  set: string,
  rows: readonly ToolRow[],
  evalIds: ReadonlyMap<string, string>,
  queries: readonly EvalQuery[],
  irrelevant: Irrelevant,
  thresholds: readonly number[] = SUGGEST_SWEEP,
): Promise<SuggestReport> {
  const index = ToolIndex.fromTools(rows.map(searchable));
  const suggester: Suggester = async (message, threshold) =>
    suggest(index, message, { max: SUGGEST_MAX, threshold: threshold ?? SUGGEST_THRESHOLD }).map(
      (h) => evalIds.get(h.id)!,
    );
  return measure(set, "script", suggester, queries, irrelevant, thresholds, 1);
}

interface SessionReply {
  session_id: string;
  suggested?: { tool_id: string }[];
}

/**
 * The same messages through a running service (see the module comment). A tool the service suggests that the
 * catalog does not hold fails the run.
 */
export async function suggestOverHttp(
  base: string,
  operator: string,
  set: string,
  tools: readonly ServiceTool[],
  queries: readonly EvalQuery[],
  irrelevant: Irrelevant,
  thresholds: readonly number[] = SUGGEST_SWEEP,
): Promise<SuggestReport> {
  const tenant = await uploadTenant(base, operator, `suggest-${set}`, tools);
  const evalIds = new Map(tools.map((t) => [`${t.server}::${t.name}`, t.evalId]));
  const sessions = `/v1/tenants/${tenant.id}/sessions`;
  const ids = (reply: SessionReply) => {
    if (!reply.suggested) throw new Error(`the service answered a message without suggested: ${JSON.stringify(reply)}`);
    return reply.suggested.map((s) => {
      const id = evalIds.get(s.tool_id);
      if (!id) throw new Error(`the service suggested an unknown tool ${s.tool_id}`);
      return id;
    });
  };
  const suggester: Suggester = async (message, threshold) => {
    let reply: SessionReply;
    if (threshold === null) {
      const { session_id } = await request<SessionReply>(base, tenant.key, "POST", sessions, {});
      reply = await request<SessionReply>(base, tenant.key, "POST", `${sessions}/${session_id}/turns`, { message });
    } else {
      reply = await request<SessionReply>(base, tenant.key, "POST", sessions, { message, suggest: { threshold } });
    }
    await request(base, tenant.key, "DELETE", `${sessions}/${reply.session_id}`);
    return ids(reply);
  };
  const report = await measure(set, "http", suggester, queries, irrelevant, thresholds, HTTP_CONCURRENCY);
  await deleteTenant(base, operator, tenant);
  return report;
}

/** Removes the evaluation's tenant when the service offers it (DELETE /v1/tenants/{t}); leaves it otherwise. */
async function deleteTenant(base: string, operator: string, tenant: HttpTenant): Promise<void> {
  await request(base, operator, "DELETE", `/v1/tenants/${tenant.id}`).catch(() => undefined);
}

const pct = (n: number | null) => (n === null ? "-" : `${(100 * n).toFixed(1)} %`);

/** A report as a markdown table: the default settings first, then the sweep (the default threshold marked). */
export function suggestTable(report: SuggestReport): string {
  const categories = [...new Set([report.defaults, ...report.sweep].flatMap((f) => Object.keys(f.anyByCategory)))];
  const row = (label: string, f: SuggestFigures) => {
    const cells = [
      label,
      f.precision.toFixed(3),
      f.coverage.toFixed(3),
      f.perMessage.toFixed(2),
      pct(f.anyOnIrrelevant),
      ...categories.map((c) => pct(f.anyByCategory[c] ?? null)),
    ];
    return `| ${cells.join(" | ")} |`;
  };
  const via = report.mode === "http" ? "POST .../turns, tenant defaults" : `suggest.ts defaults, ${SUGGEST_THRESHOLD}`;
  return [
    `${report.set} (${report.mode}): ${report.queries} messages with a right tool, ${report.irrelevant} without`,
    "",
    `| suggest_threshold | precision | coverage | suggested per message | any suggestion, no right tool |` +
      categories.map((c) => ` any: ${c} |`).join(""),
    `|---:|---:|---:|---:|---:|${categories.map(() => "---:|").join("")}`,
    row(`default (${via})`, report.defaults),
    ...report.sweep.map((f) => row(`${f.threshold}${f.threshold === SUGGEST_THRESHOLD ? " *" : ""}`, f)),
  ].join("\n");
}
