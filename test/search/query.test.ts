/** Query processing: term weights, phrases and tenant synonyms. */
import { describe, expect, it } from "vitest";
import {
  analyseQuery,
  BUILTIN_EXPANSION_WEIGHT,
  KEY_WORD_SHARE,
  SHORT_EXPANSION_FACTOR,
  SHORT_EXPANSION_WORDS,
  UNKNOWN_KEY_FACTOR,
  ABBREVIATION_WEIGHT,
  BUILTIN_PHRASE_KEY_WEIGHT,
  COMPOUND_WEIGHT,
  compileSynonyms,
  KEY_SLOP,
  PHRASE_WEIGHT,
  queryTerms,
  type Synonyms,
} from "../../src/search/query.ts";
import { builtin } from "../../src/search/thesaurus/index.ts";

const BUILTIN_THESAURUS = builtin().thesaurus;
import { analyze, stem } from "../../src/search/tokenizer.ts";
import { DEFAULT_TUNING, ToolIndex } from "../../src/search/tool-index.ts";
import { tool } from "./fixtures.ts";

const byTerm = (query: string, synonyms?: Synonyms) =>
  Object.fromEntries(queryTerms(query, synonyms ? { synonyms } : {}).map((t) => [t.term, t]));

describe("queryTerms", () => {
  it("weighs each distinct word by the square root of its repeats, and adjacent pairs as phrases", () => {
    const terms = byTerm("QR code image with the QR code");
    expect(terms.qr!.weight).toBeCloseTo(Math.SQRT2, 12);
    expect(terms.code!.weight).toBeCloseTo(Math.SQRT2, 12);
    expect(terms[stem("image")]!.weight).toBe(1);
    expect(terms["qr code"]!.weight).toBe(PHRASE_WEIGHT);
    expect(terms.qr!.word).toBe(true);
    expect(terms["qr code"]!.word).toBeUndefined();
    expect(Object.keys(terms)).toHaveLength(3 + 3); // qr, code, imag; qr code, code imag, imag qr
  });

  it("adds a synonym's expansion, words and phrase, at full weight, and says which key added it", () => {
    const synonyms = compileSynonyms({ pr: ["pull request"], repo: ["repository"] });
    const terms = byTerm("merge the PR in my repo", synonyms);
    // An expansion carries the bits of the query words whose key added it (here `pr`).
    expect(terms.pull).toEqual({ term: "pull", weight: 1, via: "pr", keyBits: terms.pr!.bits });
    expect(terms[stem("request")]).toEqual({ term: stem("request"), weight: 1, via: "pr", keyBits: terms.pr!.bits });
    expect(terms[`pull ${stem("request")}`]).toEqual({
      term: `pull ${stem("request")}`,
      weight: PHRASE_WEIGHT,
      via: "pr",
      keyBits: terms.pr!.bits,
    });
    expect(terms[stem("repository")]!.via).toBe("repo");
    // The word itself stays, one of the query's own words, with its bit.
    expect(terms.pr).toEqual({ term: "pr", weight: 1, word: true, bits: 2 });
    expect(terms.pull!.word).toBeUndefined(); // an expansion is not a word the query said
    expect(byTerm("merge the pull request").pull!.via).toBeUndefined();
  });

  it("matches a phrase key only as a run of the query's words, after the same analysis", () => {
    const synonyms = compileSynonyms({ "Pull Requests": ["merge request"] });
    expect(byTerm("review pull requests", synonyms)[stem("merge")]?.via).toBe("Pull Requests");
    // Stop words and plurals do not matter.
    expect(byTerm("review the pull request", synonyms)[stem("merge")]?.via).toBe("Pull Requests");
    expect(byTerm("request to pull", synonyms)[stem("merge")]).toBeUndefined();
  });

  it("matches a key of several words with at most KEY_SLOP words between, in order, in a short query only", () => {
    const synonyms = compileSynonyms({ "cancel meeting": ["delete event"] });
    const expanded = (query: string, keySlop?: number) =>
      queryTerms(query, { synonyms, ...(keySlop === undefined ? {} : { keySlop }) }).some((t) => t.term === "delet");
    expect(KEY_SLOP).toBe(2);
    expect(expanded("cancel tomorrow's standup meeting")).toBe(true); // two words between
    expect(expanded("cancel the big weekly team meeting")).toBe(false); // three
    expect(expanded("meeting to cancel")).toBe(false); // out of order
    expect(expanded("cancel standup meeting", 0)).toBe(false);
    // Seven words and more: only adjacent ones, as in a long request whose sentences say different things.
    expect(expanded("cancel the standup, book a meeting room for friday afternoon")).toBe(false);
    expect(expanded("please cancel the meeting with alice and bob on friday")).toBe(true);
  });

  it("leaves a word the query already has as the query's own", () => {
    const terms = byTerm("repo repo repository", compileSynonyms({ repo: ["repository"] }));
    expect(terms[stem("repository")]).toEqual({ term: stem("repository"), weight: 1, word: true, bits: 2 });
    expect(terms.repo!.weight).toBeCloseTo(Math.SQRT2, 12);
  });

  it("drops keys and expansions that have no searchable words", () => {
    expect(compileSynonyms({ the: ["repository"], repo: ["the", "of"] }).size).toBe(0);
  });

  it("expands with the built-in thesaurus at reduced weight, and says so (via builtin:<key>)", () => {
    const terms = Object.fromEntries(queryTerms("open a PR", { thesaurus: BUILTIN_THESAURUS }).map((t) => [t.term, t]));
    // `pr` is read inside the key `open pr`, whose expansions say what it means: KEY_WORD_SHARE of itself.
    expect(terms.pr).toEqual({ term: "pr", weight: KEY_WORD_SHARE, word: true, bits: 2 });
    // `pr` abbreviates "pull request": ABBREVIATION_WEIGHT, still under the user's own words.
    expect(terms.pull!.weight).toBe(ABBREVIATION_WEIGHT);
    expect(terms.pull!.weight).toBeLessThan(1);
    expect(terms.pull!.via).toMatch(/^builtin:/);
    expect(terms.pull!.word).toBeUndefined();
    const weather = queryTerms("forecast", {
      thesaurus: BUILTIN_THESAURUS,
      expansionWeight: 0.3,
      shortExpansionFactor: 1,
    });
    expect(weather.find((t) => t.term === "weather")).toMatchObject({ weight: 0.3, via: "builtin:forecast" });
    expect(BUILTIN_EXPANSION_WEIGHT).toBeLessThan(1);
  });

  it("weighs a one-word key's expansions SHORT_EXPANSION_FACTOR times more in a short query, below 1", () => {
    const expansion = (query: string, options: Parameters<typeof queryTerms>[1] = {}) =>
      queryTerms(query, { thesaurus: BUILTIN_THESAURUS, ...options }).find((t) => t.term === "weather")?.weight;
    const short = BUILTIN_EXPANSION_WEIGHT * SHORT_EXPANSION_FACTOR;
    expect(expansion("forecast")).toBeCloseTo(short, 10);
    expect(expansion("forecast for the coast of portugal")).toBeCloseTo(short, 10);
    expect(short).toBeLessThan(1);
    // More words than SHORT_EXPANSION_WORDS: a request, where a synonym of one word is as likely to be noise.
    const long = "forecast for the coast of portugal and the islands of madeira";
    expect(new Set(analyze(long)).size).toBeGreaterThan(SHORT_EXPANSION_WORDS);
    expect(expansion(long)).toBe(BUILTIN_EXPANSION_WEIGHT);
    expect(expansion("forecast", { shortExpansionFactor: 1 })).toBe(BUILTIN_EXPANSION_WEIGHT);
    // The thesaurus weighed 0 stays off in short queries too.
    expect(expansion("forecast", { expansionWeight: 0 })).toBeUndefined();
    // A key of several words keeps its own weight.
    const meeting = queryTerms("schedule a meeting", { thesaurus: BUILTIN_THESAURUS }).find((t) => t.term === "event");
    expect(meeting?.weight).toBe(BUILTIN_PHRASE_KEY_WEIGHT);
  });

  it("weighs a built-in key's expansions UNKNOWN_KEY_FACTOR times more when no tool holds the key's words", () => {
    // "forecast" -> weather: with a catalog that holds "forecast" the expansion competes with the word itself.
    const weather = (query: string, held: string[]) =>
      queryTerms(query, { thesaurus: BUILTIN_THESAURUS, df: (t) => (held.includes(t) ? 1 : 0) }).find(
        (t) => t.term === "weather",
      )?.weight;
    const short = BUILTIN_EXPANSION_WEIGHT * SHORT_EXPANSION_FACTOR;
    expect(weather("forecast", [stem("forecast"), "weather"])).toBeCloseTo(short, 10);
    expect(weather("forecast", ["weather"])).toBeCloseTo(short * UNKNOWN_KEY_FACTOR, 10);
    expect(UNKNOWN_KEY_FACTOR).toBeGreaterThan(1);
    expect(short * UNKNOWN_KEY_FACTOR).toBeLessThan(1);
    // A key of several words: only when the catalog has none of them ("money back" -> refund).
    const refund = (held: string[]) =>
      queryTerms("money back", { thesaurus: BUILTIN_THESAURUS, df: (t) => (held.includes(t) ? 1 : 0) }).find(
        (t) => t.term === "refund",
      )?.weight;
    expect(refund(["refund"])).toBeCloseTo(BUILTIN_PHRASE_KEY_WEIGHT * UNKNOWN_KEY_FACTOR, 10);
    expect(refund(["refund", "back"])).toBeCloseTo(BUILTIN_PHRASE_KEY_WEIGHT, 10);
    // Without document frequencies (no catalog to ask), and with the factor at 1, nothing changes.
    expect(
      queryTerms("forecast", { thesaurus: BUILTIN_THESAURUS }).find((t) => t.term === "weather")?.weight,
    ).toBeCloseTo(short, 10);
    const off = queryTerms("forecast", { thesaurus: BUILTIN_THESAURUS, df: () => 0, unknownKeyFactor: 1 });
    expect(off.find((t) => t.term === "weather")?.weight).toBeCloseTo(short, 10);
  });

  it("weighs an abbreviation's expansions nearly as the user's own words in a short query", () => {
    const weight = (query: string, term: string) =>
      queryTerms(query, { thesaurus: BUILTIN_THESAURUS }).find((t) => t.term === term)?.weight;
    // `repo` -> repository: the same thing, shorter.
    expect(weight("show repos", stem("repository"))).toBe(ABBREVIATION_WEIGHT);
    expect(ABBREVIATION_WEIGHT).toBeGreaterThan(BUILTIN_EXPANSION_WEIGHT * SHORT_EXPANSION_FACTOR);
    expect(ABBREVIATION_WEIGHT).toBeLessThan(1); // still under the user's own words
    // Where no tool holds the key, the factor for unknown keys does not raise it further.
    const unknown = queryTerms("show repos", { thesaurus: BUILTIN_THESAURUS, df: () => 0 });
    expect(unknown.find((t) => t.term === stem("repository"))?.weight).toBe(ABBREVIATION_WEIGHT);
    // A near-synonym keeps the short-query weight (forecast -> weather).
    expect(weight("forecast", "weather")).toBeCloseTo(BUILTIN_EXPANSION_WEIGHT * SHORT_EXPANSION_FACTOR, 10);
    // In a longer request it is one word among many: the base weight.
    const long = "show the repos of the payments team that were archived last year by the platform group";
    expect(new Set(analyze(long)).size).toBeGreaterThan(SHORT_EXPANSION_WORDS);
    expect(weight(long, stem("repository"))).toBe(BUILTIN_EXPANSION_WEIGHT);
    // Off (the short-query weight), nothing else changes.
    const off = queryTerms("show repos", { thesaurus: BUILTIN_THESAURUS, abbreviationWeight: 0 });
    expect(off.find((t) => t.term === stem("repository"))?.weight).toBeCloseTo(
      BUILTIN_EXPANSION_WEIGHT * SHORT_EXPANSION_FACTOR,
      10,
    );
  });

  it("weighs a built-in key of several words above a one-word key, and below the user's own words", () => {
    const meeting = Object.fromEntries(
      queryTerms("schedule a meeting", { thesaurus: BUILTIN_THESAURUS }).map((t) => [t.term, t]),
    );
    expect(meeting.event).toMatchObject({ weight: BUILTIN_PHRASE_KEY_WEIGHT, via: "builtin:schedule meeting" });
    expect(BUILTIN_PHRASE_KEY_WEIGHT).toBeGreaterThan(BUILTIN_EXPANSION_WEIGHT);
    expect(BUILTIN_PHRASE_KEY_WEIGHT).toBeLessThan(1);
    const one = queryTerms("forecast", { thesaurus: BUILTIN_THESAURUS }).find((t) => t.term === "weather");
    expect(one?.weight).toBeCloseTo(BUILTIN_EXPANSION_WEIGHT * SHORT_EXPANSION_FACTOR, 10);
    expect(BUILTIN_PHRASE_KEY_WEIGHT).toBeGreaterThan(BUILTIN_EXPANSION_WEIGHT * SHORT_EXPANSION_FACTOR);
  });

  it("weighs the words of a matched built-in key of several words KEY_WORD_SHARE of themselves alone", () => {
    const terms = (query: string, options: Parameters<typeof queryTerms>[1] = {}) =>
      Object.fromEntries(queryTerms(query, { thesaurus: BUILTIN_THESAURUS, ...options }).map((t) => [t.term, t]));
    // "open a PR" means create a pull request: `open` alone is also a list tool's `state: open`.
    const opened = terms("open a PR");
    expect(opened.open).toMatchObject({ weight: KEY_WORD_SHARE, word: true });
    expect(opened.creat).toMatchObject({ via: "builtin:open pr" });
    expect(KEY_WORD_SHARE).toBeLessThan(1);
    expect(KEY_WORD_SHARE).toBeGreaterThan(BUILTIN_PHRASE_KEY_WEIGHT);
    // Without the key, the same word weighs 1; a share of 1 leaves the words as they were.
    expect(terms("open the door").open?.weight).toBe(1);
    expect(terms("open a PR", { keyWordShare: 1 }).open?.weight).toBe(1);
    // A one-word key leaves its word alone.
    expect(terms("forecast").forecast?.weight).toBe(1);
  });

  it("lets a tenant rule replace the built-in rule for the same key, and add keys of its own", () => {
    const synonyms = compileSynonyms({ PR: ["press release"], zap: ["automation"] });
    const terms = queryTerms("PR zap", { synonyms, thesaurus: BUILTIN_THESAURUS });
    const byTerm = Object.fromEntries(terms.map((t) => [t.term, t]));
    expect(byTerm.press).toMatchObject({ weight: 1, via: "PR" });
    expect(byTerm.pull).toBeUndefined();
    expect(byTerm[stem("automation")]).toMatchObject({ weight: 1, via: "zap" });
  });

  it("scores at most maxTerms distinct terms: the most informative words (half), then expansions and phrases", () => {
    const letter = (i: number) => String.fromCharCode(97 + i);
    const words = Array.from({ length: 40 }, (_, i) => `q${letter(Math.floor(i / 26))}${letter(i % 26)}x`);
    const df = (term: string) => (term === "qbbx" ? 1 : term === "qaax" ? 0 : 10);
    const { terms, words: all } = analyseQuery(words.join(" "), { maxTerms: 8, df });
    expect(all).toHaveLength(40);
    expect(terms.length).toBeLessThanOrEqual(8);
    const own = terms.filter((t) => t.word).map((t) => t.term);
    expect(own).toHaveLength(4);
    // The rarest word first, then the query's order among equals.
    expect(own[0]).toBe("qbbx");
    // qaax, first in the query, is in no tool: it informs nothing and is left out.
    expect(own.slice(1)).toEqual(["qabx", "qacx", "qadx"]);
  });
});

