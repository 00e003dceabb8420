/**
 * Leave-one-set-out: does each ranking choice generalise? For every choice (choices.ts) and every set S, the value
 * that does best on the other sets is picked without looking at S, then measured on S against the choice's "off"
 * value. A choice that helps only the set it was tuned on shows here as a gain in-sample and none (or a loss) out
 * of it. Ranking choices are measured by nDCG@10 with the threshold off; choices of the no-match rule by the
 * decision's worth (`decisionScore`).
 */
import { searchable } from "../../src/catalog/render.ts";
import type { ToolRow } from "../../src/catalog/tool.ts";
import { ToolIndex } from "../../src/search/tool-index.ts";
import type { Choice, Variant } from "./choices.ts";
import { clientQuery, type EvalQuery } from "./dataset.ts";
import { DEPTH, queryMetrics, summarize } from "./metrics.ts";
import { Progress } from "./progress.ts";

export interface LosoSet {
  name: string;
  rows: readonly ToolRow[];
  evalIds: ReadonlyMap<string, string>;
  queries: readonly EvalQuery[];
  /** Queries no tool answers, where "no match" is the right answer. */
  irrelevant: readonly string[];
}

/**
 * The worth of a no-match rule on a set: nDCG@10 at the service's threshold (a right tool refused costs its whole
 * gain) plus half the share of queries without a right tool that it answers "no match" (for sets that have them).
 * Both error kinds count: refusing everything or nothing scores low.
 */
const IRRELEVANT_WEIGHT = 0.5;

export interface LosoRow {
  choice: string;
  chosen: string;
  off: string;
  /** nDCG@10 of each value on each set. */
  scores: Record<string, Record<string, number>>;
  /** Per held-out set: the value picked on the other sets, and its gain over "off" on the held-out set. */
  heldOut: Record<string, { picked: string; gain: number }>;
}

/** nDCG@10 of one variant on one set, ranking alone (`threshold` 0) or with a no-match rule (decisionScore). */
function measure(index: ToolIndex, set: LosoSet, variant: Variant, threshold: number): number {
  const search = (query: string) =>
    index.search(clientQuery(query), { limit: DEPTH, threshold, params: variant.params, tuning: variant.tuning });
  const metrics = set.queries.map((q) =>
    queryMetrics(
      search(q.query).map((h) => set.evalIds.get(h.id)!),
      q.groups,
    ),
  );
  const ndcg = summarize(metrics).ndcg10;
  if (threshold === 0 || set.irrelevant.length === 0) return ndcg;
  const refused = set.irrelevant.filter((q) => search(q).length === 0).length / set.irrelevant.length;
  return ndcg + IRRELEVANT_WEIGHT * refused;
}

export function leaveOneSetOut(sets: readonly LosoSet[], choices: readonly Choice[], threshold: number): LosoRow[] {
  const indexes = new Map<string, ToolIndex>();
  const indexFor = (set: LosoSet, variant: Variant) => {
    const key = `${set.name} ${JSON.stringify(variant.index)}`;
    let index = indexes.get(key);
    if (!index) {
      index = ToolIndex.fromTools(set.rows.map(searchable), variant.index);
      indexes.set(key, index);
    }
    return index;
  };
  const total = choices.reduce((n, c) => n + c.values.length, 0) * sets.length;
  const progress = new Progress("leave-one-set-out", total);
  let done = 0;
  return choices.map((choice) => {
    const scores: LosoRow["scores"] = {};
    for (const value of choice.values) {
      scores[value.label] = {};
      for (const set of sets) {
        const at = choice.decision ? threshold : 0;
        scores[value.label]![set.name] = measure(indexFor(set, value), set, value, at);
        progress.tick(++done);
      }
    }
    const heldOut: LosoRow["heldOut"] = {};
    for (const held of sets) {
      const others = sets.filter((s) => s !== held);
      const mean = (label: string) => others.reduce((sum, s) => sum + scores[label]![s.name]!, 0) / others.length;
      const picked = choice.values
        .map((v) => v.label)
        .reduce((best, label) => (mean(label) > mean(best) ? label : best));
      heldOut[held.name] = { picked, gain: scores[picked]![held.name]! - scores[choice.off]![held.name]! };
    }
    return { choice: choice.name, chosen: choice.chosen, off: choice.off, scores, heldOut };
  });
}

/** A gain in points, signed. */
const points = (gain: number) => `${gain >= 0 ? "+" : ""}${(100 * gain).toFixed(1)}`;

/**
 * The markdown table: per choice, the service's value, then per held-out set the value picked on the other sets and
 * its gain over "off" on the held-out set, and beside it what the service's own value gains there.
 */
export function losoTable(rows: readonly LosoRow[], sets: readonly string[]): string {
  const header = ["choice", "service", ...sets.map((s) => `${s}: picked, gain (service's)`)];
  const lines = rows.map((row) => [
    row.choice,
    `${row.chosen} (off: ${row.off})`,
    ...sets.map((s) => {
      const h = row.heldOut[s]!;
      const service = row.scores[row.chosen]?.[s];
      const own = service === undefined ? "" : ` (${points(service - row.scores[row.off]![s]!)})`;
      return `${h.picked}, ${points(h.gain)}${own}`;
    }),
  ]);
  return [header, header.map(() => "---"), ...lines].map((cells) => `| ${cells.join(" | ")} |`).join("\n");
}
