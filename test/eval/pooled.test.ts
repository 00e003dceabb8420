/** `npm run eval -- --pooled`: each set keeps its queries and gold tools, among the tools of every set. */
import { describe, expect, it } from "vitest";
import { type EvalSet, pooled } from "../../scripts/eval/dataset.ts";

const tool = (id: string) => ({ id, server: null, name: id, description: id, inputSchema: null });
const set = (name: string, ids: string[], gold: string): EvalSet => ({
  name,
  dir: name,
  tools: ids.map(tool),
  queries: [{ id: "q", query: "find it", groups: [[gold]], strict: [[gold]] }],
  irrelevant: [{ query: "nothing", category: "irrelevant" }],
});

describe("pooled sets", () => {
  const [a, b] = pooled([set("a", ["x", "y"], "x"), set("b", ["x", "z"], "z")]);

  it("give every set the tools of all of them, ids kept apart by set, a tool both sets hold word for word once", () => {
    const ids = ["a|x", "a|y", "b|z"];
    expect(a!.tools.map((t) => t.id)).toEqual(ids);
    expect(b!.tools.map((t) => t.id)).toEqual(ids);
  });

  it("point gold at a shared tool's one pooled copy, so that its twin is not a distractor", () => {
    const [, shared] = pooled([set("a", ["x"], "x"), set("b", ["x", "z"], "x")]);
    expect(shared!.queries[0]!.groups).toEqual([["a|x"]]);
  });

  it("keep tools of the same name but other words apart", () => {
    const other = { ...set("b", [], "x"), tools: [{ ...tool("x"), description: "another x" }] };
    const [first] = pooled([set("a", ["x"], "x"), other]);
    expect(first!.tools.map((t) => t.id)).toEqual(["a|x", "b|x"]);
  });

  it("point each set's gold at its own tools, and keep its queries and irrelevant ones", () => {
    expect(a!.queries[0]!.groups).toEqual([["a|x"]]);
    expect(b!.queries[0]!.strict).toEqual([["b|z"]]);
    expect(a!.irrelevant).toEqual([{ query: "nothing", category: "irrelevant" }]);
    expect([a!.name, b!.name]).toEqual(["a (pooled)", "b (pooled)"]);
  });
});
