/**
 * Session client tools: the tools a client brings to one session (Copilot SDK `setTools`), as
 * opposed to catalog tools, which belong to a server.
 *
 * Naming rule. A session tool has no server, so its model-facing name is its own name, which
 * must be 1-64 characters of A-Z a-z 0-9 _ - (valid for every vendor format) and must not
 * contain `__`, the separator between server and tool in catalog model names (`github__list_issues`),
 * nor be `tool_search`. So a session tool never reads as a catalog tool. The one case the rule
 * alone cannot exclude (a shortened catalog name of a 54+ character server, which may lack
 * `__`) is checked against the catalog when the tools are set, and refused as a clash.
 */
import { limitNote, type Limits } from "../config/limits.ts";
import { issueReasons, schemasFor, type ItemError } from "../catalog/batch.ts";
import { detectFormat, normalizeTool } from "../catalog/formats.ts";
import { SERVER_NAME, type ToolRow } from "../catalog/tool.ts";
import { TOOL_SEARCH_NAME } from "./tool-list.ts";

/** A session tool: one entry of the client's own list, a catalog tool's definition without a server. */
export type SessionTool = Pick<
  ToolRow,
  "name" | "title" | "description" | "inputSchema" | "outputSchema" | "annotations"
>;

/** Why `name` cannot be a session tool's name, or null when it can. */
export function sessionToolNameProblem(name: string): string | null {
  if (!SERVER_NAME.test(name))
    return "session tool names are 1-64 characters of A-Z a-z 0-9 _ - (the model-facing name rule)";
  if (name.includes("__"))
    return "session tool names may not contain '__', which separates server and tool in catalog names";
  if (name === TOOL_SEARCH_NAME) return "'tool_search' is the search tool's own name";
  return null;
}

/** Fields of catalog tools that mean nothing for a session tool. */
const CATALOG_ONLY = ["server", "defer", "keywords"] as const;

export type SessionToolsResult = { ok: true; tools: SessionTool[] } | { ok: false; errors: ItemError[] };

/**
 * Validates a whole list (any input format); either every item is a valid session tool, or every problem is reported.
 */
export function parseSessionTools(items: readonly unknown[], limits: Limits): SessionToolsResult {
  if (items.length > limits.max_session_tools) {
    return {
      ok: false,
      errors: [
        {
          index: limits.max_session_tools,
          reasons: [
            `a session holds at most ${limits.max_session_tools} client tools ` +
              `${limitNote("max_session_tools", limits)}`,
          ],
        },
      ],
    };
  }
  const schemas = schemasFor(limits);
  const errors: ItemError[] = [];
  const tools: SessionTool[] = [];
  const seen = new Map<string, number>();
  for (const [index, raw] of items.entries()) {
    const fail = (reasons: string[], name?: string) => errors.push({ index, ...(name ? { name } : {}), reasons });
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
      fail(["a tool must be a JSON object"]);
      continue;
    }
    const format = detectFormat(raw);
    if (format === "openai-namespace") {
      fail(["a namespace groups a server's tools; session tools have no server: give its functions one by one"]);
      continue;
    }
    const parsed = schemas.byFormat[format].safeParse(raw);
    if (!parsed.success) {
      fail(issueReasons(parsed.error.issues).map((r) => `${r} (read as ${format} format)`));
      continue;
    }
    const content = normalizeTool(parsed.data, "");
    const extra = CATALOG_ONLY.filter((field) => field in parsed.data);
    if (extra.length) {
      fail(
        [`${extra.join(", ")}: catalog fields; a session tool belongs to the session and is always loaded`],
        content.name,
      );
      continue;
    }
    const problem = sessionToolNameProblem(content.name);
    if (problem) {
      fail([problem], content.name);
      continue;
    }
    const first = seen.get(content.name);
    if (first !== undefined) {
      fail([`duplicate of tools[${first}]; names are unique within a session`], content.name);
      continue;
    }
    seen.set(content.name, index);
    const { title, description, inputSchema, outputSchema, annotations } = content;
    tools.push({ name: content.name, title, description, inputSchema, outputSchema, annotations });
  }
  return errors.length ? { ok: false, errors } : { ok: true, tools };
}

/** A session tool in the shape the renderers take (it has no server and no catalog id). */
export function sessionToolRow(tool: SessionTool): ToolRow {
  return {
    id: tool.name,
    server: "",
    keywords: [],
    defer: null,
    vendor: null,
    hash: "",
    modelName: tool.name,
    ...tool,
  };
}
