/**
 * The values a request passes to a tool, as opposed to the words that say what it wants done: "Clone
 * https://github.com/acme/design-system into ~/code" asks to clone; `design`, `system` and `code` are the argument's
 * words, and left at full weight they find tools about design systems and code. A whitespace-separated token is a
 * value when it is a URL (`scheme://...`), an e-mail address, or a path (`~/x`, `./x`, `/x`, `a/b`: a slash between
 * word characters, which also covers repository slugs like `acme/webapp` and image names). A path keeps its file
 * extension (`lease.pdf` asks for a PDF reader). Quoted text, numbers and identifiers are not values here: measured,
 * each cost more than it gave (a quote often holds the task itself: tag it as "important"; docs/quality.md).
 *
 * Each test reads one token once (no pattern here can retry from every position of a long run), so the work is
 * linear in the query's length.
 */

const URL_SCHEME = "://";
const EMAIL = /\w@\w[\w-]*\.\w/;
const INNER_SLASH = /\w\/\w/;
const LEADING_SLASH = /^(?:~|\.\.?)?\/\w/;
const EXTENSION = /\.([a-z][a-z0-9]{0,4})$/i;

/** Whether the query can hold a value at all: each kind has a slash or an at sign (most queries have neither). */
export function mayHoldValues(query: string): boolean {
  return query.includes("/") || query.includes("@");
}

/** The query with each value token replaced by its file extension (paths) or a space: the words it asks with. */
export function withoutValues(query: string): string {
  return query
    .split(/\s+/)
    .map((token) => {
      if (token.includes(URL_SCHEME) || EMAIL.test(token)) return "";
      if (!INNER_SLASH.test(token) && !LEADING_SLASH.test(token)) return token;
      return EXTENSION.exec(trimEnd(token))?.[1] ?? "";
    })
    .join(" ");
}

/** The token without the punctuation that ends a sentence or a bracket after it ("~/q2.pdf." -> "~/q2.pdf"). */
function trimEnd(token: string): string {
  let end = token.length;
  while (end > 0 && !/\w/.test(token[end - 1]!)) end--;
  return token.slice(0, end);
}
