/** Names that say what was asked: a short query ranks the tools naming its words first; the decision is unchanged. */
import { describe, expect, it } from "vitest";
import { NAME_COVERAGE, NAME_EXTRA, NAMING_QUERY_WORDS } from "../../src/search/naming.ts";
import { DEFAULT_TUNING, ToolIndex } from "../../src/search/tool-index.ts";
import { mcpCatalog, mcpQueries, tool } from "./fixtures.ts";

const THRESHOLD = 1.5;
const unnamed = { ...DEFAULT_TUNING, nameCoverage: 0, nameExtra: 0 };
const pulls = [
  tool("github", "list_pull_requests", "List the pull requests of a repository"),
  tool("github", "create_pull_request", "Create a new pull request in a repository"),
  tool("github", "get_file_contents", "Get the contents of a file in a repository"),
];

describe("names that say what was asked", () => {
  it("ranks the tool whose name holds a short query's words, through a synonym, above one that mentions them", () => {
    const index = ToolIndex.fromTools(mcpCatalog);
    // In the catalog of 754 real tools, by BM25F alone another tool comes first; the right one names the request:
    // `create_record` says the operation ("add" reaches `create` through the thesaurus) and the object (a row is a
    // record); `slack_get_thread_replies` says "thread" and "replies". Measured with the thesaurus at its base weight
    // in both: at the short-query weight (SHORT_EXPANSION_FACTOR) "add" -> `create` alone puts `create_record` first,
    // and the opening verb's class (verbs.ts) alone puts the reading tool above those that post.
    const base = { ...DEFAULT_TUNING, shortExpansionFactor: 1, verbBoost: 1, serviceBoost: 1 };
    for (const [query, right] of [
      ["add a row to airtable", "airtable::create_record"],
      ["read the replies in a slack thread", "slack::slack_get_thread_replies"],
    ]) {
      const plain = index.answer(query!, {
        limit: 10,
        threshold: 0,
        tuning: { ...base, nameCoverage: 0, nameExtra: 0 },
      }).hits;
      expect(plain[0]?.id).not.toBe(right);
      const named = index.answer(query!, { limit: 3, threshold: 0, explain: true, tuning: base }).hits;
      expect(named[0]?.id).toBe(right);
      const factor = named[0]!.explain!.naming!;
      expect(factor).toBeGreaterThan(1);
      expect(factor).toBeLessThanOrEqual(1 + NAME_COVERAGE);
      // It ranks by its score; the decision takes the score it had without the factor.
      expect(named[0]!.gate).toBeLessThan(named[0]!.score);
      expect(named[0]!.gate).toBeCloseTo(plain.find((h) => h.id === right)!.score, 9);
      expect(named[0]!.explain!.gate).toBe(named[0]!.gate);
    }
  });

  it("ranks a name that says no more than was asked above one that says more", () => {
    // In the catalog of real tools, "make a new folder" reaches `create` ("make") and `directory` ("folder") through
    // the thesaurus. `create_directory` names both; `paddle::create_customer`, whose words matched more strongly,
    // names `create` and says `customer`, which was not asked.
    const index = ToolIndex.fromTools(mcpCatalog);
    const query = "make a new folder";
    const without = { ...DEFAULT_TUNING, nameExtra: 0 };
    const hits = (tuning = DEFAULT_TUNING) =>
      index.answer(query, { limit: 10, threshold: 0, explain: true, tuning }).hits;
    expect(hits(without)[0]?.id).toBe("paddle::create_customer");
    expect(hits()[0]?.id).toBe("filesystem::create_directory");
    // Each word more costs NAME_EXTRA of the naming factor; a name within what was asked costs nothing.
    const factors = (tuning = DEFAULT_TUNING) => new Map(hits(tuning).map((h) => [h.id, h.explain!.naming ?? 1]));
    const [plain, named] = [factors(without), factors()];
    expect(named.get("filesystem::create_directory")).toBe(plain.get("filesystem::create_directory"));
    expect(named.get("paddle::create_customer")).toBeCloseTo(
      plain.get("paddle::create_customer")! * (1 - NAME_EXTRA),
      12,
    );
  });

  it("counts a word reached through a synonym as asked, and never takes a name's factor below 1", () => {
    // "open a pull request in a repository" reaches `create` through the thesaurus: `create_pull_request` says
    // nothing more than was asked, while `list_pull_requests` says "list". `get_file_contents` names none of the
    // query's words: its factor would fall below 1, and stays at 1 (a factor that only ranks never puts a score below
    // what decides the match).
    const index = ToolIndex.fromTools(pulls);
    const factors = (tuning = DEFAULT_TUNING) =>
      new Map(
        index
          .answer("open a pull request in a repository", { limit: 3, threshold: 0, explain: true, tuning })
          .hits.map((h) => [h.id, h.explain!.naming ?? 1]),
      );
    const [plain, named] = [factors({ ...DEFAULT_TUNING, nameExtra: 0 }), factors()];
    expect(named.get("github::create_pull_request")).toBe(plain.get("github::create_pull_request"));
    expect(plain.get("github::list_pull_requests")).toBeGreaterThan(1);
    expect(named.get("github::list_pull_requests")).toBeCloseTo(
      plain.get("github::list_pull_requests")! * (1 - NAME_EXTRA),
      12,
    );
    expect(named.get("github::get_file_contents")).toBe(1);
  });

  it("leaves longer queries as they were", () => {
    const index = ToolIndex.fromTools(pulls);
    const query = "please open a new pull request for the branch I just pushed to the repository";
    expect(query.split(" ").length).toBeGreaterThan(NAMING_QUERY_WORDS);
    const scores = (tuning = DEFAULT_TUNING) =>
      index.answer(query, { limit: 5, threshold: 0, explain: true, tuning }).hits.map((h) => [h.id, h.score]);
    expect(scores()).toEqual(scores(unnamed));
    const hits = index.answer(query, { limit: 5, threshold: 0, explain: true }).hits;
    expect(hits.every((h) => h.explain?.naming === undefined && h.gate === undefined)).toBe(true);
  });

  it("changes no no-match decision: every query of our keyword set matches or not as without it", () => {
    const index = ToolIndex.fromTools(mcpCatalog);
    let reordered = 0;
    for (const query of mcpQueries) {
      // The service's own decision, on its whole candidate pool.
      const matched = (tuning = DEFAULT_TUNING) => index.answer(query, { limit: 10, threshold: THRESHOLD, tuning });
      expect(matched().hits.length > 0).toBe(matched(unnamed).hits.length > 0);
      const withNames = index.answer(query, { limit: 10, threshold: 0 }).hits;
      const without = index.answer(query, { limit: 10, threshold: 0, tuning: unnamed }).hits;
      // Each tool counts in the decision for what it counted without the factor.
      const decides = new Map(without.map((h) => [h.id, h.gate ?? h.score]));
      for (const h of withNames) if (decides.has(h.id)) expect(h.gate ?? h.score).toBeCloseTo(decides.get(h.id)!, 9);
      if (withNames[0]?.id !== without[0]?.id) reordered++;
    }
    expect(reordered).toBeGreaterThan(0); // it does change rankings
  });
});
