/** The pure session rules, on their own. */
import { describe, expect, it } from "vitest";
import { planActivation } from "../../src/sessions/activation.ts";
import { isAlwaysLoaded, sessionAlwaysLoaded } from "../../src/sessions/always-loaded.ts";
import { budget, budgetCap, budgetExhausted, isExhausted } from "../../src/sessions/budget.ts";
import { deferredLine, truncateUtf8 } from "../../src/sessions/deferred-list.ts";
import { decidePlan } from "../../src/sessions/plan.ts";
import { notActiveMessage, RESCUE_NAMES_SHOWN } from "../../src/sessions/rescue.ts";
import { turnStep } from "../../src/sessions/session.ts";
import { sessionToolNameProblem } from "../../src/sessions/session-tools.ts";
import { composeToolList, toolSearchTool, type ListEntry } from "../../src/sessions/tool-list.ts";

describe("always-loaded derivation", () => {
  const cases: [string | null, string | null, string, boolean][] = [
    ["never", null, "auto", true],
    ["never", "auto", "auto", true],
    ["auto", "never", "auto", true],
    [null, "never", "auto", true],
    [null, null, "never", true],
    [null, "auto", "never", true],
    ["auto", "auto", "never", false],
    ["auto", null, "auto", false],
    [null, null, "auto", false],
    [null, "auto", "auto", false],
  ];
  for (const [defer, serverDefer, tenantDefault, expected] of cases) {
    it(
      `defer ${defer}, server ${serverDefer}, tenant default ${tenantDefault} -> ` +
        `${expected ? "always loaded" : "deferred"}`,
      () => {
        expect(
          isAlwaysLoaded({ defer: defer as never, serverDefer: serverDefer as never }, tenantDefault as never),
        ).toBe(expected);
      },
    );
  }

  it("adds a session's inline tools unless it defers them", () => {
    expect(sessionAlwaysLoaded(["a", "b"], ["c", "a"], false)).toEqual(["a", "b", "c"]);
    expect(sessionAlwaysLoaded(["a", "b"], ["c"], true)).toEqual(["a", "b"]);
  });
});

describe("budget", () => {
  it("counts down and is exhausted at the cap", () => {
    expect(budget(2, 3)).toEqual({ used: 2, cap: 3, remaining: 1 });
    expect(isExhausted(2, 3)).toBe(false);
    expect(isExhausted(3, 3)).toBe(true);
    expect(budgetCap(null, 3)).toBe(3);
    expect(budgetCap(7, 3)).toBe(7);
  });

  it("refuses with exactly error and budgetCap, then a message", () => {
    expect(
      JSON.stringify(budgetExhausted(3)).startsWith('{"error":"search-budget-exhausted","budgetCap":3,"message":"'),
    ).toBe(true);
  });
});

describe("activation", () => {
  it("records results not yet activated and reports those the model could not call before", () => {
    const plan = planActivation(["a", "b", "c", "a"], new Set(["b"]), new Set(["c"]));
    expect(plan).toEqual({ record: ["a", "c"], newlyActive: ["a"] });
  });
});

describe("turns", () => {
  it("advances, repeats harmlessly, refuses skips", () => {
    expect(turnStep(1, undefined)).toEqual({ kind: "advance" });
    expect(turnStep(1, 2)).toEqual({ kind: "advance" });
    expect(turnStep(2, 2)).toEqual({ kind: "repeat" });
    expect(turnStep(2, 4).kind).toBe("conflict");
  });
});

describe("rescue message", () => {
  it("names the search call and the callable tools", () => {
    expect(notActiveMessage("startExport", ["openTable", "setFilter"])).toBe(
      "Tool 'startExport' not in active set. Call tool_search(query='startExport') to discover " +
        "it, or use one of: openTable, setFilter",
    );
  });

  it("shortens a long list", () => {
    const names = Array.from({ length: RESCUE_NAMES_SHOWN + 7 }, (_, i) => `t${i}`);
    expect(notActiveMessage("x", names).endsWith(`t${RESCUE_NAMES_SHOWN - 1} (and 7 more)`)).toBe(true);
  });
});

