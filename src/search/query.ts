/**
 * Query processing: the weighted terms a query is scored with.
 *
 * A query is analysed like a document (tokenizer.ts). Each distinct word is scored once, with the
 * weight sqrt(times it occurs): a word a long request repeats ("a QR code ... the QR code image")
 * is more likely its subject, but not so much more that one repeated word outweighs the rest.
 * Each pair of adjacent words is also a phrase term (`weather forecast`), weighted PHRASE_WEIGHT,
 * which meets the phrases of description openings (document.ts). A word found only inside a value the request
 * passes (a URL, an address, a path: values.ts) weighs VALUE_WEIGHT, and so do its phrases and expansions. A message
 * of several lines is read as one (message.ts): a word found only in its pasted lines (a log, code, a quoted mail)
 * weighs VALUE_WEIGHT too, and the user's words outside the sentences that ask weigh ASIDE_WEIGHT.
 *
 * Two adjacent words the catalog writes as one word ("user name" for `username`) add that word, at COMPOUND_WEIGHT.
 *
 * Synonyms add the words (and phrases) of each expansion whose key occurs in the query: a tenant's
 * own at full weight (the tenant said so), the built-in thesaurus (thesaurus/) at a reduced weight, so
 * that an expansion reorders and rescues but never outvotes the words the user wrote. A tenant rule
 * for a key replaces the built-in rule for the same key. In a short query a key of several words may have
 * a few other words between its own (KEY_SLOP: "cancel tomorrow's standup meeting" says "cancel meeting").
 *
 * Work is bounded whatever the query's length (a user's whole message may be 32 K characters): at most
 * `maxTerms` distinct terms are scored, the query's own words first (when there are more than half that many, those
 * that weigh most, and the most informative of them by their rarity in the catalog), then expansions, then phrases.
 */
import { DEFAULT_LIMITS } from "../config/limits.ts";
import type { QueryTerm } from "./ranker.ts";
import { type Analyze, analyzeAll as defaultAnalyzeAll, analyze as defaultAnalyze, phrases } from "./tokenizer.ts";
import { readMessage } from "./message.ts";
import { mayHoldValues, withoutValues } from "./values.ts";

/** Query words with a bit of their own (see QueryTerm.bits): a 32-bit integer's, sign aside. */
const WORD_BITS = 31;

/** A phrase match adds to the words' own matches; at this weight it refines an order more than it makes one. */
export const PHRASE_WEIGHT = 0.4;

/**
 * The weight of a built-in expansion's terms, relative to a word the user wrote. Chosen with `npm run eval`
 * (docs/quality.md, leave-one-set-out).
 */
export const BUILTIN_EXPANSION_WEIGHT = 0.5;

/**
 * In a query of at most SHORT_EXPANSION_WORDS words (its distinct analysed words), a one-word key's built-in
 * expansions weigh this many times BUILTIN_EXPANSION_WEIGHT (0.65): each word of a short keyword query is the request,
 * so its synonym says what the user means; in a longer request an expansion of an incidental word is noise. Still
 * below a word the user wrote. Chosen with `npm run eval` (docs/quality.md, leave-one-set-out).
 */
export const SHORT_EXPANSION_FACTOR = 1.3;
export const SHORT_EXPANSION_WORDS = 4;

/**
 * A built-in key whose words no tool holds ("flowchart", "money back") has only its expansions to meet the catalog
 * with: they do not compete with the user's own words for those words, so they weigh this many times more, up to the
 * weight of the words themselves ("give the customer their money back": `refund` 0.75 -> 0.86, beside "customer" 1).
 * Chosen with `npm run eval` (docs/quality.md, leave-one-set-out); needs `df`.
 */
export const UNKNOWN_KEY_FACTOR = 1.15;

