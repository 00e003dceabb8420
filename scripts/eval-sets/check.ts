/**
 * Checks our evaluation sets (eval/mcp-keyword, eval/mcp-keyword-blind{,2}, eval/mcp-requests, eval/mcp-requests-blind,
 * eval/mcp-requests-long, eval/mcp-keyword-fresh) from the command line:
 *
 *   npx node scripts/eval-sets/check.ts [--help]
 *
 * The rules are those of scripts/eval-sets/sets.ts (the test suite runs the same ones in
 * test/eval/sets.test.ts): every gold id is a tool of tools.jsonl, categories are known, the counts
 * meet the minimums, no query text repeats, absent and irrelevant queries have empty gold; and
 * tools.jsonl is exactly what eval/mcp/servers/*.json give (eval/mcp-keyword-fresh's: what eval/mcp-fresh/servers
 * give). Prints the counts; exits 1 on a problem.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { catalogJsonl } from "./catalog.ts";
import type { Fixture } from "./dump-mcp-tools.ts";
import { checkSets } from "./sets.ts";

const EVAL = resolve(dirname(fileURLToPath(import.meta.url)), "../../eval");

if (process.argv.includes("--help")) {
  console.log(
    "Usage: npx node scripts/eval-sets/check.ts\n\n" +
      "Validates eval/mcp-keyword, eval/mcp-keyword-blind, eval/mcp-keyword-blind2, eval/mcp-requests, " +
      "eval/mcp-requests-blind, " +
      "eval/mcp-requests-long and eval/mcp-keyword-fresh; exit code 1 on any problem.",
  );
  process.exit(0);
}

const read = (path: string) => readFileSync(join(EVAL, path), "utf8");
const report = checkSets({
  keywordTools: read("mcp-keyword/tools.jsonl"),
  keywordQueries: read("mcp-keyword/queries.jsonl"),
  blindTools: read("mcp-keyword-blind/tools.jsonl"),
  blindQueries: read("mcp-keyword-blind/queries.jsonl"),
  blind2Tools: read("mcp-keyword-blind2/tools.jsonl"),
  blind2Queries: read("mcp-keyword-blind2/queries.jsonl"),
  requestTools: read("mcp-requests/tools.jsonl"),
  requestQueries: read("mcp-requests/queries.jsonl"),
  requestIrrelevant: read("mcp-requests/irrelevant.jsonl"),
  blindRequestTools: read("mcp-requests-blind/tools.jsonl"),
  blindRequestQueries: read("mcp-requests-blind/queries.jsonl"),
  blindRequestIrrelevant: read("mcp-requests-blind/irrelevant.jsonl"),
  longTools: read("mcp-requests-long/tools.jsonl"),
  longQueries: read("mcp-requests-long/queries.jsonl"),
  longIrrelevant: read("mcp-requests-long/irrelevant.jsonl"),
  freshTools: read("mcp-keyword-fresh/tools.jsonl"),
  freshQueries: read("mcp-keyword-fresh/queries.jsonl"),
});
for (const [fixturesDir, catalog, build] of [
  ["mcp/servers", "mcp-keyword/tools.jsonl", ""],
  [
    "mcp-fresh/servers",
    "mcp-keyword-fresh/tools.jsonl",
    " --from eval/mcp-fresh/servers --out eval/mcp-keyword-fresh/tools.jsonl",
  ],
] as const) {
  const fixtures = readdirSync(join(EVAL, fixturesDir))
    .filter((f) => f.endsWith(".json"))
    .map((f) => JSON.parse(read(join(fixturesDir, f))) as Fixture);
  if (catalogJsonl(fixtures) !== read(catalog)) {
    report.problems.push(
      `${catalog} is not what eval/${fixturesDir} gives: run scripts/eval-sets/build-catalog.ts${build}`,
    );
  }
}

console.log(`catalog: ${report.tools} tools of ${report.servers} servers`);
console.log(`fresh catalog: ${report.freshTools} tools of ${report.freshServers} servers`);
for (const [file, counts] of Object.entries(report.counts)) {
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  console.log(
    `${file}: ${total} (${Object.entries(counts)
      .map(([c, n]) => `${c} ${n}`)
      .join(", ")})`,
  );
}
if (report.problems.length > 0) {
  console.log(`\n${report.problems.length} problem(s):\n  ${report.problems.join("\n  ")}`);
  process.exitCode = 1;
} else {
  console.log("no problems");
}
