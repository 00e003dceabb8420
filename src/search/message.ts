/**
 * How a message of several lines is read: which lines the user wrote, which sentences ask for something, and whether
 * all it asks for is a reply.
 *
 * Agents pass users' whole messages, and a long one is mostly context: "CI is red again, here's the job: <forty lines
 * of log> The fixture moved to a leap day last week. Can you open an issue in acme/billing for this?" asks to open an
 * issue; the log's words (redis, postgres, timeout) and the story around the request say what the issue is about,
 * and left at full weight they find tools about redis, postgres and fixtures. So (query.ts):
 * - a line is **pasted** when it is inside a fenced block (``` or ~~~) or looks like machine text rather than prose:
 *   indented by two spaces or more, or a tab, unless it is a list item (code, stack frames, YAML, nested JSON);
 *   quoted (`>`: a forwarded mail); starting with a date, a time, a log level or a shell prompt; ending with `;`,
 *   `{` or `}`, or starting with a closing bracket (code); or with fewer than three in five of its visible
 *   characters letters (tables of numbers, JSON, hashes). Its words weigh as a value's (values.ts).
 * - among the user's own lines, the sentences that **ask** (a request form of English, or a sentence that opens with
 *   a verb) are the request; the user's other sentences are asides, and their words weigh less.
 * - a message whose every asking sentence asks for an explanation, a summary, a rewrite or a review of what it holds,
 *   and for no action, is **answered in the reply**: it needs no tool (tool-index.ts counts its hits so in the
 *   no-match decision).
 * A message of one or two lines has no pasted lines; its asides are read only when it has six sentences or more: a
 * request of a few sentences ("I'm flying to Paris on Friday. What's the weather there?") needs each of them, and
 * reading such requests so cost the sets of short multi-sentence requests (docs/quality.md).
 *
 * The lists are English's request forms and everyday verbs from general knowledge, not from any query set. Each line
 * and sentence is read once by anchored or word-bounded tests (none can retry from every position of a long run),
 * so the work is linear in the message's length.
 */

/**
 * What a hit counts for in the no-match decision when the message asks only for a reply: the share a hit lacking a
 * short query's operation counts for (operations.ts), fixed before it was measured (docs/quality.md).
 */
export const REPLY_SHARE = 0.2;

/** Messages of fewer lines have no pasted lines: they are the user's own words throughout. */
const MIN_LINES = 3;
/**
 * A message of one paragraph is long from this many sentences on: its asides are read as in a message of several
 * lines. Requests of a few sentences ("I'm flying to Paris on Friday. What's the weather there?") need every one.
 */
