/**
 * The tool list a session sends with its next model request:
 *
 *   1. tool_search (the way to everything deferred),
 *   2. the always-loaded tools (the tenant's, then the ones the session's agent names inline),
 *   3. the session's own client tools, in the order the client set them,
 *   4. the tools searches activated, in the order they were activated.
 *
 * Activation only ever appends to the end, so the prefix a provider's prompt cache holds stays
 * valid while a session discovers tools. Names are unique: an entry whose model-facing name or
 * tool id is already listed is left out (the earlier entry wins).
 */
import type { JsonObject } from "../catalog/json.ts";
import type { ToolRow } from "../catalog/tool.ts";

export const TOOL_SEARCH_NAME = "tool_search";

type ListSource = "tool_search" | "always-loaded" | "session" | "activated";

export interface ListEntry {
  /** The model-facing name: what the model calls. */
  name: string;
  source: ListSource;
  /** The catalog id, null for tool_search and session tools. */
  tool_id: string | null;
  tool: ToolRow;
}

export interface ListParts {
  toolSearch: ListEntry;
  alwaysLoaded: ListEntry[];
  session: ListEntry[];
  activated: ListEntry[];
}

export function composeToolList(parts: ListParts): ListEntry[] {
  const names = new Set<string>();
  const ids = new Set<string>();
  const out: ListEntry[] = [];
  for (const entry of [parts.toolSearch, ...parts.alwaysLoaded, ...parts.session, ...parts.activated]) {
    if (names.has(entry.name) || (entry.tool_id !== null && ids.has(entry.tool_id))) continue;
    names.add(entry.name);
    if (entry.tool_id !== null) ids.add(entry.tool_id);
    out.push(entry);
  }
  return out;
}

export interface ToolSearchContext {
  /** Servers that have at least one deferred tool, sorted. */
  deferredServers: readonly string[];
  /** Searches allowed per turn. */
  budgetCap: number;
  defaultMaxResults: number;
  maxResults: number;
  /** The deployment's `max_query_chars`: the query's maxLength, so a model knows the limit before it hits it. */
  maxQueryChars: number;
}

/** How many server names the description lists before it says "and N more". */
const SERVERS_SHOWN = 30;

/**
 * tool_search's own definition. Its schema says "exactly one of query or tool_id" in words, not
 * with `oneOf`: Anthropic and OpenAI refuse combinators at the top of a tool's input schema, and
 * the service answers 400 when a call gives both or neither. The text depends only on the
 * servers and the budget, not on the tool count, so it stays byte-identical (cache-friendly)
 * while tools are uploaded.
 */
export function toolSearchTool(ctx: ToolSearchContext): ToolRow {
  const servers = ctx.deferredServers;
  const shown = servers.slice(0, SERVERS_SHOWN).join(", ");
  const hint =
    servers.length === 0
      ? "No tools are deferred right now."
      : `More tools exist than are loaded: the tools of ${servers.length === 1 ? "server" : "servers"} ${shown}` +
        `${servers.length > SERVERS_SHOWN ? ` (and ${servers.length - SERVERS_SHOWN} more servers)` : ""} ` +
        `are deferred until you search for them.`;
  const description =
    `Find and load tools that are not in your tool list yet. ${hint} ` +
    "Call this when the task needs something none of your loaded tools can do, before telling the user it cannot be " +
    "done. Give exactly one of `query` (keywords for what you need, e.g. 'create calendar event') or `tool_id` (an " +
    "exact 'server::tool' id, e.g. from the deferred tool list). The tools found are loaded at once: call them from " +
    `your next step on; they stay loaded for the rest of the conversation. You have ${ctx.budgetCap} searches per ` +
    "turn: when a search finds nothing that fits, use a tool you already have or ask the user rather than searching " +
    "again with synonyms.";
  const inputSchema: JsonObject = {
    type: "object",
    properties: {
      query: {
        type: "string",
        maxLength: ctx.maxQueryChars,
        description: "Keywords describing the capability you need. Give this or tool_id, not both.",
      },
      tool_id: {
        type: "string",
        description: "The exact id 'server::tool' of a deferred tool. Give this or query, not both.",
      },
      max_results: {
        type: "integer",
        minimum: 1,
        maximum: ctx.maxResults,
        description: `How many tools to return at most (default ${ctx.defaultMaxResults}).`,
      },
    },
    additionalProperties: false,
  };
  return {
    id: TOOL_SEARCH_NAME,
    server: "",
    name: TOOL_SEARCH_NAME,
    title: "Tool search",
    description,
    inputSchema,
    outputSchema: null,
    annotations: { readOnlyHint: true, openWorldHint: false },
    keywords: [],
    defer: "never",
    vendor: null,
    hash: "",
    modelName: TOOL_SEARCH_NAME,
  };
}
