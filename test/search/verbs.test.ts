/** A tool whose name does another kind of thing than the request's opening verb ranks below the others (verbs.ts). */
import { describe, expect, it } from "vitest";
import { noMatchMessage } from "../../src/search/no-match.ts";
import { unasked } from "../../src/search/operations.ts";
import { analyze } from "../../src/search/tokenizer.ts";
import { DEFAULT_TUNING, passing, ToolIndex } from "../../src/search/tool-index.ts";
import { askedVerbClass, nameVerbClasses, VERB_BOOST, verbFactor } from "../../src/search/verbs.ts";
import { mcpCatalog, mcpQueries, tool } from "./fixtures.ts";

const asked = (query: string) => askedVerbClass(query, analyze, (opening) => unasked(opening, analyze));

// The same nouns on every tool: only the verbs in their names tell them apart.
const records = [
  tool("base", "create_record", "Create a record in a table of a base: rows of leads, contacts or tasks"),
  tool("base", "list_records", "List the records in a table of a base: rows of leads, contacts or tasks"),
  tool("base", "delete_record", "Delete a record from a table of a base: rows of leads, contacts or tasks"),
  tool("base", "table_schema", "The fields of a table of a base: rows of leads, contacts or tasks"),
];
const open = { limit: 4, threshold: 0, explain: true } as const;

