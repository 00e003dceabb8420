/** Learning from use on the search core: the credit rules, decay, and the usage field as the ranker scores it. */
import { describe, expect, it } from "vitest";
import {
  applyCredit,
  CREDIT_TERMS,
  creditTerms,
  dayOf,
  decayed,
  mayCredit,
  RECORD_TERMS,
  SESSION_CREDITS,
  searchTerms,
  TF_BOUND,
  TOOL_TERMS,
  usageTf,
  WEIGHT_FLOOR,
} from "../../src/search/learning.ts";
import { DEFAULT_BM25F } from "../../src/search/ranker.ts";
import { ToolIndex } from "../../src/search/tool-index.ts";
import { stem } from "../../src/search/tokenizer.ts";
import { tool } from "./fixtures.ts";

const catalog = [
  tool("github", "merge_pull_request", "Merge a pull request into its base branch"),
  tool("github", "create_issue", "Create a new issue in a repository"),
  tool("github", "list_issues", "List the issues of a repository"),
  tool("fs", "read_file", "Read the contents of a file"),
  tool("fs", "write_file", "Write text to a file"),
  tool("weather", "get_forecast", "Weather forecast for a city"),
];

const DAY = 20_000;
const terms = (...list: string[]) => list.map(stem);

describe("the words a search records", () => {
  it("are its analysed words, each once, without words that name nothing", () => {
    expect(searchTerms("Open a PR for issue 42, then open the pull requests list (x)")).toEqual(
      terms("open", "pr", "issue", "pull", "requests", "list"),
    );
    expect(searchTerms("the and of")).toEqual([]);
  });

  it("are at most RECORD_TERMS, the first ones", () => {
    const letters = (i: number) => String.fromCharCode(97 + Math.floor(i / 26), 97 + (i % 26));
    const words = Array.from({ length: RECORD_TERMS + 10 }, (_, i) => `word${letters(i)}`);
    const recorded = searchTerms(words.join(" "));
    expect(recorded).toHaveLength(RECORD_TERMS);
    expect(recorded[0]).toBe(searchTerms(words[0]!)[0]);
  });
});

describe("the words a credit gives", () => {
  it("are the turn's records, latest first, each once, at most CREDIT_TERMS", () => {
    expect(
      creditTerms([
        ["open", "pr"],
        ["merg", "pull", "request", "pr"],
      ]),
    ).toEqual(["merg", "pull", "request", "pr", "open"]);
    const many = Array.from({ length: 3 }, (_, r) => Array.from({ length: 30 }, (_, i) => `t${r}x${i}`));
    const given = creditTerms(many);
    expect(given).toHaveLength(CREDIT_TERMS);
    expect(given.slice(0, 30)).toEqual(many[2]);
  });

  it("come once per (session, turn, tool) and at most SESSION_CREDITS times per session", () => {
    expect(mayCredit(false, 0)).toBe(true);
    expect(mayCredit(true, 0)).toBe(false);
    expect(mayCredit(false, SESSION_CREDITS - 1)).toBe(true);
    expect(mayCredit(false, SESSION_CREDITS)).toBe(false);
  });
});

describe("a tool's learned terms", () => {
  it("add 1 per credit to each credited term, strongest first", () => {
    const once = applyCredit([], DAY, ["open", "pr"], DAY, 30);
    const twice = applyCredit(once, DAY, ["pr", "merg"], DAY, 30);
    expect(twice).toEqual([
      { term: "pr", weight: 2 },
      { term: "merg", weight: 1 },
      { term: "open", weight: 1 },
    ]);
  });

  it("decay by half every half-life, in whole days, before the new credit is added", () => {
    expect(decayed(4, DAY, DAY + 30, 30)).toBeCloseTo(2, 12);
    expect(decayed(4, DAY, DAY + 10, 10)).toBeCloseTo(2, 12);
    expect(decayed(4, DAY, DAY, 30)).toBe(4);
    expect(dayOf(DAY * 86_400_000 + 86_399_999)).toBe(DAY);
    const later = applyCredit([{ term: "pr", weight: 2 }], DAY, ["pr", "open"], DAY + 30, 30);
    expect(later[0]!.term).toBe("pr");
    expect(later[0]!.weight).toBeCloseTo(2, 12);
    expect(later[1]).toEqual({ term: "open", weight: 1 });
  });

  it("drop what decayed below the floor", () => {
    const halfLives = Math.ceil(Math.log2(1 / WEIGHT_FLOOR));
    expect(applyCredit([{ term: "old", weight: 1 }], DAY, ["new"], DAY + 30 * halfLives, 30)).toEqual([
      { term: "new", weight: 1 },
    ]);
  });

  it("keep the TOOL_TERMS strongest: on equal weight, this credit's words", () => {
    const name = (i: number) => `old${String(i).padStart(3, "0")}`;
    const old = Array.from({ length: TOOL_TERMS }, (_, i) => ({ term: name(i), weight: i === 0 ? 3 : 1 }));
    const next = applyCredit(old, DAY, ["fresh"], DAY, 30);
    expect(next).toHaveLength(TOOL_TERMS);
    expect(next[0]).toEqual({ term: name(0), weight: 3 });
    expect(next[1]).toEqual({ term: "fresh", weight: 1 });
    // Then the equal old ones by term: the last of them is the one that goes.
    expect(next.map((t) => t.term)).toEqual([name(0), "fresh", ...old.slice(1, TOOL_TERMS - 1).map((t) => t.term)]);
  });
});

