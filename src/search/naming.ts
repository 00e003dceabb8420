/**
 * Tools that name what a short query asks for rank above tools that only mention it.
 *
 * A tool's name (and title, server, keywords) says what it does; its description and parameters also mention what
 * it works with. In "open a PR", `list_pull_requests` holds `open` (its `state` parameter) and `pull request`, while
 * `create_pull_request` names the operation the user meant (`open` → `create` through the thesaurus) and the object:
 * by BM25F alone the lister wins. In a query of at most NAMING_QUERY_WORDS words, a tool's score is multiplied by
 * 1 + NAME_COVERAGE × the share of the words the catalog knows (by idf) its naming fields hold, itself or through a
 * synonym.
 *
 * A name can also say more than was asked: in "port forward", `stop_port_forward` names both words as well as
 * `port_forward` does, and its longer description scored it first. Each word of a tool's name that the query does not
 * hold, itself or through a synonym, multiplies the factor by 1 - NAME_EXTRA, so that among tools naming a short
 * query alike the one whose name says no more than was asked ranks first. The factor never falls below 1: a factor
 * that only ranks never puts a score below what decides the match, so whenever anything matched, the best ranked
 * hit's score reaches the threshold.
 *
 * Ranking only: the no-match decision is taken on the score without the factor (the hit's `gate`), so whether a query
 * matched anything is the same with it or without it. Chosen with `npm run eval` (docs/quality.md, "Names that say
 * what was asked", "A name that says more than was asked").
 */

/** How much naming every known word of a short query raises a tool's score: up to × (1 + NAME_COVERAGE). */
export const NAME_COVERAGE = 0.5;

/**
 * What each word of a tool's name that a short query does not hold takes off its rank: × (1 - NAME_EXTRA) per word.
 * Small on purpose: it orders tools that name the query alike, and leaves the rest to the words' evidence.
 */
export const NAME_EXTRA = 0.05;

/** Queries of at most this many words say one thing, which a tool's name can say too (operations.ts: the same). */
export const NAMING_QUERY_WORDS = 4;

/** A known word of the query: its bit (QueryTerm.bits) and its idf in the catalog. */
export interface KnownWord {
  bits: number;
  info: number;
}

/**
 * The factor of a tool whose naming fields hold the query words `nameBits` (own or through a synonym) and whose name
 * has `extraWords` words the query does not hold, for a query of `words` distinct words, at least 1: 1 for a longer
 * query, one without known words, or weights of 0.
 */
export function namingFactor(
  known: readonly KnownWord[],
  words: number,
  weight: number,
  extra: number,
): (nameBits: number, extraWords: number) => number {
  if ((weight === 0 && extra === 0) || known.length === 0 || words > NAMING_QUERY_WORDS) return () => 1;
  const total = known.reduce((sum, w) => sum + w.info, 0);
  return (nameBits, extraWords) => {
    let named = 0;
    for (const w of known) if (nameBits & w.bits) named += w.info;
    return Math.max(1, (1 + (weight * named) / total) * (1 - extra) ** extraWords);
  };
}

/** How many of a name's distinct words a query's terms (its own, their expansions, its phrases' words) lack. */
export function extraNameWords(nameWords: readonly string[], queryTerms: ReadonlySet<string>): number {
  let extra = 0;
  for (const word of nameWords) if (!queryTerms.has(word)) extra++;
  return extra;
}
