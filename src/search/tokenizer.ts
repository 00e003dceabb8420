/**
 * Text analysis for tool search: identifier-aware splitting, lower-casing, stop words and the
 * Porter stemmer.
 *
 * Tool names arrive in every style MCP servers use (`read_file`, `getWeather`, `HTTPRequest`,
 * `list-issues`, `github.search`, `mcp__x__ask_codex`); all of them must meet the plain words a
 * model types in a query. The same analysis runs on documents and queries, so a term matches only
 * a whole term (never a prefix: `read` does not match `readme`).
 */
import { porterStemmer as porter } from "./orama.ts";

/**
 * Words that say nothing about which tool is meant: English function words (articles, pronouns,
 * auxiliaries, prepositions, conjunctions, the fragments `what's` and `don't` split into), and the
 * words a request is wrapped in (`could you please help me`, `I would like`, `I need`, `provide`).
 * Requests to agents are full of the latter; left in, they match every tool that "provides" or
 * "helps" and drown the few words that name the task.
 */
const STOP_WORDS = new Set(
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
    // fragments of contractions (what's -> what s, don't -> don t, I'll -> i ll) and ordinals (10th -> 10 th)
    "th st nd rd s t d ll m o re ve y ain aren couldn didn doesn hadn hasn haven isn ma " +
      "mightn mustn needn shan shouldn wasn weren won wouldn",
    // the wrapping of a request
    "please help want need like let give provide tell know thanks thank hi hello additionally",
  ]
    .join(" ")
    .split(" "),
);

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

/** The terms a text contributes to the index or a query: split, stop words removed, stemmed. */
export function analyze(text: string): string[] {
  const terms: string[] = [];
  for (const word of splitWords(text)) {
    if (STOP_WORDS.has(word)) continue;
    terms.push(stem(word));
  }
  return terms;
}

/**
 * Two-word phrases: each pair of adjacent terms as one term (`weather forecast`). No analysed term
 * holds a space, so a phrase never collides with a word.
 */
export function phrases(terms: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < terms.length; i++) out.push(`${terms[i]} ${terms[i + 1]}`);
  return out;
}
