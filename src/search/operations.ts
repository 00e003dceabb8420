/**
 * Operations a short query asks for, and whether a tool offers them.
 *
 * "delete a confluence page" against a catalog whose Confluence tools get, create and update pages but never delete
 * them: the service and the noun score far above the threshold, and the best tool (`get_page`) does something else.
 * A short query that names an operation says what it wants done; a tool that holds none of its operation words (its
 * own or a synonym's) answers another request. Such a tool still ranks as it scores, but in the no-match decision it
 * counts for OPERATION_SHARE of its score (`Hit.gate`), so a catalog that lacks the operation answers "no match"
 * unless some tool holding it reaches the threshold. Chosen with `npm run eval` (docs/quality.md, "Operations the
 * catalog lacks").
 *
 * A short operation query that names a service the catalog has asks that service for it: "delete a slack message"
 * against a catalog whose Slack tools post and read but never delete, and whose Discord and Gmail tools delete
 * messages, is answered by neither. A tool that holds none of the service's names (in any of its fields) counts for
 * OPERATION_SHARE too (OPERATION_SERVICE; services.ts has the names).
 *
 * The words are the operations of public REST APIs and their everyday names (create, add, delete, remove, update,
 * edit, send, cancel, merge, archive, ...; mute, acknowledge, snooze, rerun, lock, label, ... of incident,
 * monitoring, CI and tracker APIs), from general knowledge; words that name what is read (get, list, search,
 * show) are not among them: every catalog has them, and a query that says only them asks for data, not an operation.
 */
import { analyze, DETERMINERS, splitWords } from "./tokenizer.ts";

/** The analysed operation words. */
export const OPERATION_WORDS: ReadonlySet<string> = new Set(
  analyze(
    "create add make insert delete remove destroy drop erase purge archive update edit modify change rename move " +
      "set send post reply forward share invite ban kick pin unpin star fork clone merge close reopen cancel " +
      "schedule book reserve run execute start stop restart kill trigger launch deploy upload download install " +
      "uninstall enable disable approve reject assign export import sync publish unpublish subscribe unsubscribe " +
      "transfer refund charge pay buy sell order " +
      // Actions of incident, monitoring, CI and tracker APIs (PagerDuty, Datadog, Opsgenie, GitHub, Jira).
      "mute unmute snooze silence acknowledge ack dismiss resolve rerun retry revert rollback restore lock unlock " +
      "block unblock mark label tag comment duplicate copy",
  ),
);

/** What a tool that holds none of a short query's operation words counts for in the no-match decision. */
export const OPERATION_SHARE = 0.2;

/** Queries of at most this many distinct words are short: they say one thing, so their operation is the request. */
export const OPERATION_QUERY_WORDS = 4;

/** Whether a short operation query's named service counts too: a tool of no service it names lacks the operation. */
export const OPERATION_SERVICE = true;

/**
 * Whether an operation word the query never uses to ask for the operation is no operation (`unasked`): "air quality
 * before my run" asks for no run, "announce the launch on discord" for no launch, "refund an order in shopify" for a
 * refund, not an order, and "which campaigns are running" or "merged pull requests" for no run or merge.
 */
export const OPERATION_NOUNS = true;

/**
 * Words after which a word names a thing, not an action: determiners and possessives ("my run", "the launch"), and
 * quantifiers ("every order").
 */
const NOUN_MARKERS: ReadonlySet<string> = new Set([...DETERMINERS, "every", "each", "any", "some", "no"]);

/**
 * Words that open a noun phrase of two words: after one of them and another word, an operation word ends the phrase
 * and names a thing ("a rocket launch", "my flight booking", "the comic book"). Articles and possessives only:
 * "that", "this" and quantifiers also start clauses ("that you delete", "each time you run").
 */
const PHRASE_OPENERS: ReadonlySet<string> = new Set("a an the my your our their his her its".split(" "));

/** Forms of "be": after one, a verb describes a state ("is running", "were merged"), it does not ask for it. */
const BE: ReadonlySet<string> = new Set("am is are was were be been being".split(" "));

/**
 * The operation words a query uses only in ways that ask for no operation: as a noun (right after a determiner or a
 * possessive, or ending a two-word noun phrase that one opens), as a state (right after a form of "be"), or as a
 * participle ("merged", "closed", "deleted": a filter, never an imperative). Read on the query's words as split
 * (`splitWords`), since analysis drops those words and endings; a word used once as a verb ("order the pizza my friend
 * ordered") is an operation.
 */
export function unasked(query: string, analyseWord: (text: string) => string[]): ReadonlySet<string> {
  const raw = splitWords(query);
  const asked = new Set<string>();
  const unaskedUses = new Set<string>();
  raw.forEach((word, i) => {
    const term = analyseWord(word)[0];
    if (term === undefined || !OPERATION_WORDS.has(term)) return;
    const before = i > 0 ? raw[i - 1]! : "";
    const participle = word.length > 4 && word.endsWith("ed");
    const phraseEnd = i > 1 && PHRASE_OPENERS.has(raw[i - 2]!) && !OPERATION_WORDS.has(analyseWord(before)[0] ?? "");
    (NOUN_MARKERS.has(before) || phraseEnd || BE.has(before) || participle ? unaskedUses : asked).add(term);
  });
  return new Set([...unaskedUses].filter((t) => !asked.has(t)));
}
