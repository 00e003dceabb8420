/**
 * The first results of a search do not depend on how many it asks for: coverage and server context reorder a fixed
 * number of candidates (at least the default max_results limit), not a number that grows with `limit`. Checked on a
 * real catalog (the 754 tools of 67 public MCP servers of eval/mcp-keyword) with every query of that set.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_LIMITS } from "../../src/config/limits.ts";
import { DEFAULT_TUNING, ToolIndex } from "../../src/search/tool-index.ts";
import { mcpCatalog, mcpQueries } from "./fixtures.ts";

const index = ToolIndex.fromTools(mcpCatalog);

const ids = (query: string, limit: number) => index.search(query, { limit, threshold: 1.5 }).map((h) => h.id);

describe("results and the number asked for", () => {
  it("reorders at least as many candidates as the largest max_results", () => {
    expect(DEFAULT_TUNING.candidates).toBeGreaterThanOrEqual(DEFAULT_LIMITS.max_results);
  });

  it("gives the same first k results for k = 1, 3 and 10 as a search for the most results", () => {
    expect(mcpQueries.length).toBeGreaterThan(300);
    const differing = mcpQueries.filter((query) => {
      const all = ids(query, DEFAULT_LIMITS.max_results);
      return [1, 3, 10].some((k) => JSON.stringify(ids(query, k)) !== JSON.stringify(all.slice(0, k)));
    });
    expect(differing).toEqual([]);
  });
});
