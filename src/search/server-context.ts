/**
 * Server context: a tool whose server also holds the query's other strong matches is more likely
 * the one meant. A request that names a task of one service ("get the latest cryptocurrency news
 * and the supported currencies") matches several tools of that server, each on part of the words;
 * each of them gains a share of its best sibling's score.
 *
 *   context(t) = CONTEXT_WEIGHT * (1 - c_s / C) * max score of another candidate on t's server s
 *
 * over the C best candidates of the query, c_s of them on s. The factor (1 - c_s / C) is how much
 * the server narrows the field: when every candidate is on one server (a catalog with one server,
 * or tools without one) the server says nothing and the term is 0, so ranking and scores stay pure
 * BM25F there. Computed from the candidates only: no per-query work beyond the ranked list.
 */

/** A sibling's score counts this much; chosen with `npm run eval` (docs/quality.md). */
export const CONTEXT_WEIGHT = 0.25;

export interface Candidate {
  id: string;
  /** The candidate's own score (before context). */
  score: number;
}

export interface Context {
  /** The sibling whose score gave the boost. */
  from: string;
  score: number;
}

/** The server of a tool id (`server::name`, see catalog/tool.ts); an id without one is its own group. */
function serverOf(id: string): string {
  const at = id.indexOf("::");
  return at < 0 ? id : id.slice(0, at);
}

/** The context boost of each candidate that has one. */
export function serverContext(candidates: readonly Candidate[], weight = CONTEXT_WEIGHT): Map<string, Context> {
  const byServer = new Map<string, Candidate[]>();
  for (const c of candidates) {
    const server = serverOf(c.id);
    const group = byServer.get(server);
    if (group) group.push(c);
    else byServer.set(server, [c]);
  }
  const out = new Map<string, Context>();
  for (const group of byServer.values()) {
    const narrowing = 1 - group.length / candidates.length;
    if (group.length < 2 || narrowing <= 0) continue;
    // The best and second-best of the group: each member's best sibling is one of them.
    const [first, second] = [...group].sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
    for (const c of group) {
      const sibling = c === first ? second! : first!;
      const score = weight * narrowing * sibling.score;
      if (score > 0) out.set(c.id, { from: sibling.id, score });
    }
  }
  return out;
}
