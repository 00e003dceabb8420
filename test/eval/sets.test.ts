import { describe, expect, it } from "vitest";
import blindQueries from "../../eval/mcp-keyword-blind/queries.jsonl?raw";
import blindTools from "../../eval/mcp-keyword-blind/tools.jsonl?raw";
import blind2Queries from "../../eval/mcp-keyword-blind2/queries.jsonl?raw";
import blind2Tools from "../../eval/mcp-keyword-blind2/tools.jsonl?raw";
import freshQueries from "../../eval/mcp-keyword-fresh/queries.jsonl?raw";
import freshTools from "../../eval/mcp-keyword-fresh/tools.jsonl?raw";
import keywordQueries from "../../eval/mcp-keyword/queries.jsonl?raw";
import keywordTools from "../../eval/mcp-keyword/tools.jsonl?raw";
import requestIrrelevant from "../../eval/mcp-requests/irrelevant.jsonl?raw";
import requestQueries from "../../eval/mcp-requests/queries.jsonl?raw";
import requestTools from "../../eval/mcp-requests/tools.jsonl?raw";
import blindRequestIrrelevant from "../../eval/mcp-requests-blind/irrelevant.jsonl?raw";
import blindRequestQueries from "../../eval/mcp-requests-blind/queries.jsonl?raw";
import blindRequestTools from "../../eval/mcp-requests-blind/tools.jsonl?raw";
import longIrrelevant from "../../eval/mcp-requests-long/irrelevant.jsonl?raw";
import longQueries from "../../eval/mcp-requests-long/queries.jsonl?raw";
import longTools from "../../eval/mcp-requests-long/tools.jsonl?raw";
import { catalogJsonl } from "../../scripts/eval-sets/catalog.ts";
import type { Fixture } from "../../scripts/eval-sets/dump-mcp-tools.ts";
import { checkQueries, checkSets, checkTools, type SetQuery, type SetTool } from "../../scripts/eval-sets/sets.ts";

const fixtures = Object.values(
  import.meta.glob("../../eval/mcp/servers/*.json", { import: "default", eager: true }),
) as Fixture[];
const freshFixtures = Object.values(
  import.meta.glob("../../eval/mcp-fresh/servers/*.json", { import: "default", eager: true }),
) as Fixture[];

describe("our MCP evaluation sets", () => {
  const report = checkSets({
    keywordTools,
    keywordQueries,
    blindTools,
    blindQueries,
    blind2Tools,
    blind2Queries,
    requestTools,
    requestQueries,
    requestIrrelevant,
    blindRequestTools,
    blindRequestQueries,
    blindRequestIrrelevant,
    longTools,
    longQueries,
    longIrrelevant,
    freshTools,
    freshQueries,
  });

  it("keep every rule: gold ids known, known categories, counts, no repeated text, empty gold for absent", () => {
    expect(report.problems).toEqual([]);
  });

  it("are built on the server fixtures: tools.jsonl is exactly what eval/mcp/servers gives", () => {
    expect(fixtures.length).toBe(report.servers);
    expect(catalogJsonl(fixtures)).toBe(keywordTools);
    // The fresh set's catalog, from other servers, likewise.
    expect(freshFixtures.length).toBe(report.freshServers);
    expect(catalogJsonl(freshFixtures)).toBe(freshTools);
  });

  it("spread the queries over the servers: every server has gold in some keyword query, in each keyword set", () => {
    for (const [catalog, queries] of [
      [fixtures, keywordQueries],
      [fixtures, blindQueries],
      [fixtures, blind2Queries],
      [freshFixtures, freshQueries],
    ] as const) {
      const servers = new Set(catalog.map((f) => f.server));
      const covered = new Set(
        queries
          .split("\n")
          .filter((l) => l.trim() !== "")
          .flatMap((l) => (JSON.parse(l) as SetQuery).gold.map((id) => id.split("::")[0])),
      );
      expect([...servers].filter((s) => !covered.has(s))).toEqual([]);
    }
  });
});

describe("the set rules", () => {
  const tool = (server: string, name: string): SetTool => ({
    id: `${server}::${name}`,
    server,
    name,
    description: "",
    inputSchema: null,
  });
  const ids = new Set(["github::create_issue", "slack::slack_post_message"]);
  const rules = {
    file: "q.jsonl",
    minimums: { task: 1, absent: 1 },
    totalMinimum: 2,
    emptyGold: (c: string) => c === "absent",
  };

  it("accept a sound file", () => {
    const queries: SetQuery[] = [
      { id: "a", query: "file a bug", gold: ["github::create_issue"], category: "task" },
      { id: "b", query: "send an SMS", gold: [], category: "absent" },
    ];
    expect(checkQueries(queries, ids, rules)).toEqual([]);
  });

  it("report unknown gold, gold on an absent query, a repeated text, an unknown category and a short count", () => {
    const queries: SetQuery[] = [
      { id: "a", query: "file a bug", gold: ["github::nope"], category: "task" },
      { id: "b", query: "File  a bug", gold: ["slack::slack_post_message"], category: "absent" },
      { id: "c", query: "hello", gold: ["github::create_issue"], category: "chat" },
    ];
    const problems = checkQueries(queries, ids, { ...rules, minimums: { task: 2, absent: 1 } });
    expect(problems).toEqual([
      "q.jsonl: a: gold github::nope is not in tools.jsonl",
      'q.jsonl: b: duplicate query text "File  a bug"',
      "q.jsonl: b: a absent query must have empty gold",
      "q.jsonl: c: unknown category chat",
      "q.jsonl: 1 task queries, at least 2 needed",
    ]);
  });

  it("report gold groups that do not start with their gold id", () => {
    const queries: SetQuery[] = [
      {
        id: "a",
        query: "x",
        gold: ["github::create_issue"],
        gold_groups: [["slack::slack_post_message", "github::create_issue"]],
        category: "task",
      },
      { id: "b", query: "y", gold: [], category: "absent" },
    ];
    expect(checkQueries(queries, ids, rules)).toEqual(["q.jsonl: a: group 1 does not start with gold[0]"]);
  });

  it("report tools whose id is not server::name or whose names break the rules", () => {
    const bad = { ...tool("git hub", "create issue"), id: "github::create_issue" };
    expect(checkTools([tool("github", "create_issue"), bad, tool("github", "create_issue")], "t.jsonl")).toEqual([
      "t.jsonl: github::create_issue: server name git hub breaks [A-Za-z0-9_-]{1,64}",
      "t.jsonl: github::create_issue: tool name create issue breaks the MCP name rule",
      "t.jsonl: github::create_issue: id is not server::name",
      "t.jsonl: github::create_issue: duplicate id",
      "t.jsonl: github::create_issue: duplicate id",
    ]);
  });
});
