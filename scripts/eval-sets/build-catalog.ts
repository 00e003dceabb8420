/**
 * Builds the catalog of our MCP development sets from the server fixtures:
 *
 *   npx node scripts/eval-sets/build-catalog.ts [--help]
 *
 * reads eval/mcp/servers/*.json (written by dump-mcp-tools.ts) and writes eval/mcp-keyword/tools.jsonl
 * in the tools.jsonl format of ../shared/eval (id = `<server>::<name>`, server, name, description,
 * inputSchema), servers in name order and each server's tools in the order it listed them.
 * eval/mcp-requests/tools.jsonl is a symlink to the same file.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Fixture } from "./dump-mcp-tools.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const SERVERS = join(ROOT, "eval/mcp/servers");
const OUT = join(ROOT, "eval/mcp-keyword/tools.jsonl");
const SERVER_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

if (process.argv.includes("--help")) {
  console.log("Usage: npx node scripts/eval-sets/build-catalog.ts\n\nWrites eval/mcp-keyword/tools.jsonl from eval/mcp/servers/*.json.");
  process.exit(0);
}

const lines: string[] = [];
const ids = new Set<string>();
const files = readdirSync(SERVERS)
  .filter((f) => f.endsWith(".json"))
  .sort();
for (const file of files) {
  const fixture = JSON.parse(readFileSync(join(SERVERS, file), "utf8")) as Fixture;
  if (!SERVER_NAME.test(fixture.server)) throw new Error(`${file}: server name ${fixture.server} is not allowed`);
  for (const tool of fixture.tools) {
    const name = String(tool.name);
    if (!TOOL_NAME.test(name)) throw new Error(`${file}: tool name ${name} is not allowed`);
    const id = `${fixture.server}::${name}`;
    if (ids.has(id)) throw new Error(`${file}: duplicate tool id ${id}`);
    ids.add(id);
    const description = typeof tool.description === "string" ? tool.description : "";
    const inputSchema = tool.inputSchema && typeof tool.inputSchema === "object" ? tool.inputSchema : null;
    lines.push(JSON.stringify({ id, server: fixture.server, name, description, inputSchema }));
  }
}
mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(OUT, `${lines.join("\n")}\n`);
console.error(`${OUT}: ${lines.length} tools of ${files.length} servers`);
