import { describe, expect, it } from "vitest";
import { groupRanks, queryMetrics, summarize } from "../../scripts/eval/metrics.ts";

const log2 = Math.log2;

describe("retrieval metrics on a hand-made set", () => {
  it("scores two needed tools found at ranks 2 and 4", () => {
    const m = queryMetrics(["x", "a", "y", "b"], [["a"], ["b"]]);
    expect(m.recall).toEqual({ 1: 0, 5: 1, 10: 1 });
    expect(m.mrr).toBe(0.5);
    // DCG = 1/log2(3) + 1/log2(5); ideal = 1 + 1/log2(3)
    expect(m.ndcg).toBeCloseTo((1 / log2(3) + 1 / log2(5)) / (1 + 1 / log2(3)), 12);
    expect(m.ndcg).toBeCloseTo(0.650921, 6);
  });

  it("counts any member of a group as that tool, but only once", () => {
    const groups = [["c", "c2"]];
    const m = queryMetrics(["c2", "c"], groups);
    expect(m).toEqual({ recall: { 1: 1, 5: 1, 10: 1 }, mrr: 1, ndcg: 1 });
    // Strict gold is the first member alone: the same ranking finds it at rank 2.
    const strict = queryMetrics(["c2", "c"], [["c"]]);
    expect(strict.recall).toEqual({ 1: 0, 5: 1, 10: 1 });
    expect(strict.mrr).toBe(0.5);
    expect(strict.ndcg).toBeCloseTo(1 / log2(3), 12);
  });

  it("gives nothing for an empty answer or a hit below rank 10", () => {
    expect(queryMetrics([], [["d"]])).toEqual({ recall: { 1: 0, 5: 0, 10: 0 }, mrr: 0, ndcg: 0 });
    const deep = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "d"];
    expect(queryMetrics(deep, [["d"]]).recall[10]).toBe(0);
    expect(queryMetrics(deep.slice(1), [["d"]]).ndcg).toBeCloseTo(1 / log2(11), 12);
  });

  it("caps the ideal DCG at ten needed tools", () => {
    const groups = Array.from({ length: 12 }, (_, i) => [`g${i}`]);
    const m = queryMetrics(
      groups.slice(0, 10).map((g) => g[0]!),
      groups,
    );
    expect(m.ndcg).toBeCloseTo(1, 12);
    expect(m.recall[10]).toBeCloseTo(10 / 12, 12);
  });

  it("records each group's first rank, one group per result", () => {
    expect(groupRanks(["b", "a", "a2", "z"], [["a", "a2"], ["b"], ["q"]])).toEqual([2, 1, null]);
  });

  it("averages per-query figures", () => {
    const s = summarize([
      queryMetrics(["x", "a", "y", "b"], [["a"], ["b"]]),
      queryMetrics(["c"], [["c"]]),
      queryMetrics([], [["d"]]),
    ]);
    expect(s.queries).toBe(3);
    expect(s.recall1).toBeCloseTo(1 / 3, 12);
    expect(s.recall5).toBeCloseTo(2 / 3, 12);
    expect(s.mrr10).toBeCloseTo(0.5, 12);
    expect(s.ndcg10).toBeCloseTo((0.650921 + 1) / 3, 5);
  });
});
