import { describe, expect, it } from "vitest";
import { analyze, splitWords, stem } from "../../src/search/tokenizer.ts";

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
  it("drops stop words and folds plurals, keeping duplicates for term frequency", () => {
    expect(analyze("List the issues of a repository and the issue comments")).toEqual(["list", "issue", "repository", "issue", "comment"]);
  });

  it("leaves words that only look plural alone", () => {
    expect(stem("status")).toBe("status");
    expect(stem("analysis")).toBe("analysis");
    expect(stem("statuses")).toBe("status");
    expect(stem("queries")).toBe("query");
    expect(stem("matches")).toBe("match");
    expect(stem("files")).toBe("file");
  });

  it("matches whole terms only: read does not match readme", () => {
    expect(analyze("readme")).not.toContain("read");
  });
});
