import { describe, expect, it } from "vitest";
import { analyze, phrases, splitWords, stem } from "../../src/search/tokenizer.ts";

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
    expect(analyze("I need you to provide the details")).toEqual(analyze("details"));
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
