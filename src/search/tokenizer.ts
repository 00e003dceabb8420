/**
 * Text analysis for tool search: identifier-aware splitting, lower-casing, stop words and the
 * Porter stemmer (the `stemmer` package: Orama's English stemmer drops the t of -tion, so `connection` never
 * met `connect`).
 *
 * Tool names arrive in every style MCP servers use (`read_file`, `getWeather`, `HTTPRequest`,
 * `list-issues`, `github.search`, `mcp__x__ask_codex`); all of them must meet the plain words a
 * model types in a query. The same analysis runs on documents and queries, so a term matches only
 * a whole term (never a prefix: `read` does not match `readme`).
 */
import { stemmer as porter } from "stemmer";

/**
 * Stop words: words that say nothing about which tool is meant: English function words (articles, pronouns,
 * auxiliaries, prepositions, conjunctions, the fragments `what's` and `don't` split into), and the
 * words a request is wrapped in (`could you please help me`, `I would like`, `I need`). `provide` is not one of them
 * although requests say "provide me with": dropping it helped only the set of RapidAPI requests and cost right
 * "no match" answers elsewhere (docs/quality.md, "Request words").
 * Requests to agents are full of the latter; left in, they match every tool that "provides" or
 * "helps" and drown the few words that name the task.
 */
const FUNCTION_WORDS = new Set(
  [
    // articles, pronouns, determiners
    "a an the i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her " +
      "hers herself it its itself they them their theirs themselves this that these those what which who whom whose",
    // auxiliaries and modals
    "am is are was were be been being have has had having do does did doing can could will " +
      "would shall should may might must",
    // prepositions, conjunctions, adverbs of no topic
    "of at by for with about against between into through during before after above below to from up down in out on " +
      "off over under again further then once here there when where why how all any both each few more most other " +
      "some such no nor not only own same so than too very just now and but if or because as until while also",
    // connectives that join a request's sentences (`Additionally, ...`, `Finally, ...`)
    "additionally furthermore moreover besides however therefore thus meanwhile finally lastly firstly secondly",
    // fragments of contractions (what's -> what s, don't -> don t, I'll -> i ll) and ordinals (10th -> 10 th)
    "th st nd rd s t d ll m o re ve y ain aren couldn didn doesn hadn hasn haven isn ma " +
      "mightn mustn needn shan shouldn wasn weren won wouldn",
  ]
    .join(" ")
    .split(" "),
);

/** The words a request is wrapped in (see above). */
const REQUEST_WORDS = new Set("please help want need like let give tell know thanks thank hi hello".split(" "));

const ACRONYM_PLURAL = /(?<=\p{Lu}\p{Lu})s(?!\p{Ll})/gu; // PRs -> PR, URLs -> URL (not P Rs); one look per `s`
const CAMEL_LOWER_UPPER = /([\p{Ll}\p{N}])(\p{Lu})/gu; // getWeather -> get Weather
/**
 * HTTPRequest -> HTTP Request: a break after a capital that starts a capitalised word. Each match is
 * one character and a two-character lookahead, so the scan is linear in the text. (The obvious
 * `(\p{Lu}+)(\p{Lu}\p{Ll})` backtracks over every run of capitals from each of its positions:
 * quadratic, seconds for a 64 KB description in capitals.)
 */