describe("UTF-8 truncation", () => {
  it("never cuts inside a character, for 1- to 4-byte characters", () => {
    for (const ch of ["a", "é", "€", "😀"]) {
      const text = ch.repeat(2000);
      for (const max of [1, 2, 3, 5, 1023, 1024]) {
        const cut = truncateUtf8(text, max);
        const size = new TextEncoder().encode(cut.text).length;
        expect(size).toBeLessThanOrEqual(max);
        expect(size).toBeGreaterThan(max - new TextEncoder().encode(ch).length);
        expect(text.startsWith(cut.text)).toBe(true);
      }
    }
    expect(truncateUtf8("short", 1024)).toEqual({ text: "short", truncated: false });
  });

  it("puts a description on one line", () => {
    expect(deferredLine("s::t", "  two\n\tlines  ").line).toBe("s::t: two lines");
  });
});

describe("plan decisions", () => {
  const t = { min_tools: 30, min_pct: 5, min_tokens: 50_000 };
  it("decides on both sides of each threshold", () => {
    expect(decidePlan({ contextWindow: 100_000, deferredTools: 29, deferredTokens: 90_000 }, t).reason).toBe(
      "below-min-tools",
    );
    expect(decidePlan({ contextWindow: 100_000, deferredTools: 30, deferredTokens: 5_000 }, t).reason).toBe(
      "under-thresholds",
    );
    expect(decidePlan({ contextWindow: 100_000, deferredTools: 30, deferredTokens: 5_001 }, t).reason).toBe(
      "over-min-pct",
    );
    expect(decidePlan({ contextWindow: 10_000_000, deferredTools: 30, deferredTokens: 50_000 }, t).reason).toBe(
      "under-thresholds",
    );
    expect(decidePlan({ contextWindow: 10_000_000, deferredTools: 30, deferredTokens: 50_001 }, t).reason).toBe(
      "over-min-tokens",
    );
    expect(
      decidePlan(
        { contextWindow: 10_000_000, deferredTools: 1, deferredTokens: 10 },
        { min_tools: 30, min_pct: 0, min_tokens: 0 },
      ).reason,
    ).toBe("forced");
    expect(
      decidePlan(
        { contextWindow: 100, deferredTools: 0, deferredTokens: 0 },
        { min_tools: 0, min_pct: 0, min_tokens: 0 },
      ).reason,
    ).toBe("nothing-to-defer");
  });
});

describe("session tool names", () => {
  it("accepts model-safe names without '__' and refuses the rest", () => {
    expect(sessionToolNameProblem("search_issues")).toBeNull();
    expect(sessionToolNameProblem("a-b_c9")).toBeNull();
    for (const bad of ["", "x".repeat(65), "has.dot", "a__b", "tool_search", "spa ce"])
      expect(sessionToolNameProblem(bad), bad).not.toBeNull();
  });
});

describe("tool list composition", () => {
  const entry = (name: string, source: ListEntry["source"], tool_id: string | null): ListEntry => ({
    name,
    source,
    tool_id,
    tool: {} as never,
  });
  it("keeps the order and the first of any repeated name or tool id", () => {
    const list = composeToolList({
      toolSearch: entry("tool_search", "tool_search", null),
      alwaysLoaded: [entry("s__a", "always-loaded", "s::a")],
      session: [entry("mine", "session", null)],
      activated: [entry("s__a", "activated", "s::a"), entry("s__b", "activated", "s::b")],
    });
    expect(list.map((e) => `${e.source}:${e.name}`)).toEqual([
      "tool_search:tool_search",
      "always-loaded:s__a",
      "session:mine",
      "activated:s__b",
    ]);
  });

  it("describes tool_search with the deferred servers and the budget, and no schema combinators", () => {
    const tool = toolSearchTool({
      deferredServers: ["github", "jira"],
      budgetCap: 3,
      defaultMaxResults: 5,
      maxResults: 50,
      maxQueryChars: 16_384,
    });
    expect(tool.description).toContain("the tools of servers github, jira are deferred until you search for them");
    expect(tool.inputSchema).toMatchObject({ properties: { query: { maxLength: 16_384 } } });
    expect(tool.description).toContain("You have 3 searches per turn");
    expect(JSON.stringify(tool.inputSchema)).not.toMatch(/oneOf|anyOf|allOf/);
  });
});