describe("the request's opening verb against a tool's name", () => {
  it("reads the class of the first word a request keeps, a question as a read unless a verb follows", () => {
    expect(asked("List the rows in the Leads table")).toBe("read");
    expect(asked("Could you please add a row to the Leads table?")).toBe("create");
    expect(asked("Post the weekly summary to #general")).toBe("send");
    expect(asked("what pods are running in payments")).toBe("read");
    expect(asked("how do I create a repository")).toBe("create");
    expect(asked("remove the stale branch")).toBe("delete");
    expect(asked("rename the channel to incidents")).toBe("update");
  });

  it("reads a phrasal verb as a whole, through what its multi-word synonym keys expand to", () => {
    const turn = analyze("turn")[0]!;
    const expansions = (term: string) => (term === turn ? analyze("disable deactivate") : []);
    const unaskedIn = (opening: string) => unasked(opening, analyze);
    expect(askedVerbClass("turn off the onboarding flag", analyze, unaskedIn, expansions)).toBe("update");
    expect(askedVerbClass("turn off the onboarding flag", analyze, unaskedIn)).toBeUndefined();
    // With the built-in thesaurus: "get rid of" means delete, not get, so deleting tools rank higher, not reading ones.
    const tables = [
      tool("db", "describe_table", "Describe the columns of a table in the database"),
      tool("db", "drop_table", "Drop a table from the database"),
    ];
    const hits = ToolIndex.fromTools(tables).search("get rid of the sessions table in the database", open);
    expect(hits.find((h) => h.id === "db::describe_table")?.explain?.verb).toBeUndefined();
    expect(hits.find((h) => h.id === "db::drop_table")?.explain?.verb).toBe(VERB_BOOST);
  });

  it("asks for nothing when the request opens with a noun, a participle or another verb", () => {
    expect(asked("top posts on r/programming this week")).toBeUndefined();
    expect(asked("merged pull requests")).toBeUndefined(); // a state, not a request to merge
    expect(asked("the deploy failed last night")).toBeUndefined();
    expect(asked("sync the storefront app")).toBeUndefined(); // a verb of no class
    expect(asked("")).toBeUndefined();
  });

  it("finds the classes of the verbs in a tool's name, whatever its case or separators", () => {
    expect([...nameVerbClasses("create_record", analyze)]).toEqual(["create"]);
    expect([...nameVerbClasses("hubspot-batch-create-objects", analyze)]).toEqual(["create"]);
    expect([...nameVerbClasses("getFlagStatus", analyze)]).toEqual(["read"]);
    expect([...nameVerbClasses("weather_forecast", analyze)]).toEqual([]);
  });

  it("boosts every tool but one whose name's verbs are all of another class, and none when no class is asked", () => {
    expect(verbFactor("read", new Set(["create"]), VERB_BOOST)).toBe(1);
    expect(verbFactor("read", new Set(["create", "read"]), VERB_BOOST)).toBe(VERB_BOOST);
    expect(verbFactor("read", new Set(), VERB_BOOST)).toBe(VERB_BOOST);
    expect(verbFactor(undefined, new Set(["create"]), VERB_BOOST)).toBe(1);
    expect(verbFactor(undefined, new Set(), VERB_BOOST)).toBe(1);
  });

  it("ranks the tool that does what the request opens with above those that do something else to the same rows", () => {
    const index = ToolIndex.fromTools(records);
    const query = "list the rows of leads in the table";
    const hits = index.search(query, open);
    expect(hits[0]?.id).toBe("base::list_records");
    const create = hits.find((h) => h.id === "base::create_record")!;
    expect(create.explain?.verb).toBeUndefined(); // it does another thing: no boost
    expect(hits.find((h) => h.id === "base::table_schema")?.explain?.verb).toBe(VERB_BOOST); // no verb in its name
    // Without the factor, the tools are ordered by their words alone.
    const plain = index.search(query, { ...open, tuning: { ...DEFAULT_TUNING, verbBoost: 1 } });
    const score = (list: typeof hits, id: string) => list.find((h) => h.id === id)!.score;
    expect(score(hits, "base::list_records")).toBeCloseTo(score(plain, "base::list_records") * VERB_BOOST, 9);
    expect(create.score).toBeCloseTo(score(plain, "base::create_record"), 9);
    expect(plain.every((h) => h.explain?.verb === undefined)).toBe(true);
  });

  it("leaves the no-match decision as it was: a tool counts for its score without the factor", () => {
    const index = ToolIndex.fromTools(records);
    const query = "list the rows of leads in the table";
    const hits = index.search(query, open);
    const list = hits.find((h) => h.id === "base::list_records")!;
    const plain = index.search(query, { ...open, tuning: { ...DEFAULT_TUNING, verbBoost: 1 } });
    const plainList = plain.find((h) => h.id === "base::list_records")!;
    expect(list.gate).toBeCloseTo(plainList.gate ?? plainList.score, 9);
    // A boosted tool's shown score is above what decided its match, never under it: at a threshold between the
    // two it is no match, as it was without the factor.
    expect(list.score).toBeGreaterThan(list.gate!);
    const between = (list.score + list.gate!) / 2;
    expect(passing([list], between)).toEqual([]);
    expect(passing([plainList], between)).toEqual([]);
    // The no-match message names it as a near miss by what it counted for, not by its higher rank score.
    const only = ToolIndex.fromTools([records[1]!]);
    const [alone] = only.search(query, open);
    const threshold = (alone!.score + alone!.gate!) / 2;
    const miss = only.answer(query, { limit: 4, threshold });
    expect(miss.hits).toEqual([]);
    const shown = Math.round(alone!.gate! * 10_000) / 10_000;
    expect(noMatchMessage(query, threshold, miss, 1)).toContain(`Closest: base::list_records (${shown})`);
  });

  it("changes no no-match decision: every query of our keyword set matches or not as without it", () => {
    const index = ToolIndex.fromTools(mcpCatalog);
    const plain = { ...DEFAULT_TUNING, verbBoost: 1 };
    let boosted = 0;
    for (const query of mcpQueries) {
      const matched = (tuning = DEFAULT_TUNING) => index.answer(query, { limit: 10, threshold: 1.5, tuning });
      expect(matched().hits.length > 0).toBe(matched(plain).hits.length > 0);
      const withVerbs = index.answer(query, { limit: 10, threshold: 0, explain: true }).hits;
      const without = new Map(
        index.answer(query, { limit: 10, threshold: 0, tuning: plain }).hits.map((h) => [h.id, h.gate ?? h.score]),
      );
      for (const h of withVerbs) if (without.has(h.id)) expect(h.gate ?? h.score).toBeCloseTo(without.get(h.id)!, 9);
      boosted += withVerbs.filter((h) => h.explain?.verb === VERB_BOOST).length;
    }
    expect(boosted).toBeGreaterThan(0); // it does apply
  });
});
