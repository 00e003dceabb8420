/**
 * Text analysis for tool search: identifier-aware splitting, lower-casing, stop words and a light stemmer.
 *
 * Tool names arrive in every style MCP servers use (`read_file`, `getWeather`, `HTTPRequest`,
 * `list-issues`, `github.search`, `mcp__x__ask_codex`); all of them must meet the plain words a
 * model types in a query. The same analysis runs on documents and queries, so a term matches only
 * a whole term (never a prefix: `read` does not match `readme`).
 */

/** Words too common in tool descriptions and queries to say anything about which tool is meant. */
const STOP_WORDS = new Set(
  (
    "a an and are as at be been but by can could do does for from has have how i if in into is it its " +
    "me my of on or our please should so than that the their them then there these this those to " +
    "us was we what when where which who will with would you your"
  ).split(" "),
);

const CAMEL_LOWER_UPPER = /([\p{Ll}\p{N}])(\p{Lu})/gu; // getWeather -> get Weather
const ACRONYM_WORD = /(\p{Lu}+)(\p{Lu}\p{Ll})/gu; // HTTPRequest -> HTTP Request
const LETTER_DIGIT = /(\p{L})(\p{N})/gu; // sha256 -> sha 256
const DIGIT_LETTER = /(\p{N})(\p{L})/gu; // 2fa -> 2 fa
const NON_WORD = /[^\p{L}\p{N}]+/u;
/** Scripts written without spaces: each character is its own term. */
const UNSPACED_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const UNSPACED_CHARS = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|[^\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+/gu;

/**
 * Splits text into lower-case words at spaces, punctuation (`_ - . :: / __`), camelCase and
 * PascalCase boundaries, acronym ends and letter/digit boundaries. Keeps order and duplicates.
 */
export function splitWords(text: string): string[] {
  const spaced = text
    .replace(ACRONYM_WORD, "$1 $2")
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
 * A light English plural stemmer (Harman's S-stemmer with `-ches`/`-xes`/`-uses`), chosen over
 * Porter because tool vocabulary is full of identifiers that aggressive stemming mangles.
 */
export function stem(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  if (word.endsWith("ies") && word.length > 4 && !/[ae]ies$/.test(word)) return word.slice(0, -3) + "y";
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