/**
 * In a query of at most SHORT_EXPANSION_WORDS words, a one-word key of at most 6 letters that abbreviates each of its
 * expansions (`repo` -> repository, `pr` -> pull request, `env` -> environment: the key's letters in order in each,
 * the first first, the expansion longer by two letters or more and without the key as a word) says the same thing,
 * not a near-synonym: its expansions weigh this, just under a word the user wrote (an expansion never weighs as much
 * as the user's own words). "find repos" reached `search-repositories` through two synonyms at 0.65 and ended below
 * the threshold. Chosen with `npm run eval` (docs/quality.md, leave-one-set-out: 0.9 on every fold, of values up to
 * 0.95).
 */
export const ABBREVIATION_WEIGHT = 0.9;

/**
 * A built-in key of several words says what its words mean together ("open a PR" is to create a pull request), so
 * each of them weighs this share of itself alone: `open` on its own is also a list tool's `state: open`. Words the
 * key's expansions repeat keep their weight. Chosen with `npm run eval` (docs/quality.md, leave-one-set-out).
 */
export const KEY_WORD_SHARE = 0.85;

/**
 * The weight of the expansions of a built-in key of two or more words ("open a PR", "schedule meeting"). Such a key
 * says what the user means more surely than one word does, so its expansions weigh more than a single word's.
 */
export const BUILTIN_PHRASE_KEY_WEIGHT = 0.75;

/**
 * The weight of a word found only inside a value the request passes (a URL, an address, a path: values.ts), and of
 * the expansions it keys: the argument's words say little about which tool is meant. Chosen with `npm run eval`
 * (docs/quality.md, leave-one-set-out).
 */
export const VALUE_WEIGHT = 0.25;

/**
 * In a query of at most SLOP_QUERY_WORDS analysed words, the words of a synonym key of several words may stand apart,
 * in order, with at most this many other words between them in all ("cancel tomorrow's standup meeting" meets the key
 * `cancel meeting`; the slop of Lucene's phrase queries). A short query says one thing, so its words belong together;
 * in a long request, words far apart belong to different sentences, and only adjacent ones count. Phrasal keys (`log
 * in`, `spin up`) are matched as written. Chosen on a keyword set written blind to the others (docs/quality.md).
 */
export const KEY_SLOP = 2;
const SLOP_QUERY_WORDS = 6;

/**
 * The weight of a word the catalog writes as one where the query has two ("user name" meets `username`, "work flow"
 * meets `workflow`), relative to the user's own words: the same thing, spelled otherwise, found from the catalog's own
 * vocabulary rather than from a list. Chosen with `npm run eval` (docs/quality.md, leave-one-set-out).
 */
export const COMPOUND_WEIGHT = 0.5;

/**
 * In a long message that says which of its sentences ask (message.ts), the weight of the user's words
 * outside them: asides tell what the request is about, the asking sentences what is to be done. Fixed before it was
 * measured, on a set of long messages (docs/quality.md).
 */
export const ASIDE_WEIGHT = 0.5;

export interface SynonymRule {
  /**
   * The key's analysed terms, matched as a contiguous run of the query's terms; for a phrasal key, all its words
   * (stop words kept, stemmed), matched as a run of the query's words as written.
   */
  key: readonly string[];
  /**
   * A key with stop words in it (`log in`, `spin up`, `call off`): without them it would be a bare verb, so it is
   * matched with them. Its analysed terms (`words`) must be among the query's scored words.
   */
  phrasal?: { words: readonly string[] };
  /** The key as written, reported in explanations. */
  source: string;
  /** Each expansion's analysed terms. */
  expansions: readonly (readonly string[])[];
}

/** A synonym map compiled for query time: rules by the first term of their key. */
export type Synonyms = ReadonlyMap<string, readonly SynonymRule[]>;

/**
 * Compiles `{ key: [expansion, ...] }` (keys and expansions are words or short phrases). Keys or
 * expansions that analyse to nothing (only stop words) are dropped: validation refuses them earlier.
 */
