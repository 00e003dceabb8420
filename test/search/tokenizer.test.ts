import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  analyze,
  MAX_STEMMED_CHARS,
  phrases,
  splitWords,
  stem,
  STEM_CACHE_BYTES,
  stemCacheSize,
} from "../../src/search/tokenizer.ts";

/** The split as it was written before it was made linear: the quadratic acronym rule, kept as the reference. */
function referenceSplit(text: string): string[] {
  const spaced = text
    .replace(/(?<=\p{Lu}\p{Lu})s(?!\p{Ll})/gu, "")
    .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, "$1 $2")
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, "$1 $2")
    .replace(/(\p{L})(\p{N})/gu, "$1 $2")
    .replace(/(\p{N})(\p{L})/gu, "$1 $2")
    .toLowerCase();
  const unspaced = "\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}";
  const words: string[] = [];
  for (const part of spaced.split(/[^\p{L}\p{N}]+/u)) {
    if (part === "") continue;
    if (new RegExp(`[${unspaced}]`, "u").test(part))
      words.push(...(part.match(new RegExp(`[${unspaced}]|[^${unspaced}]+`, "gu")) ?? []));
    else words.push(part);
  }
  return words;
}

describe("splitWords", () => {
  it.each([
    ["read_file", ["read", "file"]],
    ["ReadFile", ["read", "file"]],
    ["readFile", ["read", "file"]],
    ["getWeather", ["get", "weather"]],
    ["HTTPRequest", ["http", "request"]],
    ["parseHTMLDocument", ["parse", "html", "document"]],
    ["list-issues", ["list", "issues"]],
    ["calendar.events.list", ["calendar", "events", "list"]],
    ["github::list_issues", ["github", "list", "issues"]],
    ["mcp__plugin_x__ask_codex", ["mcp", "plugin", "x", "ask", "codex"]],
    ["sha256sum", ["sha", "256", "sum"]],
    ["get2FACode", ["get", "2", "fa", "code"]],
    ["oauth2Token", ["oauth", "2", "token"]],
    ["path/to/file", ["path", "to", "file"]],
    ["  Read  the FILE!  ", ["read", "the", "file"]],
  ])("%s -> %j", (input, words) => {
    expect(splitWords(input)).toEqual(words);
  });

  it("keeps non-Latin words and splits unspaced scripts into characters", () => {
    expect(splitWords("Größe ändern")).toEqual(["größe", "ändern"]);
    expect(splitWords("读取文件")).toEqual(["读", "取", "文", "件"]);
  });

  it("splits exactly as the quadratic rule it replaced, on any mix of cases, digits, scripts and separators", () => {
    const pieces = ["A", "B", "É", "Σ", "a", "b", "s", "é", "ς", "1", "²", "_", " ", ".", "读", "カ", "𝐀", "ǅ"];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 40 }), (chars) => {
        const text = chars.join("");
        expect(splitWords(text)).toEqual(referenceSplit(text));
      }),
      { numRuns: 2_000 },
    );
  });

  it("is linear in its input: 64 KB of capitals (and capitals ending in a word) split at once", () => {
    // The old acronym rule backtracked over the whole run from each of its positions: 64 KB of
    // capitals took about 18 s, and 4 MB would take days (quadratic: 4,096 times as long). Linear,
    // each is milliseconds. No clock here: the 4 MB runs are what the test timeout (a hang
    // detector, vitest.config.ts) would catch if the split turned quadratic again.
    for (const bytes of [64 * 1024, 4 * 1024 * 1024]) {
      const capitals = "A".repeat(bytes);
      expect(splitWords(capitals)).toEqual([capitals.toLowerCase()]);
      expect(splitWords(`${capitals}Bc`)).toEqual([capitals.toLowerCase(), "bc"]);
      expect(splitWords("AB".repeat(bytes / 2))).toEqual(["ab".repeat(bytes / 2)]);
    }
  });
});

describe("the stem cache", () => {
  it(`neither stems nor caches words longer than ${MAX_STEMMED_CHARS} characters`, () => {
    const atBound = "connections".padEnd(MAX_STEMMED_CHARS, "x");
    const over = `${atBound}s`;
    const before = stemCacheSize().entries;
    expect(stem(over)).toBe(over);
    expect(stemCacheSize().entries).toBe(before);
    stem(atBound);
    expect(stemCacheSize().entries).toBeGreaterThanOrEqual(1);
  });

  it(`holds at most ${STEM_CACHE_BYTES} bytes, as counted, however many words pass through it`, () => {
    let peak = 0;
    for (let i = 0; i < 200_000; i++) {
      stem(`word${i.toString(36)}ings`.padEnd(MAX_STEMMED_CHARS - (i % 7), "q"));
      peak = Math.max(peak, stemCacheSize().bytes);
    }
    expect(peak).toBeLessThanOrEqual(STEM_CACHE_BYTES);
    expect(peak).toBeGreaterThan(STEM_CACHE_BYTES * 0.9);
    // Still correct after it emptied itself.
    expect(stem("forecasts")).toBe(stem("forecast"));
  });
});

describe("analyze", () => {
  it("drops stop words and stems, keeping duplicates for term frequency", () => {
    const terms = analyze("List the issues of a repository and the issue comments");
    expect(terms).toHaveLength(5);
    expect(terms).toEqual(analyze("list issue repository issue comment"));
    expect(terms[1]).toBe(terms[3]); // issues / issue
  });

  it("drops the words requests are wrapped in", () => {
    expect(analyze("Could you please help me find the weather forecast? I would like to know it")).toEqual(
      analyze("find weather forecast"),
    );
    expect(analyze("I need you to give me the details")).toEqual(analyze("details"));
    expect(analyze("Additionally, tell me the details. Finally, thanks!")).toEqual(analyze("details"));
  });

  it("gives inflections and derived forms one stem", () => {
    const same = (...words: string[]) => expect(new Set(words.map(stem)).size, words.join(" ")).toBe(1);
    same("status", "statuses");
    same("query", "queries");
    same("match", "matches");
    same("file", "files");
    same("calculate", "calculates", "calculated", "calculation");
    same("forecast", "forecasts", "forecasting");
    same("repository", "repositories");
  });

  it("keeps unrelated words apart, and numbers as they are", () => {
    expect(stem("read")).not.toBe(stem("readme"));
    expect(stem("file")).not.toBe(stem("filter"));
    expect(stem("2024")).toBe("2024");
  });

  it("matches whole terms only: read does not match readme", () => {
    expect(analyze("readme")).not.toContain(stem("read"));
  });
});

describe("phrases", () => {
  it("pairs adjacent terms into one term with a space, which no word can hold", () => {
    expect(phrases(analyze("Get the weather forecast for a city"))).toEqual([
      `${stem("get")} weather`,
      "weather forecast",
      `forecast ${stem("city")}`,
    ]);
    expect(phrases(["one"])).toEqual([]);
  });
});
