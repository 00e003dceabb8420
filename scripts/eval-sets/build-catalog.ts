/**
 * Builds the catalog of our MCP development sets from the server fixtures:
 *
 *   npx node scripts/eval-sets/build-catalog.ts [--from DIR] [--out FILE] [--help]
 *
 * reads eval/mcp/servers/*.json (written by dump-mcp-tools.ts) and writes eval/mcp-keyword/tools.jsonl
 * in the tools.jsonl format of ../shared/eval (id = `<server>::<name>`, server, name, description,
 * inputSchema); eval/mcp-requests/tools.jsonl is a symlink to the same file. The names and ids are
 * checked by scripts/eval-sets/check.ts. `--from` and `--out` build another catalog the same way
 * (eval/mcp-keyword-fresh/tools.jsonl from eval/mcp-fresh/servers).
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { catalogJsonl } from "./catalog.ts";
import type { Fixture } from "./dump-mcp-tools.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

const HELP = `Usage: npx node scripts/eval-sets/build-catalog.ts [options]

Writes eval/mcp-keyword/tools.jsonl from eval/mcp/servers/*.json.

Options:
  --from DIR   folder of server fixtures (default eval/mcp/servers)
  --out FILE   catalog to write (default eval/mcp-keyword/tools.jsonl)
  --help       this text`;

const { values: opts } = parseArgs({
  options: {
    from: { type: "string" },
    out: { type: "string" },
    help: { type: "boolean", default: false },
  },
  strict: true,
});
if (opts.help) {
  console.log(HELP);
  process.exit(0);
}
const SERVERS = resolve(opts.from ?? join(ROOT, "eval/mcp/servers"));
const OUT = resolve(opts.out ?? join(ROOT, "eval/mcp-keyword/tools.jsonl"));

const fixtures = readdirSync(SERVERS)
  .filter((f) => f.endsWith(".json"))
  .map((f) => JSON.parse(readFileSync(join(SERVERS, f), "utf8")) as Fixture);
const text = catalogJsonl(fixtures);
mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(OUT, text);
console.error(`${OUT}: ${text.split("\n").length - 1} tools of ${fixtures.length} servers`);