export function compileSynonyms(
  map: Readonly<Record<string, readonly string[]>>,
  analyze: Analyze = defaultAnalyze,
  analyzeAll: Analyze = defaultAnalyzeAll,
): Synonyms {
  const rules = new Map<string, SynonymRule[]>();
  for (const [source, values] of Object.entries(map)) {
    const key = ruleKey(source, analyze, analyzeAll);
    const expansions = values.map(analyze).filter((terms) => terms.length > 0);
    if (key === null || expansions.length === 0) continue;
    const list = rules.get(key.key[0]!) ?? [];
    list.push({ ...key, source, expansions });
    rules.set(key.key[0]!, list);
  }
  return rules;
}

/** How a synonym key is matched (see SynonymRule), or null when it has no searchable words. */
export function ruleKey(
  text: string,
  analyze: Analyze = defaultAnalyze,
  analyzeAll: Analyze = defaultAnalyzeAll,
): Pick<SynonymRule, "key" | "phrasal"> | null {
  const words = analyze(text);
  if (words.length === 0) return null;
  const all = analyzeAll(text);
  return all.length === words.length ? { key: words } : { key: all, phrasal: { words } };
}

export interface QueryOptions {
  /** The tenant's synonyms: full weight; a key here replaces the built-in rule for the same key. */
  synonyms?: Synonyms;
  /** The built-in thesaurus, when the tenant has it on. */
  thesaurus?: Synonyms;
  /** Weight of a built-in expansion's terms (BUILTIN_EXPANSION_WEIGHT). */
  expansionWeight?: number;
  /** A one-word key's built-in expansions in a short query weigh this times `expansionWeight`. */
  shortExpansionFactor?: number;
  /** A built-in key's expansions weigh this many times more when no tool holds its words (UNKNOWN_KEY_FACTOR). */
  unknownKeyFactor?: number;
  /** What the expansions of a one-word key that abbreviates them weigh in a short query (ABBREVIATION_WEIGHT). */
  abbreviationWeight?: number;
  /** What a query word weighs, as a share of itself, inside a built-in key of several words (KEY_WORD_SHARE). */
  keyWordShare?: number;
  /** Weight of the expansions of a built-in key of two or more words (BUILTIN_PHRASE_KEY_WEIGHT). */
  phraseKeyWeight?: number;
  /** Weight of a two-word phrase (PHRASE_WEIGHT). */
  phraseWeight?: number;
  /** Catalog document frequency of a term: ranks the words of a long query by how informative they are. */
  df?: (term: string) => number;
  /** Weight of a word found only inside a value the query passes (VALUE_WEIGHT). */
  valueWeight?: number;
  /** Weight of the user's words outside the sentences that ask, in a long message (ASIDE_WEIGHT). */
  asideWeight?: number;
  /** Weight of a word the catalog writes as one for two adjacent query words (COMPOUND_WEIGHT); needs `df`. */
  compoundWeight?: number;
  /** Other words allowed between a multi-word key's own in a short query (KEY_SLOP). */
  keySlop?: number;
  /** The most distinct terms scored (limit max_query_terms). */
  maxTerms?: number;
  /** The index's analysis (tokenizer.ts); the default one when not given. */
  analyze?: Analyze;
  /** The same analysis keeping stop words (for phrasal synonym keys). */
  analyzeAll?: Analyze;
}

export interface AnalysedQuery {
  /** The terms to score, de-duplicated, within the bound. */
  terms: QueryTerm[];
  /** Every distinct word of the query (analysed), in order of first occurrence, kept or not. */
  words: string[];
  /** The query's analysed words in order, repeats included. */
  sequence: string[];
  /** The analysed words of the lines the user wrote (message.ts), in order: all of `sequence` for a plain query. */
  ownSequence: string[];
  /** A message whose every asking sentence asks for a reply, not an action (message.ts): it needs no tool. */
  replyOnly: boolean;
}

/** The query's terms (see the module comment). */
export function queryTerms(query: string, options: QueryOptions = {}): QueryTerm[] {
  return analyseQuery(query, options).terms;
}

