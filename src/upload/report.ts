/** The upload's closing summary: a table per server, every rejection with its reasons, one verdict line. */
import type { ServerOutcome } from "./send.ts";

const COLUMNS = ["tools", "added", "updated", "unchanged", "removed", "rejected", "failed"] as const;
const DRY_RUN_COLUMNS = ["tools", "requests", "rejected"] as const;

function row(outcome: ServerOutcome): Omit<Totals, "servers"> {
  return {
    tools: outcome.tools,
    requests: outcome.requests,
    ...outcome.counts,
    rejected: outcome.rejectedTools,
    failed: outcome.failedTools,
  };
}

interface Totals {
  servers: number;
  tools: number;
  requests: number;
  added: number;
  updated: number;
  unchanged: number;
  removed: number;
  rejected: number;
  failed: number;
}

function totals(outcomes: ServerOutcome[]): Totals {
  const sum: Totals = {
    servers: outcomes.length,
    tools: 0,
    requests: 0,
    added: 0,
    updated: 0,
    unchanged: 0,
    removed: 0,
    rejected: 0,
    failed: 0,
  };
  for (const o of outcomes) for (const [k, v] of Object.entries(row(o))) sum[k as keyof Totals] += v;
  return sum;
}

export function formatSummary(outcomes: ServerOutcome[], dryRun: boolean): string {
  const sum = totals(outcomes);
  const width = Math.max(6, ...outcomes.map((o) => o.server.length));
  const cols = dryRun ? DRY_RUN_COLUMNS : COLUMNS;
  const line = (name: string, values: Omit<Totals, "servers">) =>
    [name.padEnd(width), ...cols.map((c) => String(values[c]).padStart(c.length))].join("  ");
  const lines = [["server".padEnd(width), ...cols].join("  ")];
  for (const o of outcomes) lines.push(line(o.server, row(o)));
  if (outcomes.length > 1) lines.push(line("total", sum));

  const renamed = outcomes.flatMap((o) => o.renamed);
  if (renamed.length) {
    lines.push("", "Model-facing names with a suffix (the usual server__name was taken by another tool):");
    for (const r of renamed) lines.push(`  ${r}`);
  }
  const rejected = outcomes.flatMap((o) => o.rejected);
  if (rejected.length) {
    lines.push("", "Rejected (nothing of a rejected server or request was written):");
    for (const r of rejected) lines.push(`  ${r.where}${r.name ? ` (${r.name})` : ""}: ${r.reasons.join("; ")}`);
  }
  const failed = outcomes.flatMap((o) => o.failed.map((f) => `${o.server}: ${f}`));
  if (failed.length) {
    lines.push("", "Failed:");
    for (const f of failed) lines.push(`  ${f}`);
  }
  lines.push("", verdict(sum, dryRun, rejected.length + failed.length > 0));
  return lines.join("\n");
}

function verdict(sum: Totals, dryRun: boolean, problems: boolean): string {
  const servers = `${sum.servers} server${sum.servers === 1 ? "" : "s"}`;
  if (dryRun) {
    return problems
      ? `Dry run, nothing sent: problems listed above (${sum.rejected} tools would be rejected).`
      : `Dry run, nothing sent: all ${sum.tools} tools of ${servers} are valid (${sum.requests} ` +
          `request${sum.requests === 1 ? "" : "s"} planned).`;
  }
  const parts =
    `${sum.added} added, ${sum.updated} updated, ${sum.unchanged} unchanged, ${sum.removed} ` +
    `removed, ${sum.rejected} rejected, ${sum.failed} failed`;
  return `${problems ? "Finished with problems, listed above" : "Done"} (${servers}): ${parts}.`;
}
