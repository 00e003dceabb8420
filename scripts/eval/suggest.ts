/**
 * `npm run eval -- --suggest`: suggestions measured on a set's queries used as users' messages (src/search/suggest.ts).
 * Precision is the share of suggested tools that are gold; coverage the share of messages with at least one gold
 * tool suggested; "any" the share of messages without a right tool (absent capabilities, chit-chat, irrelevant
 * questions) that got any suggestion. A sweep of suggest_threshold shows where the default sits.
 */
import { searchable } from "../../src/catalog/render.ts";
import type { ToolRow } from "../../src/catalog/tool.ts";
import { SUGGEST_MAX, SUGGEST_THRESHOLD, suggest } from "../../src/search/suggest.ts";
import { ToolIndex } from "../../src/search/tool-index.ts";
import { clientQuery, type EvalQuery } from "./dataset.ts";

const SUGGEST_SWEEP = [2, 2.5, 3, 3.5, 4, 4.5, 5];

export interface SuggestFigures {
  threshold: number;
  precision: number;
  coverage: number;
  /** Suggested tools per message with a right tool. */
  perMessage: number;
  /** Share of messages without a right tool that got any suggestion (null: the set has none). */
  anyOnIrrelevant: number | null;
}

export function suggestFigures(
  rows: readonly ToolRow[],
  evalIds: ReadonlyMap<string, string>,
  queries: readonly EvalQuery[],
  irrelevant: readonly string[],
  thresholds: readonly number[] = SUGGEST_SWEEP,
): SuggestFigures[] {
  const index = ToolIndex.fromTools(rows.map(searchable));
  return thresholds.map((threshold) => {
    const run = (message: string) =>
      suggest(index, clientQuery(message), { max: SUGGEST_MAX, threshold }).map((h) => evalIds.get(h.id)!);
    let suggested = 0;
    let good = 0;
    let covered = 0;
    for (const q of queries) {
      const gold = new Set(q.groups.flat());
      const ids = run(q.query);
      const hits = ids.filter((id) => gold.has(id)).length;
      suggested += ids.length;
      good += hits;
      if (hits > 0) covered++;
    }
    const any = irrelevant.filter((m) => run(m).length > 0).length;
    return {
      threshold,
      precision: suggested === 0 ? 0 : good / suggested,
      coverage: queries.length === 0 ? 0 : covered / queries.length,
      perMessage: queries.length === 0 ? 0 : suggested / queries.length,
      anyOnIrrelevant: irrelevant.length === 0 ? null : any / irrelevant.length,
    };
  });
}

/** The sweep as a markdown table, the default marked. */
export function suggestTable(set: string, figures: readonly SuggestFigures[]): string {
  const rows = figures.map((f) => {
    const mark = f.threshold === SUGGEST_THRESHOLD ? " *" : "";
    const any = f.anyOnIrrelevant === null ? "-" : `${(100 * f.anyOnIrrelevant).toFixed(1)} %`;
    const cells = [
      `${f.threshold}${mark}`,
      f.precision.toFixed(3),
      f.coverage.toFixed(3),
      f.perMessage.toFixed(2),
      any,
    ];
    return `| ${cells.join(" | ")} |`;
  });
  return [
    `| ${set}: suggest_threshold | precision | coverage | suggested per message | any suggestion, no right tool |`,
    "|---:|---:|---:|---:|---:|",
    ...rows,
  ].join("\n");
}