export function analyseQuery(query: string, options: QueryOptions = {}): AnalysedQuery {
  const maxTerms = options.maxTerms ?? DEFAULT_LIMITS.max_query_terms;
  const analyze = options.analyze ?? defaultAnalyze;
  const sequence = analyze(query);
  const counts = new Map<string, number>();
  for (const word of sequence) counts.set(word, (counts.get(word) ?? 0) + 1);
  const valueWeight = options.valueWeight ?? VALUE_WEIGHT;
  const asideWeight = options.asideWeight ?? ASIDE_WEIGHT;
  // A message of several lines is read as one (message.ts): the lines the user wrote, and the sentences that ask.
  const message = readMessage(query);
  const own = message?.own ?? query;
  const ownSequence = message === null ? null : analyze(own);
  const ownWords = ownSequence === null ? null : new Set(ownSequence);
  // A word the user wrote counts as often as the user wrote it, not as often as a pasted log repeats it.
  if (ownSequence !== null) {
    for (const word of ownWords!) counts.set(word, 0);
    for (const word of ownSequence) counts.set(word, counts.get(word)! + 1);
  }
  // A word only inside the values the user's lines pass (values.ts), or only in pasted lines, weighs valueWeight.
  const asked = valueWeight === 1 ? null : mayHoldValues(own) ? new Set(analyze(withoutValues(own))) : ownWords;
  // The user's words outside the sentences that ask weigh asideWeight.
  const asking = message?.asking && asideWeight < 1 ? new Set(analyze(message.asking)) : null;
  const factor = (word: string) =>
    (asked === null || asked.has(word) ? 1 : valueWeight) *
    (asking === null || asking.has(word) || !ownWords!.has(word) ? 1 : asideWeight);
  const words = [...counts.keys()];
  const kept = new Set(mostInformative(words, counts, factor, Math.ceil(maxTerms / 2), options.df));

  const terms = new Map<string, QueryTerm>();
  const bits = new Map<string, number>();
  for (const word of kept) {
    // Each of the first 31 words has a bit, so the ranker can tell which of them a tool holds (tool-index.ts).
    const bit = bits.size < WORD_BITS ? 1 << bits.size : 0;
    bits.set(word, bit);
    terms.set(word, { term: word, weight: factor(word) * Math.sqrt(counts.get(word)!), word: true, bits: bit });
  }
  const add = (term: string, weight: number, via?: string, keyBits = 0) => {
    const present = terms.get(term);
    if (present && present.weight >= weight) return;
    if (!present && terms.size >= maxTerms) return;
    const own = present?.word ? { word: true, bits: present.bits ?? 0 } : keyBits ? { keyBits } : {};
    terms.set(term, { term, weight, ...own, ...(via ? { via } : {}) });
  };
  const short = kept.size <= SHORT_EXPANSION_WORDS;
  const expansionWeight =
    (options.expansionWeight ?? BUILTIN_EXPANSION_WEIGHT) *
    (short ? (options.shortExpansionFactor ?? SHORT_EXPANSION_FACTOR) : 1);
  const phraseKeyWeight = options.phraseKeyWeight ?? BUILTIN_PHRASE_KEY_WEIGHT;
  const phraseWeight = options.phraseWeight ?? PHRASE_WEIGHT;
  const slop = sequence.length <= SLOP_QUERY_WORDS ? (options.keySlop ?? KEY_SLOP) : 0;
  const keyFactor = (rule: SynonymRule) => Math.min(...(rule.phrasal?.words ?? rule.key).map(factor));
  const df = options.df;
  const unknownKeyFactor = df ? (options.unknownKeyFactor ?? UNKNOWN_KEY_FACTOR) : 1;
  const abbreviationWeight = short ? (options.abbreviationWeight ?? ABBREVIATION_WEIGHT) : 0;
  // What a built-in expansion weighs before the key's own factor: an abbreviation's, already just under the user's
  // words, as it is; others more when the catalog has none of the key's words.
  const builtinWeight = (rule: SynonymRule) => {
    if (rule.key.length === 1 && abbreviationWeight > expansionWeight && abbreviates(rule)) return abbreviationWeight;
    const weight = rule.key.length > 1 ? phraseKeyWeight : expansionWeight;
    if (!df || unknownKeyFactor === 1 || !(rule.phrasal?.words ?? rule.key).every((t) => df(t) === 0)) return weight;
    return Math.max(weight, Math.min(1, weight * unknownKeyFactor));
  };
  // Plain keys are matched on the analysed words, phrasal ones on all the words as written.
  const all = (options.analyzeAll ?? defaultAnalyzeAll)(query);
  // The query's words read inside a built-in key of several words, which the key's expansions do not repeat.
  const inKeys = new Set<string>();
  const runs = [
    { run: sequence, phrasal: false },
    { run: all, phrasal: true },
  ];
  for (const { run, phrasal } of runs) {
    for (let at = 0; at < run.length && terms.size < maxTerms; at++) {
      const matches = (rule: SynonymRule) =>
        (rule.phrasal !== undefined) === phrasal &&
        (phrasal ? phrasalAt(rule.key, run, at) : inOrder(rule.key, run, at, slop)) &&
        (rule.phrasal?.words ?? rule.key).every((t) => kept.has(t));
      const keyBits = (rule: SynonymRule) => (rule.phrasal?.words ?? rule.key).reduce((b, t) => b | bits.get(t)!, 0);
      const tenant = (options.synonyms?.get(run[at]!) ?? []).filter(matches);
      for (const rule of tenant) expand(rule, keyFactor(rule), phraseWeight, rule.source, keyBits(rule), add);
      for (const rule of (options.thesaurus?.get(run[at]!) ?? []).filter(matches)) {
        if (tenant.some((t) => sameKey(t.key, rule.key))) continue;
        expand(rule, builtinWeight(rule) * keyFactor(rule), phraseWeight, `builtin:${rule.source}`, keyBits(rule), add);
        if (rule.key.length > 1) {
          const repeated = new Set(rule.expansions.flat());
          for (const word of rule.phrasal?.words ?? rule.key) if (!repeated.has(word)) inKeys.add(word);
        }
      }
    }
  }
  const keyWordShare = options.keyWordShare ?? KEY_WORD_SHARE;
  for (const word of inKeys) {
    const own = terms.get(word)!;
    terms.set(word, { ...own, weight: own.weight * keyWordShare });
  }
  const compoundWeight = options.compoundWeight ?? COMPOUND_WEIGHT;
  if (compoundWeight > 0 && options.df) {
    const df = options.df;
    const seen = new Set<string>();
    for (let i = 0; i + 1 < sequence.length && terms.size < maxTerms; i++) {
      const [a, b] = [sequence[i]!, sequence[i + 1]!];
      const pair = `${a} ${b}`;
      if (!kept.has(a) || !kept.has(b) || seen.has(pair)) continue;
      seen.add(pair);
      const joined = analyze(a + b);
      if (joined.length !== 1 || terms.has(joined[0]!) || df(joined[0]!) === 0) continue;
      add(joined[0]!, compoundWeight * Math.min(factor(a), factor(b)), `compound:${pair}`, bits.get(a)! | bits.get(b)!);
    }
  }
  for (let i = 0; i + 1 < sequence.length && terms.size < maxTerms; i++) {
    if (phraseWeight > 0 && kept.has(sequence[i]!) && kept.has(sequence[i + 1]!)) {
      add(`${sequence[i]} ${sequence[i + 1]}`, phraseWeight * Math.min(factor(sequence[i]!), factor(sequence[i + 1]!)));
    }
  }
  return {
    terms: [...terms.values()],
    words,
    sequence,
    ownSequence: ownSequence ?? sequence,
    replyOnly: message?.replyOnly ?? false,
  };
}