describe("compounds the catalog writes as one", () => {
  // The catalog's own vocabulary: a word some tool holds is known (df > 0).
  const catalog = new Set(analyze("username workflow timezone"));
  const df = (term: string) => (catalog.has(term) ? 1 : 0);

  it("adds the one word for two adjacent query words, at COMPOUND_WEIGHT, with both words' bits", () => {
    const terms = Object.fromEntries(queryTerms("change the user name", { df }).map((t) => [t.term, t]));
    const joined = analyze("username")[0]!;
    expect(terms[joined]).toEqual({
      term: joined,
      weight: COMPOUND_WEIGHT,
      via: "compound:user name",
      keyBits: terms.user!.bits! | terms.name!.bits!,
    });
  });

  it("adds nothing the catalog does not hold, nor for words that are not adjacent", () => {
    expect(queryTerms("a flow of work", { df }).some((t) => t.via?.startsWith("compound:"))).toBe(false);
    expect(queryTerms("user profile name", { df }).some((t) => t.via?.startsWith("compound:"))).toBe(false);
    expect(queryTerms("blue whale", { df }).some((t) => t.via?.startsWith("compound:"))).toBe(false);
  });

  it("finds the tool that writes the word as one, and explains the term by the two words", () => {
    const index = ToolIndex.fromTools([
      tool("ci", "list_workflows", "List the workflows of a repository"),
      tool("ci", "get_logs", "Get the logs of a job"),
    ]);
    const hit = index.answer("work flow runs", { limit: 1, threshold: 0, explain: true }).hits[0]!;
    expect(hit.id).toBe("ci::list_workflows");
    expect(hit.explain?.terms.map((t) => t.via)).toContain("compound:work flow");
    const off = index.answer("work flow runs", {
      limit: 1,
      threshold: 0,
      tuning: { ...DEFAULT_TUNING, compoundWeight: 0 },
    });
    expect(off.hits.map((h) => h.id)).not.toContain("ci::list_workflows");
  });
});
