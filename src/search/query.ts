/**
 * Query processing: the weighted terms a query is scored with.
 *
 * A query is analysed like a document (tokenizer.ts). Each distinct word is scored once, with the
 * weight sqrt(times it occurs): a word a long request repeats ("a QR code ... the QR code image")
 * is more likely its subject, but not so much more that one repeated word outweighs the rest.
 * Each pair of adjacent words is also a phrase term (`weather forecast`), weighted PHRASE_WEIGHT,
 * which meets the phrases of description openings (document.ts). A tenant's synonyms add the words
 * (and phrases) of each expansion whose key occurs in the query, at full weight.
 */
import type { QueryTerm } from "./ranker.ts";
import { analyze, phrases } from "./tokenizer.ts";

/** A phrase match adds to the words' own matches; at this weight it refines an order more than it makes one. */
export const PHRASE_WEIGHT = 0.4;

interface SynonymRule {
  /** The key's analysed terms, matched as a contiguous run of the query's terms. */
  key: string[];
  /** The key as the tenant wrote it, reported in explanations. */
  source: string;
  /** Each expansion's analysed terms. */
  expansions: string[][];
}

/** A tenant's synonym map, compiled for query time: rules by the first term of their key. */
export type Synonyms = ReadonlyMap<string, readonly SynonymRule[]>;

/**
 * Compiles `{ key: [expansion, ...] }` (keys and expansions are words or short phrases). Keys or
 * expansions that analyse to nothing (only stop words) are dropped: validation refuses them earlier.
 */
export function compileSynonyms(map: Readonly<Record<string, readonly string[]>>): Synonyms {
  const rules = new Map<string, SynonymRule[]>();
  for (const [source, values] of Object.entries(map)) {
    const key = analyze(source);
    const expansions = values.map(analyze).filter((terms) => terms.length > 0);
    if (key.length === 0 || expansions.length === 0) continue;
    const list = rules.get(key[0]!) ?? [];
    list.push({ key, source, expansions });
    rules.set(key[0]!, list);
  }
  return rules;
}

export function queryTerms(query: string, synonyms?: Synonyms): QueryTerm[] {
  const words = analyze(query);
  const counts = new Map<string, number>();
  for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
  const terms = new Map<string, QueryTerm>();
  for (const [term, n] of counts) terms.set(term, { term, weight: Math.sqrt(n), word: true });
  const add = (term: string, weight: number, via?: string) => {
    const present = terms.get(term);
    if (!present || present.weight < weight)
      terms.set(term, { term, weight, ...(present?.word ? { word: true } : {}), ...(via ? { via } : {}) });
  };
  for (const phrase of phrases(words)) add(phrase, PHRASE_WEIGHT);
  if (synonyms) {
    words.forEach((word, at) => {
      for (const rule of synonyms.get(word) ?? []) {
        if (!rule.key.every((t, i) => words[at + i] === t)) continue;
        for (const expansion of rule.expansions) {
          for (const term of expansion) add(term, 1, rule.source);
          for (const phrase of phrases(expansion)) add(phrase, PHRASE_WEIGHT, rule.source);
        }
      }
    });
  }
  return [...terms.values()];
}