const abbreviations = new WeakMap<SynonymRule, boolean>();

/** Whether a one-word key abbreviates each of its expansions (ABBREVIATION_WEIGHT); computed once per rule. */
function abbreviates(rule: SynonymRule): boolean {
  let known = abbreviations.get(rule);
  if (known === undefined) {
    const key = rule.key[0]!;
    known =
      rule.key.length === 1 &&
      key.length <= 6 &&
      rule.expansions.length > 0 &&
      rule.expansions.every((expansion) => {
        if (expansion.includes(key)) return false;
        const letters = expansion.join("");
        if (letters[0] !== key[0] || letters.length < key.length + 2) return false;
        let at = 0;
        for (const ch of letters) if (ch === key[at]) at++;
        return at === key.length;
      });
    abbreviations.set(rule, known);
  }
  return known;
}

function expand(
  rule: SynonymRule,
  weight: number,
  phraseWeight: number,
  via: string,
  keyBits: number,
  add: (term: string, w: number, via: string, keyBits: number) => void,
) {
  if (weight <= 0) return;
  for (const expansion of rule.expansions) {
    for (const term of expansion) add(term, weight, via, keyBits);
    if (phraseWeight > 0) for (const phrase of phrases(expansion)) add(phrase, phraseWeight * weight, via, keyBits);
  }
}

