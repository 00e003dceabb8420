/**
 * Which tools are always in the model's tool list, derived from the declarations on the rows
 * every time (never kept as a second list that could drift from them).
 *
 * A tool is always loaded when its own `defer` is "never", or its server's `defer_tools` is
 * "never", or it says nothing (`defer` null) and the tenant's `default_defer` is "never".
 * Everything else is deferred: reachable through tool_search only.
 */
import type { Defer } from "../catalog/tool.ts";

export interface DeferFacts {
  /** The tool's own declaration; null when it said nothing. */
  defer: Defer | null;
  /** Its server's `defer_tools`; null when the server has no row (treated as "auto"). */
  serverDefer: Defer | null;
}

export function isAlwaysLoaded(tool: DeferFacts, tenantDefault: Defer): boolean {
  return tool.defer === "never" || tool.serverDefer === "never" || (tool.defer === null && tenantDefault === "never");
}

/**
 * A session's own always-loaded tools: the tenant's, plus the tools a custom agent names
 * (`inline`), unless that agent opted into `deferred_tool_loading`, which sends its named tools
 * back to search. Order: the tenant's first, then named tools in the order given; no repeats.
 */
export function sessionAlwaysLoaded(
  tenant: readonly string[],
  inline: readonly string[],
  deferredToolLoading: boolean,
): string[] {
  if (deferredToolLoading || inline.length === 0) return [...tenant];
  return [...new Set([...tenant, ...inline])];
}
