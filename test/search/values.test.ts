/** The values a request passes (URLs, addresses, paths): their words weigh less than the words that ask. */
import { describe, expect, it } from "vitest";
import { analyseQuery, compileSynonyms, PHRASE_WEIGHT, VALUE_WEIGHT } from "../../src/search/query.ts";
import { stem } from "../../src/search/tokenizer.ts";
import { ToolIndex } from "../../src/search/tool-index.ts";
import { mayHoldValues, withoutValues } from "../../src/search/values.ts";
import { tool } from "./fixtures.ts";

const words = (text: string) => withoutValues(text).split(/\s+/).filter(Boolean);

describe("withoutValues", () => {
  it("drops URLs and e-mail addresses, brackets and sentence ends included", () => {
    expect(words("Go to https://status.acme.com and take a screenshot")).toEqual([
      "Go",
      "to",
      "and",
      "take",
      "a",
      "screenshot",
    ]);
    expect(words("Message Tom (tom@acme.com) on Teams.")).toEqual(["Message", "Tom", "on", "Teams."]);
  });

  it("keeps a path's file extension only, and counts repository slugs and image names as paths", () => {
    expect(words("What does ~/Downloads/lease.pdf say?")).toEqual(["What", "does", "pdf", "say?"]);
    expect(words("Rename ./IMG_0042.JPG.")).toEqual(["Rename", "JPG"]);
    expect(words("Which files did PR 517 in acme/payments-api touch")).not.toContain("acme/payments-api");
    expect(words("Deploy us-docker.pkg.dev/acme/web/app:1.4 to Cloud Run")).toEqual(["Deploy", "to", "Cloud", "Run"]);
  });

  it("leaves prose alone: words, numbers, a slash between spaces, times, hyphens (and/or counts as a path)", () => {
    const prose = "read and/or write 3 / 4 of the file at 10:30, e-mail me";
    expect(words(prose)).toEqual(prose.replace("and/or ", "").split(" "));
  });

  it("finds no value in a query without a slash or an at sign", () => {
    const plain = "send the weekly report to the finance team: 3 pages, 10:30, e-mail";
    expect(mayHoldValues(plain)).toBe(false);
    expect(withoutValues(plain)).toBe(plain);
    expect(mayHoldValues("mail bob@acme.com")).toBe(true);
    expect(mayHoldValues("open ~/notes")).toBe(true);
  });

  it("reads a query at the length bound made of one slashed token, without a value left over", () => {
    const token = "a/".repeat(16 * 1024);
    expect(withoutValues(`clone ${token}`)).toBe("clone ");
  });
});

describe("analyseQuery with values", () => {
  const byTerm = (query: string, options = {}) =>
    Object.fromEntries(analyseQuery(query, options).terms.map((t) => [t.term, t]));

  it("weighs a word found only in a value at VALUE_WEIGHT, and its phrases likewise", () => {
    const terms = byTerm("clone https://github.com/acme/design-system");
    expect(terms[stem("clone")]!.weight).toBe(1);
    expect(terms[stem("design")]!.weight).toBe(VALUE_WEIGHT);
    expect(terms[`${stem("design")} ${stem("system")}`]!.weight).toBe(PHRASE_WEIGHT * VALUE_WEIGHT);
    expect(terms[`${stem("clone")} http`]!.weight).toBe(PHRASE_WEIGHT * VALUE_WEIGHT);
  });

  it("keeps full weight for a word the request also says outside the value, and for a path's extension", () => {
    const terms = byTerm("summarise the pdf ~/papers/pdf/attention.pdf and the paper");
    expect(terms.pdf!.weight).toBe(Math.sqrt(3));
    expect(terms[stem("paper")]!.weight).toBe(Math.sqrt(2));
    expect(terms[stem("attention")]!.weight).toBe(VALUE_WEIGHT);
  });

  it("scales the expansions a value's word keys", () => {
    const synonyms = compileSynonyms({ repo: ["repository"] });
    const inValue = byTerm("open ~/code/repo/main.ts", { synonyms });
    expect(inValue[stem("repository")]!.weight).toBe(VALUE_WEIGHT);
    expect(byTerm("open the repo", { synonyms })[stem("repository")]!.weight).toBe(1);
  });

  it("weighs every word alike with a value weight of 1", () => {
    expect(byTerm("clone https://github.com/acme/design-system", { valueWeight: 1 })[stem("design")]!.weight).toBe(1);
  });
});

describe("ranking with values", () => {
  const tools = [
    tool("git", "git_clone", "Clone a repository into a local directory."),
    tool("figma", "get_design_system", "Get the components and tokens of a design system."),
    tool("editor", "search_code", "Search code in the open project."),
  ];
  const top = (query: string, valueWeight?: number) =>
    ToolIndex.fromTools(tools).search(query, {
      limit: 3,
      threshold: 0,
      ...(valueWeight === undefined ? {} : { tuning: { valueWeight } }),
    })[0]?.id;

  it("finds the tool the request asks for, not the tools its arguments' words are about", () => {
    const request = "Clone https://github.com/acme/design-system into ~/code";
    expect(top(request)).toBe("git::git_clone");
    expect(top(request, 1)).toBe("figma::get_design_system");
  });
});
