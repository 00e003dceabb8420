/**
 * Ranking metrics for tool retrieval, with `gold_groups` semantics: a query needs one tool per
 * group, any member of a group counts as that tool, and each group gains once, at its first hit
 * (see ../shared/eval/README.md). Strict gold is the special case of one id per group.
 */

const CUTOFFS = [1, 5, 10] as const;
export const DEPTH = 10;

export interface QueryMetrics {
  /** Share of groups found in the top k, for k in CUTOFFS. */
  recall: Record<(typeof CUTOFFS)[number], number>;
  /** 1 / rank of the first hit of any group in the top DEPTH, else 0. */
  mrr: number;
  /** DCG of the first hit of each group over the ideal DCG, top DEPTH. */
  ndcg: number;
}

/** The rank (1-based) at which each group is first found, or null; a result fills at most one group. */
export function groupRanks(ranked: readonly string[], groups: readonly (readonly string[])[]): (number | null)[] {
  const ranks: (number | null)[] = groups.map(() => null);
  ranked.forEach((id, i) => {
    const g = groups.findIndex((members, j) => ranks[j] === null && members.includes(id));
    if (g >= 0) ranks[g] = i + 1;
  });
  return ranks;
}

export function queryMetrics(ranked: readonly string[], groups: readonly (readonly string[])[]): QueryMetrics {
  const top = ranked.slice(0, DEPTH);
  const ranks = groupRanks(top, groups);
  const found = (k: number) =>
    groups.length === 0 ? 0 : ranks.filter((r) => r !== null && r <= k).length / groups.length;
  const hits = ranks.filter((r): r is number => r !== null);
  const first = hits.length ? Math.min(...hits) : null;
  const dcg = hits.reduce((sum, r) => sum + 1 / Math.log2(r + 1), 0);
  let ideal = 0;
  for (let i = 1; i <= Math.min(groups.length, DEPTH); i++) ideal += 1 / Math.log2(i + 1);
  return {
    recall: { 1: found(1), 5: found(5), 10: found(10) },
    mrr: first === null ? 0 : 1 / first,
    ndcg: ideal === 0 ? 0 : dcg / ideal,
  };
}

export interface Summary {
  queries: number;
  recall1: number;
  recall5: number;
  recall10: number;
  mrr10: number;
  ndcg10: number;
}

/** Means over queries. */
export function summarize(all: readonly QueryMetrics[]): Summary {
  const mean = (f: (m: QueryMetrics) => number) =>
    all.length === 0 ? 0 : all.reduce((s, m) => s + f(m), 0) / all.length;
  return {
    queries: all.length,
    recall1: mean((m) => m.recall[1]),
    recall5: mean((m) => m.recall[5]),
    recall10: mean((m) => m.recall[10]),
    mrr10: mean((m) => m.mrr),
    ndcg10: mean((m) => m.ndcg),
  };
}
