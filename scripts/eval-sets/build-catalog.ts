/**
 * Builds the catalog of our MCP development sets from the server fixtures:
 *
 *   npx node scripts/eval-sets/build-catalog.ts [--help]
 *
 * reads eval/mcp/servers/*.json (written by dump-mcp-tools.ts) and writes eval/mcp-keyword/tools.jsonl
 * in the tools.jsonl format of ../shared/eval (id = `<server>::<name>`, server, name, description,
 * inputSchema); eval/mcp-requests/tools.jsonl is a symlink to the same file. The names and ids are
 * checked by scripts/eval-sets/check.ts.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { catalogJsonl } from "./catalog.ts";
import type { Fixture } from "./dump-mcp-tools.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const SERVERS = join(ROOT, "eval/mcp/servers");
const OUT = join(ROOT, "eval/mcp-keyword/tools.jsonl");

if (process.argv.includes("--help")) {
  console.log(
    "Usage: npx node scripts/eval-sets/build-catalog.ts\n\n" +
      "Writes eval/mcp-keyword/tools.jsonl from eval/mcp/servers/*.json.",
  );
  process.exit(0);
}

const fixtures = readdirSync(SERVERS)
  .filter((f) => f.endsWith(".json"))
  .map((f) => JSON.parse(readFileSync(join(SERVERS, f), "utf8")) as Fixture);
const text = catalogJsonl(fixtures);
mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(OUT, text);
console.error(`${OUT}: ${text.split("\n").length - 1} tools of ${fixtures.length} servers`);