/** Object pronouns a separable phrasal verb may hold between its verb and its particle ("look it up"). */
const OBJECT_PRONOUNS: ReadonlySet<string> = new Set(defaultAnalyzeAll("it them him me us"));

/**
 * Whether a phrasal key occurs in `run` (the query's words as written) from `at` on: its words in a row, or with one
 * object pronoun after the verb, as English separates phrasal verbs ("look it up", "call them off" say "look up",
 * "call off"; the analysis drops this, that and their plurals, which then stand nowhere).
 */
function phrasalAt(key: readonly string[], run: readonly string[], at: number): boolean {
  if (key.every((t, i) => run[at + i] === t)) return true;
  return (
    key.length > 1 &&
    run[at] === key[0] &&
    OBJECT_PRONOUNS.has(run[at + 1] ?? "") &&
    key.slice(1).every((t, i) => run[at + 2 + i] === t)
  );
}

/** Whether `key` occurs in `run` from `at` on, in order, with at most `slop` other terms between its terms in all. */
function inOrder(key: readonly string[], run: readonly string[], at: number, slop: number): boolean {
  if (run[at] !== key[0]) return false;
  let position = at;
  let gaps = 0;
  for (const term of key.slice(1)) {
    let next = position + 1;
    while (next < run.length && run[next] !== term && gaps < slop) {
      next++;
      gaps++;
    }
    if (run[next] !== term) return false;
    position = next;
  }
  return true;
}

function sameKey(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((t, i) => t === b[i]);
}

/**
 * At most `max` of `words`: all of them when they fit; otherwise the words that weigh most (the asking sentences'
 * before the asides', the user's before values and pasted lines'), and among those the most informative, those the
 * catalog holds in the fewest tools (a word it lacks informs nothing and goes last), a repeated word counting
 * sqrt(repeats) times; ties keep the query's order.
 */
function mostInformative(
  words: string[],
  counts: ReadonlyMap<string, number>,
  factor: (word: string) => number,
  max: number,
  df: ((term: string) => number) | undefined,
): string[] {
  if (words.length <= max || !df) return words.slice(0, max);
  const value = (word: string) => {
    const n = df(word);
    return n === 0 ? 0 : Math.sqrt(counts.get(word)!) / Math.log(1 + n);
  };
  const ranked = words.map((word, order) => ({ word, order, weight: factor(word), value: value(word) }));
  ranked.sort((a, b) => b.weight - a.weight || b.value - a.value || a.order - b.order);
  return ranked.slice(0, max).map((r) => r.word);
}
