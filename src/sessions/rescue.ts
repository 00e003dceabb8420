/**
 * Refusals that name the way out. A model told only "no" tends to lose the whole turn; one told
 * which call fixes it spends one extra step.
 */

/** How many callable names a rescue message lists before it says "and N more". */
export const RESCUE_NAMES_SHOWN = 50;

/**
 * `Tool 'X' not in active set. Call tool_search(query='X') to discover it, or use one of: a, b`
 * where the names are what the model can call right now without searching.
 */
export function notActiveMessage(name: string, callable: readonly string[]): string {
  const base = `Tool '${name}' not in active set. Call tool_search(query='${name}') to discover it`;
  if (callable.length === 0) return `${base}.`;
  const shown = callable.slice(0, RESCUE_NAMES_SHOWN).join(", ");
  const more = callable.length > RESCUE_NAMES_SHOWN ? ` (and ${callable.length - RESCUE_NAMES_SHOWN} more)` : "";
  return `${base}, or use one of: ${shown}${more}`;
}

/** Several active tools share the bare name given: the caller must say which. */
export function ambiguousNameMessage(name: string, toolIds: readonly string[]): string {
  return (
    `Several active tools are named '${name}': ${toolIds.join(", ")}. Call resolve again ` +
    `with one of these tool ids or its model-facing name.`
  );
}

export function unknownSessionMessage(sessionId: string, tenant: string): string {
  return (
    `No session '${sessionId}' in tenant '${tenant}': it ended (DELETE), expired (sessions end after ttl_seconds ` +
    `without a call that names them) or was never created. Create one with POST /v1/tenants/${tenant}/sessions, ` +
    `then rebuild the tool list with GET /v1/tenants/${tenant}/sessions/{id}/tools.`
  );
}
