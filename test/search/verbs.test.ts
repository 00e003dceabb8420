/** A tool whose name does another kind of thing than the request's opening verb ranks lower (verbs.ts). */
import { describe, expect, it } from "vitest";
import { unasked } from "../../src/search/operations.ts";
import { analyze } from "../../src/search/tokenizer.ts";
import { DEFAULT_TUNING, passing, ToolIndex } from "../../src/search/tool-index.ts";
import { askedVerbClass, nameVerbClasses, VERB_CONFLICT, verbFactor } from "../../src/search/verbs.ts";
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
    // With the built-in thesaurus: "get rid of" means delete, not get, so reading tools rank lower, not deleting ones.
    const tables = [
      tool("db", "describe_table", "Describe the columns of a table in the database"),
      tool("db", "drop_table", "Drop a table from the database"),
    ];
    const hits = ToolIndex.fromTools(tables).search("get rid of the sessions table in the database", open);
    expect(hits.find((h) => h.id === "db::describe_table")?.explain?.verb).toBe(VERB_CONFLICT);
    expect(hits.find((h) => h.id === "db::drop_table")?.explain?.verb).toBeUndefined();
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

  it("gives the conflict factor only to a tool with verbs, none of the asked class", () => {
    expect(verbFactor("read", new Set(["create"]), VERB_CONFLICT)).toBe(VERB_CONFLICT);
    expect(verbFactor("read", new Set(["create", "read"]), VERB_CONFLICT)).toBe(1);
    expect(verbFactor("read", new Set(), VERB_CONFLICT)).toBe(1);
    expect(verbFactor(undefined, new Set(["create"]), VERB_CONFLICT)).toBe(1);
  });

  it("ranks the tool that does what the request opens with above those that do something else to the same rows", () => {
    const index = ToolIndex.fromTools(records);
    const query = "list the rows of leads in the table";
    const hits = index.search(query, open);
    expect(hits[0]?.id).toBe("base::list_records");
    const create = hits.find((h) => h.id === "base::create_record")!;
    expect(create.explain?.verb).toBe(VERB_CONFLICT);
    expect(hits.find((h) => h.id === "base::table_schema")?.explain?.verb).toBeUndefined(); // no verb in its name
    // Without the factor, the tools are ordered by their words alone.
    const plain = index.search(query, { ...open, tuning: { ...DEFAULT_TUNING, verbConflict: 1 } });
    const plainCreate = plain.find((h) => h.id === "base::create_record")!;
    expect(create.score).toBeCloseTo(plainCreate.score * VERB_CONFLICT, 9);
    expect(plainCreate.explain?.verb).toBeUndefined();
  });

  it("leaves the no-match decision as it was: a tool counts for its score without the factor", () => {
    const index = ToolIndex.fromTools(records);
    const query = "list the rows of leads in the table";
    const hits = index.search(query, open);
    const create = hits.find((h) => h.id === "base::create_record")!;
    const plain = index.search(query, { ...open, tuning: { ...DEFAULT_TUNING, verbConflict: 1 } });
    const plainCreate = plain.find((h) => h.id === "base::create_record")!;
    expect(create.gate).toBeCloseTo(plainCreate.gate ?? plainCreate.score, 9);
    // At a threshold only the unweighted score reaches, the conflicting tool alone still opens the list.
    const alone = ToolIndex.fromTools([records[0]!, tool("files", "read_file", "Read a file from disk")]);
    const only = alone.search(query, open)[0]!;
    expect(only.id).toBe("base::create_record");
    expect(only.gate!).toBeGreaterThan(only.score);
    const between = (only.score + only.gate!) / 2;
    expect(passing([only], between)).toEqual([only]);
  });

  it("changes no no-match decision: every query of our keyword set matches or not as without it", () => {
    const index = ToolIndex.fromTools(mcpCatalog);
    const plain = { ...DEFAULT_TUNING, verbConflict: 1 };
    let lowered = 0;
    for (const query of mcpQueries) {
      const matched = (tuning = DEFAULT_TUNING) => index.answer(query, { limit: 10, threshold: 1.5, tuning });
      expect(matched().hits.length > 0).toBe(matched(plain).hits.length > 0);
      const withVerbs = index.answer(query, { limit: 10, threshold: 0, explain: true }).hits;
      const without = new Map(
        index.answer(query, { limit: 10, threshold: 0, tuning: plain }).hits.map((h) => [h.id, h.gate ?? h.score]),
      );
      for (const h of withVerbs) if (without.has(h.id)) expect(h.gate ?? h.score).toBeCloseTo(without.get(h.id)!, 9);
      lowered += withVerbs.filter((h) => h.explain?.verb === VERB_CONFLICT).length;
    }
    expect(lowered).toBeGreaterThan(0); // it does apply
  });
});
