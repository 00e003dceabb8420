/** Operations the catalog lacks: a short query's operation, held by no tool, makes no match (operations.ts). */
import { describe, expect, it } from "vitest";
import { OPERATION_SHARE, OPERATION_WORDS } from "../../src/search/operations.ts";
import { analyze } from "../../src/search/tokenizer.ts";
import { DEFAULT_TUNING, ToolIndex } from "../../src/search/tool-index.ts";
import { tool } from "./fixtures.ts";

const THRESHOLD = 1.5;
const pages = [
  tool("confluence", "get_page", "Get a Confluence page by its id"),
  tool("confluence", "create_page", "Create a Confluence page in a space"),
  tool("confluence", "update_page", "Update the title or body of a Confluence page"),
  tool("confluence", "search", "Search Confluence content with CQL"),
  tool("github", "create_issue", "Create an issue in a GitHub repository"),
  tool("github", "list_issues", "List the issues of a GitHub repository"),
  tool("slack", "post_message", "Post a message to a Slack channel"),
  tool("files", "read_file", "Read a file from disk"),
];
const open = { limit: 5, threshold: THRESHOLD, explain: true } as const;

describe("operations the catalog lacks", () => {
  it("answers no match when no tool holds the operation a short query asks for, and says why", () => {
    const index = ToolIndex.fromTools(pages);
    const answer = index.answer("delete a confluence page", open);
    expect(answer.hits).toEqual([]);
    const closest = answer.closest[0]!;
    expect(closest.id).toMatch(/^confluence::/);
    expect(closest.score).toBeGreaterThanOrEqual(THRESHOLD); // the service and the noun alone would have passed
    expect(closest.gate).toBeCloseTo(closest.score * OPERATION_SHARE, 12);
    expect(closest.explain?.gate).toBe(closest.gate);
  });

  it("answers as before when a tool holds the operation, itself or through a synonym", () => {
    const withDelete = [...pages, tool("confluence", "delete_page", "Delete a Confluence page")];
    expect(ToolIndex.fromTools(withDelete).answer("delete a confluence page", open).hits[0]?.id).toBe(
      "confluence::delete_page",
    );
    // "remove" is a synonym of delete: the tool that deletes holds it.
    expect(ToolIndex.fromTools(withDelete).answer("remove a confluence page", open).hits[0]?.id).toBe(
      "confluence::delete_page",
    );
    // The operation is there: the gate does not apply to the tool that has it.
    const found = ToolIndex.fromTools(pages).answer("create a confluence page", open);
    expect(found.hits[0]).toMatchObject({ id: "confluence::create_page" });
    expect(found.hits[0]?.gate).toBeUndefined();
  });

  it("leaves queries without an operation, and longer requests, to the threshold alone", () => {
    const index = ToolIndex.fromTools(pages);
    // Reading is not an operation word: every catalog reads.
    expect(OPERATION_WORDS.has(analyze("get")[0]!)).toBe(false);
    expect(index.answer("confluence page", open).hits[0]?.id).toMatch(/^confluence::/);
    const long = "please delete the confluence page about the old onboarding process we wrote last year";
    const hits = index.answer(long, { limit: 5, threshold: 0 }).hits;
    expect(hits[0]?.id).toMatch(/^confluence::/);
    expect(hits.every((h) => h.gate === undefined)).toBe(true);
    // The same operation in four words is judged: the tools that hold no `delete` carry a gate.
    expect(index.answer("delete confluence onboarding page", { limit: 5, threshold: 0 }).hits[0]?.gate).toBeDefined();
  });

  it("ranks exactly as without the gate: only the no-match decision changes", () => {
    const index = ToolIndex.fromTools(pages);
    for (const query of ["delete a confluence page", "archive a slack channel", "close a github issue"]) {
      const gated = index.answer(query, { limit: 5, threshold: 0 }).hits.map((h) => [h.id, h.score]);
      const ungated = index
        .answer(query, { limit: 5, threshold: 0, tuning: { ...DEFAULT_TUNING, operationShare: 1 } })
        .hits.map((h) => [h.id, h.score]);
      expect(gated).toEqual(ungated);
    }
  });
});
