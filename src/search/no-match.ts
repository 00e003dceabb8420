/**
 * What a search that matched nothing says, so that a model neither retries in vain nor gives up on a tool that is
 * there: which named service the catalog lacks, or which tools came close and why they were not enough.
 */
import type { Answer } from "./tool-index.ts";

/** Queries are echoed up to this many characters: a user's whole message may be the query. */
const ECHO = 80;

export function noMatchMessage(
  query: string,
  threshold: number,
  answer: Pick<Answer, "absent" | "closest">,
  catalogSize: number,
): string {
  const echo = query.length > ECHO ? `${query.slice(0, ECHO)}...` : query;
  const head = `No tool matched "${echo}" at threshold ${threshold}.`;
  if (answer.absent.length > 0) {
    const names = answer.absent.map((s) => `'${s}'`).join(", ");
    return (
      `${head} No tool in this catalog mentions ${names}, so it offers nothing for that service: tell the user ` +
      `this is not available here rather than searching again.`
    );
  }
  // Near misses (at least half the threshold) are named: a lone word many tools share is not a match, but the model
  // should know what came close. Each is judged and shown by what it counted for against the threshold (its gate,
  // when factors that only rank raised its score), so a listed figure never reads as a pass.
  const counted = (h: Answer["closest"][number]) => h.gate ?? h.score;
  const close = answer.closest.filter((h) => counted(h) >= threshold / 2);
  if (close.length > 0) {
    const listed = close.map((h) => `${h.id} (${Math.round(counted(h) * 10_000) / 10_000})`).join(", ");
    return (
      `${head} Closest: ${listed}; they share only words that many tools use. If one of them is meant, search ` +
      `again with more words about the task, or pass a lower "threshold".`
    );
  }
  return (
    `${head} None of the ${catalogSize} tools in this catalog is about these words, so searching again with ` +
    `synonyms is unlikely to help: tell the user no such tool is available, or pass a lower "threshold" to see ` +
    `weaker matches.`
  );
}
