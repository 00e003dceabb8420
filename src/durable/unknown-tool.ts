/**
 * The 404 for a tool id the catalog does not hold, with near misses a model can retry with: the
 * same name on other servers first (a wrong server is the usual slip), then the best matches of
 * the id's words.
 */
import { parseToolId } from "../catalog/tool.ts";
import { fail, type ApiError } from "../errors.ts";
import type { ToolIndex } from "../search/tool-index.ts";

export function unknownTool(index: ToolIndex, id: string): { ok: false; error: ApiError } {
  const name = parseToolId(id)?.name ?? id.split("::").pop() ?? id;
  // An infinite threshold keeps only exact-name and name-tail matches.
  const sameName = index.search(name, { limit: 5, threshold: Infinity }).map((h) => h.id);
  const similar = index.search(id, { limit: 5, threshold: 0 }).map((h) => h.id);
  const suggestions = [...new Set([...sameName, ...similar])].filter((s) => s !== id).slice(0, 5);
  const hint = suggestions.length
    ? ` Did you mean: ${suggestions.join(", ")}?`
    : " Search with a query to find the right id.";
  return fail("not-found", `No tool '${id}' in this catalog.${hint}`, { suggestions });
}
