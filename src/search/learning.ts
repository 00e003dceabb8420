/**
 * Learning from use, as pure rules: which words a session's searches leave behind, how a tool is credited with them,
 * how credit decays, and what term frequency a tool's `usage` field gets from it.
 *
 * The idea is query association (Scholer and Williams, CIKM 2002): the queries whose answer a user went on to use are
 * attached to that answer as a surrogate text field, searched like its other fields, as anchor text is in web search.
 * Here the "use" is a session resolving a catalog tool (the harness is about to run it), not a tool merely returned
 * (Joachims, KDD 2002: what is shown gets clicked). Every bound below keeps one session, or one repeated query, from
 * steering a tenant's ranking: a session credits at most SESSION_CREDITS times, each (session, turn, tool) once; a
 * tool keeps its TOOL_TERMS strongest terms; repeated credit grows a term's frequency logarithmically, up to TF_BOUND;
 * credit halves every `halfLifeDays`.
 *
 * The tenant object keeps the records and the learned terms in SQLite and calls these functions; the evaluation
 * (scripts/eval/learn.ts) replays sessions through the very same functions.
 */
import { analyze } from "./tokenizer.ts";

/** Distinct terms one search leaves for crediting (its first ones): a long request does not flood a tool. */
export const RECORD_TERMS = 32;
/** Distinct terms one credit gives a tool: the turn's searches, latest first. */
export const CREDIT_TERMS = 48;
/** Credits one session may give in its whole life (each (session, turn, tool) at most once). */
export const SESSION_CREDITS = 16;
/** Terms a tool keeps, the strongest by decayed weight: the usage field never grows past this. */
export const TOOL_TERMS = 64;
/**
 * How many credits make a usage term as frequent as one occurrence: tf = log2(1 + weight / CREDIT_SCALE), so one
 * session's credit gives 0.17 (a hint, not a match), 8 agreeing credits 1, 24 give 2 (see `usageTf`).
 */
const CREDIT_SCALE = 8;
/**
 * Largest term frequency of the usage field, reached after CREDIT_SCALE * (2^TF_BOUND - 1) = 120 undecayed credits:
 * many sessions agree more than a few do, but their weight stops growing.
 */
export const TF_BOUND = 4;
/** A decayed weight below this is gone: it scores nothing, and the alarm deletes it (about 4.3 half-lives). */
export const WEIGHT_FLOOR = 0.05;
/** The tenant setting `learn_half_life_days` when it is not set. */
export const DEFAULT_HALF_LIFE_DAYS = 30;

const DAY_MS = 24 * 3600 * 1000;

/** A learned term of a tool and its weight: the number of credits it received, each decayed to the weight's day. */
export interface LearnedTerm {
  term: string;
  weight: number;
}

/** Decay advances in whole days: the day number (days since 1970-01-01 UTC) of a time in ms. */
export function dayOf(ms: number): number {
  return Math.floor(ms / DAY_MS);
}

/** `weight` as of `day` (which it was at `from`), halving every `halfLifeDays`. */
export function decayed(weight: number, from: number, day: number, halfLifeDays: number): number {
  return day <= from ? weight : weight * 2 ** (-(day - from) / halfLifeDays);
}

/**
 * The usage field's term frequency for a (decayed) weight: log2(1 + weight / CREDIT_SCALE), so repeated credit counts
 * sublinearly and one session's counts little, at most TF_BOUND; 0 below WEIGHT_FLOOR.
 */
export function usageTf(weight: number): number {
  return weight < WEIGHT_FLOOR ? 0 : Math.min(TF_BOUND, Math.log2(1 + weight / CREDIT_SCALE));
}

/**
 * The terms a search records for crediting: its analysed words (the analysis every query gets, tokenizer.ts), each
 * once, in order, without those that name nothing (one letter, only digits: ids, amounts, dates), at most
 * RECORD_TERMS. No raw text is kept anywhere.
 */
export function searchTerms(query: string): string[] {
  const out = new Set<string>();
  for (const term of analyze(query)) {
    if (out.size === RECORD_TERMS) break;
    if (term.length >= 2 && /\p{L}/u.test(term)) out.add(term);
  }
  return [...out];
}

/**
 * The terms one credit gives: the union of the turn's records (in the order they were recorded), latest record
 * first, at most CREDIT_TERMS. The search that found the tool comes last, so its words always count; earlier ones
 * in the same turn (often the words that did not find it) fill the rest.
 */
export function creditTerms(records: readonly (readonly string[])[]): string[] {
  const out = new Set<string>();
  for (let r = records.length - 1; r >= 0; r--)
    for (const term of records[r]!) {
      if (out.size === CREDIT_TERMS) return [...out];
      out.add(term);
    }
  return [...out];
}

/** Whether a session may credit a tool now: not already this turn, and its credits not spent. */
export function mayCredit(creditedThisTurn: boolean, sessionCredits: number): boolean {
  return !creditedThisTurn && sessionCredits < SESSION_CREDITS;
}

/**
 * A tool's learned terms after one credit on `day`: its terms decayed from `since` (the day of its last credit) to
 * `day`, plus 1 for each credited term; terms below WEIGHT_FLOOR dropped; the TOOL_TERMS strongest kept (on equal
 * weight, the terms of this credit, then by term). Sorted strongest first.
 */
export function applyCredit(
  learned: readonly LearnedTerm[],
  since: number,
  credited: readonly string[],
  day: number,
  halfLifeDays: number,
): LearnedTerm[] {
  const weights = new Map<string, number>();
  for (const t of learned) weights.set(t.term, decayed(t.weight, since, day, halfLifeDays));
  const fresh = new Set(credited);
  for (const term of fresh) weights.set(term, (weights.get(term) ?? 0) + 1);
  return [...weights]
    .filter(([, weight]) => weight >= WEIGHT_FLOOR)
    .sort(([a, wa], [b, wb]) => wb - wa || Number(fresh.has(b)) - Number(fresh.has(a)) || (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, TOOL_TERMS)
    .map(([term, weight]) => ({ term, weight }));
}
