/**
 * The catalog of our MCP sets as text: one tools.jsonl line per tool of the server fixtures
 * (eval/mcp/servers/*.json), servers in name order, each server's tools in the order it listed them.
 * Pure, so that the test suite can check that eval/mcp-keyword/tools.jsonl is what the fixtures give.
 */
import type { Fixture } from "./dump-mcp-tools.ts";

export function catalogJsonl(fixtures: readonly Fixture[]): string {
  const sorted = [...fixtures].sort((a, b) => (a.server < b.server ? -1 : a.server > b.server ? 1 : 0));
  const lines: string[] = [];
  for (const fixture of sorted) {
    for (const tool of fixture.tools) {
      const name = String(tool.name);
      const description = typeof tool.description === "string" ? tool.description : "";
      const inputSchema = tool.inputSchema && typeof tool.inputSchema === "object" ? tool.inputSchema : null;
      lines.push(
        JSON.stringify({ id: `${fixture.server}::${name}`, server: fixture.server, name, description, inputSchema }),
      );
    }
  }
  return `${lines.join("\n")}\n`;
}