const LONG_SENTENCES = 6;
const FENCE = /^\s*(?:```|~~~)/;
const INDENTED = /^(?: {2,}|\t)(?![-*+•] |\d{1,3}[.)] )/;
const QUOTED = /^\s*>/;
const LOG_START =
  /^\s*[[(]?(?:\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2}:\d{2}|(?:ERROR|WARN|WARNING|INFO|DEBUG|TRACE|FATAL|CRITICAL)\b|[$#%] )/;
const CODE_END = /[;{}]\s*$/;
const CODE_START = /^\s*[}\])]/;
const NON_LETTERS = /[^\p{L}]/gu;
const SPACES = /\s/g;
/** The least share of letters among a line's visible characters for it to read as prose. */
const PROSE_LETTERS = 0.6;

/** The forms English gives a request: a question put to the assistant, a plea, a wish or need, an invitation. */
const ASKING = new RegExp(
  [
    "\\b(?:can|could|would|will|won't|can't) (?:you|u)\\b",
    "\\b(?:would|do) you mind\\b",
    "\\b(?:please|pls|plz|kindly)\\b",
    "\\bi(?:'d| would)? (?:need|want)\\b",
    "\\bi(?:'d| would) (?:like|love)\\b",
    "\\bi'd appreciate\\b",
    "\\bi was (?:wondering|hoping)\\b",
    "\\bis it possible to\\b",
    "\\bwhat i (?:need|want)\\b",
    "\\b(?:my|the) (?:ask|request) (?:is|here)\\b",
    "\\bhelp me\\b",
    "\\blet'?s\\b",
    "\\bgo ahead\\b",
    "\\bmake sure\\b",
    "\\b(?:don't forget|remember) to\\b",
  ].join("|"),
  "i",
);

/** Everyday verbs of software work: the operations of public APIs, and reading, finding and telling. */
const VERBS =
  "create|add|make|insert|delete|remove|archive|update|edit|change|rename|move|set|send|post|reply|forward|share|" +
  "invite|pin|merge|close|reopen|cancel|schedule|book|run|execute|start|stop|restart|trigger|deploy|upload|" +
  "download|install|enable|disable|approve|assign|export|import|publish|open|file|log|get|find|search|list|show|" +
  "check|look|fetch|pull|grab|read|write|draft|put|tell|give|summari[sz]e|email|message|ping|notify|query|save|store";

/** A sentence that opens with a verb and its object ("Open an issue for it."), after "and", "then", "also", ... */
const IMPERATIVE = new RegExp(`^(?:(?:and|then|also|so|now|ok|okay|hey)[ ,]+)*(?:${VERBS})\\s+\\w`, "i");

/** What a reply gives: an explanation, a summary, a rewrite, a translation, a review. */
const REPLY = new RegExp(
  "\\b(?:explain|explanation|summari[sz]e|summary|tl;?dr|rewrite|rephrase|reword|translate|translation|" +
    "proofread|review|critique|improve|polish|shorten|simplify|feedback|what does (?:this|that|it) mean|" +
    "why (?:is|does|did|do|are|would)|what(?:'s| is) wrong|help me understand|walk me through|" +
    "tell me (?:what|why|how|whether|if|which)|write me|help me (?:write|figure out|debug)|point out|" +
    "break (?:it|this|that) down|what(?:'s| is| are) the (?:difference|problem|issue)|how (?:do|can|should) i)\\b",
  "i",
);

/** Words that ask to act on something outside the message: an operation, a look-up, or what they act on. */
const ACTING = new RegExp(
  "\\b(?:create|add|make|insert|delete|remove|archive|update|edit|rename|move|set|send|post|reply|forward|share|" +
    "invite|pin|merge|close|reopen|cancel|schedule|book|run|execute|start|stop|restart|trigger|deploy|upload|" +
    "download|install|enable|disable|approve|assign|export|import|publish|open|file|log|get|find|search|list|show|" +
    "fetch|pull|grab|read|save|store|put|email|message|ping|notify|query|look up|comment|draft|write to|attach|" +
    "channel|ticket|issue|calendar|repo|database|page)\\b",
  "i",
);

export interface MessageReading {
  /** The lines the user wrote, joined (the pasted ones left out). */
  own: string;
  /** The sentences of `own` that ask, joined by newlines; null when none does, or all do (all weigh alike). */
  asking: string | null;
  /** Every asking sentence asks for a reply (an explanation, a rewrite) and none for an action. */
  replyOnly: boolean;
}

/**
 * How `message` is read (see the module comment); null for a short message (one or two lines and fewer than
 * LONG_SENTENCES sentences), or one all pasted.
 */
export function readMessage(message: string): MessageReading | null {
  const lines = message.split("\n");
  const own =
    lines.length >= MIN_LINES ? userLines(lines) : sentences(message).length >= LONG_SENTENCES ? message : null;
  if (own === null) return null;
  const asking = asks(own);
  return { own, asking: asking?.join("\n") ?? null, replyOnly: asking?.every(repliesOnly) ?? false };
}

/** The lines of `message` the user wrote, joined; null when it has too few lines, or all its lines are pasted. */
export function ownLines(message: string): string | null {
  const lines = message.split("\n");
  return lines.length < MIN_LINES ? null : userLines(lines);
}

function userLines(lines: readonly string[]): string | null {
  const own: string[] = [];
  let fenced = false;
  for (const line of lines) {
    if (FENCE.test(line)) fenced = !fenced;
    else if (!fenced && !pastedLine(line)) own.push(line);
  }
  return own.some((line) => line.trim() !== "") ? own.join("\n") : null;
}

function pastedLine(line: string): boolean {
  if (line.trim() === "") return false;
  if (INDENTED.test(line) || QUOTED.test(line) || LOG_START.test(line)) return true;
  if (CODE_END.test(line) || CODE_START.test(line)) return true;
  const visible = line.replace(SPACES, "");
  return visible.replace(NON_LETTERS, "").length < PROSE_LETTERS * visible.length;
}

/** The sentences of `text` that ask, joined by newlines; null when there is one sentence, or none asks, or all do. */
export function askingSentences(text: string): string | null {
  return asks(text)?.join("\n") ?? null;
}

function asks(text: string): string[] | null {
  const all = sentences(text);
  const asking = all.filter((s) => ASKING.test(s) || IMPERATIVE.test(s));
  return asking.length === 0 || asking.length === all.length ? null : asking;
}

function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

function repliesOnly(sentence: string): boolean {
  return REPLY.test(sentence) && !ACTING.test(sentence);
}