const ACRONYM_WORD = /(\p{Lu})(?=\p{Lu}\p{Ll})/gu;
const LETTER_DIGIT = /(\p{L})(\p{N})/gu; // sha256 -> sha 256
const DIGIT_LETTER = /(\p{N})(\p{L})/gu; // 2fa -> 2 fa
const NON_WORD = /[^\p{L}\p{N}]+/u;
/** Scripts written without spaces: each character is its own term. */
const UNSPACED_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const UNSPACED_CHARS =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|[^\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+/gu;

/**
 * Splits text into lower-case words at spaces, punctuation (`_ - . :: / __`), camelCase and
 * PascalCase boundaries, acronym ends and letter/digit boundaries. Keeps order and duplicates.
 */
export function splitWords(text: string): string[] {
  const spaced = text
    .replace(ACRONYM_PLURAL, "")
    .replace(ACRONYM_WORD, "$1 ")
    .replace(CAMEL_LOWER_UPPER, "$1 $2")
    .replace(LETTER_DIGIT, "$1 $2")
    .replace(DIGIT_LETTER, "$1 $2")
    .toLowerCase();
  const words: string[] = [];
  for (const part of spaced.split(NON_WORD)) {
    if (part === "") continue;
    if (UNSPACED_SCRIPT.test(part)) words.push(...(part.match(UNSPACED_CHARS) ?? []));
    else words.push(part);
  }
  return words;
}

/**
 * Plurals folded first (Harman's S-stemmer with `-ches`/`-xes`/`-uses`, which Porter misses for
 * `statuses`), then Porter's stemmer: `calculates`, `calculated` and `calculation` meet `calculate`,
 * `forecasts` meets `forecast`. Stronger than plural folding alone, which matters when queries
 * paraphrase descriptions instead of quoting them. Numbers are left as they are, and so are words
 * longer than MAX_STEMMED_CHARS (no English word is; a run of junk is not worth the stemmer's time).
 */
export function stem(word: string): string {
  if (word.length > MAX_STEMMED_CHARS) return word;
  let stemmed = stems.get(word);
  if (stemmed === undefined) {
    stemmed = /\d/.test(word) ? word : porter(foldPlural(word));
    remember(word, stemmed);
  }
  return stemmed;
}

/** Words longer than this are neither stemmed nor cached. */
export const MAX_STEMMED_CHARS = 64;
/**
 * The stem cache's size in bytes, as counted: 2 per UTF-16 code unit of each word and its stem, plus
 * STEM_ENTRY_BYTES for the map entry and the two string headers. When full it starts again empty.
 * It is shared by every tenant in the isolate, so it is bounded by what it holds, not by how many
 * words (about 40,000 ordinary words fit).
 */
export const STEM_CACHE_BYTES = 4 * 1024 * 1024;
const STEM_ENTRY_BYTES = 64;

/** Porter's rules are a chain of regular expressions; a catalog repeats few thousand words, so results are kept. */
const stems = new Map<string, string>();
let stemCacheBytes = 0;

function remember(word: string, stemmed: string): void {
  const size = 2 * (word.length + stemmed.length) + STEM_ENTRY_BYTES;
  if (stemCacheBytes + size > STEM_CACHE_BYTES) {
    stems.clear();
    stemCacheBytes = 0;
  }
  stems.set(word, stemmed);
  stemCacheBytes += size;
}

/** What the stem cache holds, in entries and counted bytes (for the tests of its bound). */
export function stemCacheSize(): { entries: number; bytes: number } {
  return { entries: stems.size, bytes: stemCacheBytes };
}

function foldPlural(word: string): string {
  if (word.length <= 3) return word;
  if (word.endsWith("ies") && word.length > 4 && !/[ae]ies$/.test(word)) return `${word.slice(0, -3)}y`;
  if (word.endsWith("sses")) return word.slice(0, -2);
  if (word.endsWith("es") && /(ch|sh|x|zz|us)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith("s") && !/(ss|us|is|ys)$/.test(word)) return word.slice(0, -1);
  return word;
}

/** The choices of analysis; the evaluation measures each (docs/quality.md). */
export interface Analysis {
  /** Porter's stemmer after plural folding; without it, plural folding only. */
  stemming: boolean;
  /** Drop the words requests are wrapped in, besides English function words. */
  requestWords: boolean;
}

export const DEFAULT_ANALYSIS: Analysis = { stemming: true, requestWords: true };

/** What an analysis makes of a text: its terms, in order, with repeats. */
export type Analyze = (text: string) => string[];

/** Articles and possessives: they never change what a phrasal verb means (`kick off a build` = `kick off build`). */
export const DETERMINERS: ReadonlySet<string> = new Set(
  "a an the my your our their his her its this that these those".split(" "),
);

/**
 * The analysis `options` describe: split, stop words removed, stemmed. With `keepStopWords`, stop words are kept
 * (but determiners): the form in which phrasal synonym keys such as `log in` or `spin up` are matched (query.ts).
 */
export function analyzer(options: Analysis, keepStopWords = false): Analyze {
  const normalise = options.stemming ? stem : (word: string) => (/\d/.test(word) ? word : foldPlural(word));
  const skip = keepStopWords
    ? (word: string) => DETERMINERS.has(word)
    : (word: string) => FUNCTION_WORDS.has(word) || (options.requestWords && REQUEST_WORDS.has(word));
  return (text) => {
    const terms: string[] = [];
    for (const word of splitWords(text)) if (!skip(word)) terms.push(normalise(word));
    return terms;
  };
}

/** The terms a text contributes to the index or a query (the default analysis). */
export const analyze: Analyze = analyzer(DEFAULT_ANALYSIS);

/** Every word of a text but determiners, stemmed, stop words kept (the default analysis). */
export const analyzeAll: Analyze = analyzer(DEFAULT_ANALYSIS, true);

/**
 * Two-word phrases: each pair of adjacent terms as one term (`weather forecast`). No analysed term
 * holds a space, so a phrase never collides with a word.
 */
export function phrases(terms: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < terms.length; i++) out.push(`${terms[i]} ${terms[i + 1]}`);
  return out;
}
