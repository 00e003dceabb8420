/**
 * The suggestion rule of the search core (src/search/suggest.ts) on a real catalog: the 754 tools of 67 public MCP
 * servers of eval/mcp-keyword. Chit-chat, acknowledgements, general questions and capabilities the catalog lacks load
 * nothing; a clear request loads its tool; synonyms alone, excluded tools and `max` are honoured.
 */
import { describe, expect, it } from "vitest";
import { compileSynonyms } from "../../src/search/query.ts";
import { SUGGEST_MAX, SUGGEST_THRESHOLD, suggest } from "../../src/search/suggest.ts";
import { DEFAULT_TUNING, ToolIndex } from "../../src/search/tool-index.ts";
import { mcpCatalog } from "./fixtures.ts";

const index = ToolIndex.fromTools(mcpCatalog);
const DEFAULTS = { max: SUGGEST_MAX, threshold: SUGGEST_THRESHOLD };
const suggested = (message: string, options: Partial<Parameters<typeof suggest>[2]> = {}) =>
  suggest(index, message, { ...DEFAULTS, ...options }).map((h) => h.id);

describe("suggest", () => {
  it("loads nothing for chit-chat, acknowledgements and questions no tool answers", () => {
    expect(index.size).toBe(754);
    const messages = [
      "thanks!",
      "thank you, that's perfect",
      "ok",
      "ok great",
      "okay",
      "sounds good, go ahead",
      "hi there",
      "good morning",
      "yes",
      "no, that's all",
      "what is the capital of France",
      "who wrote Hamlet?",
      "tell me a joke",
      "",
      "   ",
      "?!",
    ];
    for (const message of messages) expect(suggested(message), message).toEqual([]);
  });

  it("loads nothing for a capability the catalog lacks", () => {
    for (const message of ["book a flight to Rome", "open a zendesk ticket", "order a pizza for tonight"])
      expect(suggested(message), message).toEqual([]);
  });

  it("loads nothing for an operation no tool offers on a service the catalog has", () => {
    // Datadog's tools read monitors; none creates one. Without the operation rule, get-monitor would be loaded.
    expect(suggested("create a datadog monitor")).toEqual([]);
    const ungated = { tuning: { ...DEFAULT_TUNING, operationShare: 1 } };
    expect(suggested("create a datadog monitor", ungated)).toEqual(["datadog::get-monitor"]);
  });

  it("loads the tool a clear request names", () => {
    expect(suggested("merge pull request 42 in acme/web")).toEqual(["github::merge_pull_request"]);
    expect(suggested("take a screenshot of example.com")).toEqual(["playwright::browser_take_screenshot"]);
  });

  it("honours max, the threshold and the excluded tools, and never suggests through synonyms alone", () => {
    const message = "merge pull request 42 in acme/web";
    expect(suggested(message, { max: 0 })).toEqual([]);
    expect(suggested(message, { threshold: 50 })).toEqual([]);
    // The best tool excluded (already active): the next ones are far from its score, so nothing else is suggested.
    expect(suggested(message, { exclude: new Set(["github::merge_pull_request"]) })).toEqual([]);
    // A word the catalog lacks, mapped by a tenant synonym onto a tool's words: found by search, never suggested.
    const synonyms = compileSynonyms({ zorbify: ["merge pull request"] });
    const hits = index.search("zorbify", { limit: 3, threshold: 0, synonyms });
    expect(hits[0]).toMatchObject({ id: "github::merge_pull_request", match: "synonyms" });
    expect(suggested("zorbify", { synonyms, threshold: 0 })).toEqual([]);
  });
});
