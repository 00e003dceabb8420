/** Query processing: term weights, phrases and tenant synonyms. */
import { describe, expect, it } from "vitest";
import { compileSynonyms, PHRASE_WEIGHT, queryTerms } from "../../src/search/query.ts";
import { stem } from "../../src/search/tokenizer.ts";

const byTerm = (query: string, synonyms?: Parameters<typeof queryTerms>[1]) =>
  Object.fromEntries(queryTerms(query, synonyms).map((t) => [t.term, t]));

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
    expect(terms.pull).toEqual({ term: "pull", weight: 1, via: "pr" });
    expect(terms[stem("request")]).toEqual({ term: stem("request"), weight: 1, via: "pr" });
    expect(terms[`pull ${stem("request")}`]).toEqual({
      term: `pull ${stem("request")}`,
      weight: PHRASE_WEIGHT,
      via: "pr",
    });
    expect(terms[stem("repository")]!.via).toBe("repo");
    // The word itself stays, one of the query's own words.
    expect(terms.pr).toEqual({ term: "pr", weight: 1, word: true });
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

  it("leaves a word the query already has as the query's own", () => {
    const terms = byTerm("repo repo repository", compileSynonyms({ repo: ["repository"] }));
    expect(terms[stem("repository")]).toEqual({ term: stem("repository"), weight: 1, word: true });
    expect(terms.repo!.weight).toBeCloseTo(Math.SQRT2, 12);
  });

  it("drops keys and expansions that have no searchable words", () => {
    expect(compileSynonyms({ the: ["repository"], repo: ["the", "of"] }).size).toBe(0);
  });
});
