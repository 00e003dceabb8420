/**
 * Tools for the search core's tests: a tool from three strings, and the real catalog of eval/mcp-keyword (754 tools
 * of 67 public MCP servers) with its queries, as the search core takes them.
 */
import catalogLines from "../../eval/mcp-keyword/tools.jsonl?raw";
import queryLines from "../../eval/mcp-keyword/queries.jsonl?raw";
import type { SearchableTool } from "../../src/search/document.ts";

/** A tool with no parameters. */
export const tool = (server: string, name: string, description: string) => ({
  id: `${server}::${name}`,
  server,
  name,
  description,
  inputSchema: { type: "object", properties: {} },
});

const lines = <T>(text: string) =>
  text
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as T);

interface EvalTool {
  id: string;
  server: string;
  name: string;
  description: string | null;
  inputSchema: Record<string, unknown> | null;
}

/** eval/mcp-keyword's catalog: a missing description or schema as an upload would default it. */
export const mcpCatalog: SearchableTool[] = lines<EvalTool>(catalogLines).map((t) => ({
  ...t,
  description: t.description ?? "",
  inputSchema: t.inputSchema ?? { type: "object" },
}));

/** eval/mcp-keyword's queries, as written. */
export const mcpQueries: string[] = lines<{ query: string }>(queryLines).map((q) => q.query);
