/**
 * Query processing: the weighted terms a query is scored with.
 *
 * A query is analysed like a document (tokenizer.ts). Each distinct term is scored once, with the
 * weight sqrt(times it occurs): a word a long request repeats ("a QR code ... the QR code image")
 * is more likely its subject, but not so much more that one repeated word outweighs the rest.
 */
import type { QueryTerm } from "./ranker.ts";
import { analyze } from "./tokenizer.ts";

export function queryTerms(query: string): QueryTerm[] {
  const counts = new Map<string, number>();
  for (const term of analyze(query)) counts.set(term, (counts.get(term) ?? 0) + 1);
  return [...counts].map(([term, n]) => ({ term, weight: Math.sqrt(n) }));
}