describe("the usage field's term frequency", () => {
  it("grows like log2(1 + weight / 8), up to TF_BOUND, and is 0 below the floor", () => {
    expect(usageTf(8)).toBeCloseTo(1, 12);
    expect(usageTf(24)).toBeCloseTo(2, 12);
    expect(usageTf(1)).toBeCloseTo(Math.log2(1.125), 12);
    expect(usageTf(1e6)).toBe(TF_BOUND);
    expect(usageTf(WEIGHT_FLOOR / 2)).toBe(0);
  });
});

// The built-in thesaurus is off in these searches: they are about what tools learned, on words no synonym covers.
describe("the usage field in search", () => {
  const learnedIndex = () => {
    const index = ToolIndex.fromTools(catalog);
    index.setLearned("github::merge_pull_request", { day: DAY, terms: [{ term: "pr", weight: 8 }] }, 1);
    return index;
  };

  it("finds a tool by words its own text lacks, and explain shows the usage field", () => {
    const index = learnedIndex();
    expect(
      ToolIndex.fromTools(catalog).search("open a PR", { limit: 5, threshold: 0, day: DAY, builtinSynonyms: false }),
    ).toEqual([]);
    const [hit] = index.search("open a PR", {
      limit: 5,
      threshold: 0,
      day: DAY,
      explain: true,
      builtinSynonyms: false,
    });
    expect(hit!.id).toBe("github::merge_pull_request");
    expect(hit!.explain!.fields).toEqual({ usage: ["pr"] });
    const part = hit!.explain!.terms[0]!;
    expect(part.tf).toEqual({ usage: 1 });
    // Only tool holding "pr" anywhere: idf of n = 1; usage weight 1, tf 1, no BM25+ floor for a usage-only term.
    const idf = Math.log(1 + (catalog.length - 1 + 0.5) / 1.5);
    expect(part.idf).toBeCloseTo(idf, 12);
    const k1 = DEFAULT_BM25F.k1;
    expect(part.score * hit!.explain!.unit).toBeCloseTo((idf * (k1 + 1) * 1) / (k1 + 1), 12);
    expect(hit!.score).toBeCloseTo(part.score, 12);
  });

  it("joins the text's term frequency before saturation (BM25F), with the text's BM25+ floor", () => {
    const index = ToolIndex.fromTools(catalog);
    const query = { limit: 1, threshold: 0, day: DAY, explain: true, builtinSynonyms: false } as const;
    const [plain] = index.search("merge", query);
    index.setLearned("github::merge_pull_request", { day: DAY, terms: [{ term: stem("merge"), weight: 24 }] }, 1);
    const [learned] = index.search("merge", query);
    const before = plain!.explain!.terms[0]!;
    const after = learned!.explain!.terms[0]!;
    expect(after.tf).toEqual({ ...before.tf, usage: 2 });
    expect(after.idf).toBe(before.idf); // one tool holds it in its text and its usage
    const { k1, delta } = DEFAULT_BM25F;
    const part = (tf: number) => before.idf * (((k1 + 1) * tf) / (k1 + tf) + delta);
    // Recover the text's weighted tf from its part, add the usage field's, saturate once.
    const textTf =
      (k1 * ((before.score * plain!.explain!.unit) / before.idf - delta)) /
      (k1 + 1 - ((before.score * plain!.explain!.unit) / before.idf - delta));
    expect(before.score * plain!.explain!.unit).toBeCloseTo(part(textTf), 9);
    expect(after.score * learned!.explain!.unit).toBeCloseTo(part(textTf + 2), 9);
  });

  it("counts a word's document frequency as max(tools with it in their text, tools with it in their usage)", () => {
    const index = ToolIndex.fromTools(catalog);
    for (const id of ["fs::read_file", "fs::write_file", "weather::get_forecast"])
      index.setLearned(
        id,
        {
          day: DAY,
          terms: [
            { term: "pr", weight: 1 },
            { term: stem("issues"), weight: 1 },
          ],
        },
        1,
      );
    const hits = index.search("pr", { limit: 5, threshold: 0, day: DAY, explain: true, builtinSynonyms: false });
    expect(hits).toHaveLength(3);
    expect(hits[0]!.explain!.terms[0]!.idf).toBeCloseTo(Math.log(1 + (6 - 3 + 0.5) / 3.5), 12);
    // "issue" is in two tools' text and three tools' usage: n = 3.
    const issue = index.search("issues", { limit: 6, threshold: 0, day: DAY, explain: true, builtinSynonyms: false });
    expect(issue[0]!.explain!.terms[0]!.idf).toBeCloseTo(Math.log(1 + (6 - 3 + 0.5) / 3.5), 12);
  });

  it("decays with the search's day and the half-life", () => {
    const index = learnedIndex();
    const at = (day: number, halfLifeDays = 30) =>
      index.search("pr", { limit: 1, threshold: 0, day, halfLifeDays, explain: true, builtinSynonyms: false })[0]
        ?.explain?.terms[0]?.tf.usage;
    expect(at(DAY)).toBeCloseTo(1, 12);
    expect(at(DAY + 30)).toBeCloseTo(Math.log2(1 + 4 / 8), 12);
    expect(at(DAY + 10, 10)).toBeCloseTo(Math.log2(1 + 4 / 8), 12);
    expect(at(DAY + 30 * 8)).toBeUndefined(); // 8 / 2^8 is below the floor: found by nothing
  });

  it("forgotten, or weighted 0, leaves every score exactly as without learning", () => {
    const queries = ["open a PR", "merge the pull request", "read a file", "issues of a repository", "pr"];
    const plain = ToolIndex.fromTools(catalog);
    const answer = (index: ToolIndex, params = DEFAULT_BM25F) =>
      queries.map((q) =>
        index.search(q, { limit: 6, threshold: 0, day: DAY, params, explain: true, builtinSynonyms: false }),
      );
    const index = learnedIndex();
    index.setLearned("fs::read_file", { day: DAY, terms: [{ term: "file", weight: 9 }] }, 2);
    expect(answer(index)).not.toEqual(answer(plain));
    const off = { ...DEFAULT_BM25F, fields: { ...DEFAULT_BM25F.fields, usage: { weight: 0, b: 0 } } };
    expect(answer(index, off)).toEqual(answer(plain, off));
    index.loadLearned([], 3);
    expect(answer(index)).toEqual(answer(plain));
    expect(index.learnedTools).toBe(0);
  });

  it("goes with a tool that is removed, stays with one whose text is replaced", () => {
    const index = learnedIndex();
    index.upsert([tool("github", "merge_pull_request", "Merge a change into the base branch")]);
    expect(index.search("pr", { limit: 1, threshold: 0, day: DAY, builtinSynonyms: false })[0]!.id).toBe(
      "github::merge_pull_request",
    );
    index.remove(["github::merge_pull_request"]);
    expect(index.learnedTools).toBe(0);
    index.upsert([catalog[0]!]);
    expect(index.search("pr", { limit: 1, threshold: 0, day: DAY, builtinSynonyms: false })).toEqual([]);
  });

  it("is in the snapshot, with its learned-state version", () => {
    const index = learnedIndex();
    const restored = ToolIndex.restore(index.snapshot());
    expect(restored.learnedVersion).toBe(1);
    expect(restored.learnedTools).toBe(1);
    for (const q of ["open a PR", "merge pull request", "pr"])
      expect(restored.search(q, { limit: 5, threshold: 0, day: DAY, explain: true, builtinSynonyms: false })).toEqual(
        index.search(q, { limit: 5, threshold: 0, day: DAY, explain: true, builtinSynonyms: false }),
      );
  });
});
