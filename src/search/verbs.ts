/**
 * What a request asks to do, against what a tool's name says it does.
 *
 * Most requests open with the verb that says what to do ("List the rows of the Leads table", "Post the summary to
 * #general", "Can you add a row ..."), and most tool names carry one too (`create_record`, `list_records`,
 * `send_channel_message`). Where the two disagree, the tool does another thing to the same objects: in "list the rows
 * of the Leads table" a `create_record` that shares every noun with the request ranked first. When a request opens
 * with a verb of a class, every tool whose name does not say it does another kind of thing (its verbs include the
 * asked class, or it has none) ranks by VERB_BOOST times its score; a tool whose name's verbs are all of another
 * class keeps its score, and requests that open with no such verb leave every tool as it is. A boost rather than a
 * cut of the others, so that no tool's score falls under what decides the match: only the ranking changes, the
 * no-match decision weighs the tool as before (tool-index.ts `Hit.gate`).
 *
 * The classes group the verbs of CRUD and REST (create, read, update, delete) and of messaging, in the spirit of
 * PowerShell's approved-verb groups (New/Add, Get/Find/Search/Show, Set/Edit/Rename/Move, Remove/Clear, Send/Publish).
 * Left out on purpose: verbs whose everyday use is also another thing (`generate` a chart reads data; `new` and
 * `check` are mostly not verbs), and verbs of one kind of object (merge, deploy, cancel), which operations.ts weighs.
 */
import { splitWords } from "./tokenizer.ts";

/**
 * Chosen with `npm run eval` (docs/quality.md): first a cut of 0.7 for names that do another thing (leave-one-set-out
 * picked it on every fold; 0.6 cost toolbench and bfcl), now its inverse as a boost of the others, picked on every
 * fold too.
 */
export const VERB_BOOST = 1.43;

const CLASSES: Readonly<Record<string, string>> = {
  create: "create add make insert register",
  read: "get list show find search read fetch view count describe query lookup browse retrieve",
  update: "update edit modify change rename move set patch replace toggle enable disable assign",
  delete: "delete remove destroy drop erase purge uninstall unregister",
  send: "send post reply forward share publish announce notify",
};

/** Question words: a request that opens with one asks to be told something (read), unless a verb follows. */
const QUESTION_WORDS: ReadonlySet<string> = new Set("what which who when where how".split(" "));

type Analyse = (text: string) => string[];

/** Each class's verbs as `analyse` stems them, per analysis (tenants may analyse without stemming). */
const byAnalysis = new WeakMap<Analyse, ReadonlyMap<string, string>>();

function verbClasses(analyse: Analyse): ReadonlyMap<string, string> {
  let map = byAnalysis.get(analyse);
  if (!map) {
    const classes = new Map<string, string>();
    for (const [name, verbs] of Object.entries(CLASSES))
      for (const verb of verbs.split(" ")) {
        const term = analyse(verb)[0];
        if (term !== undefined) classes.set(term, name);
      }
    map = classes;
    byAnalysis.set(analyse, map);
  }
  return map;
}

/** How much of a request is read for its opening verb: the words before it are few ("could you please"). */
const OPENING_CHARS = 200;

/**
 * The class of what a request asks to do: that of its first word after the words analysis drops ("could you
 * please"), when that word is a verb used as one (`unasked` reads the opening: "the deploy failed", "merged pull
 * requests" ask for no deploy or merge, operations.ts); "read" when a question word comes before it and it is none
 * ("what pods are running", but "how do I create a repo" asks to create). A phrasal verb is read as a whole:
 * `phrasal(term)` gives the expansions of the synonym keys of several words that hold the word ("turn off" ->
 * disable, "set up" -> create, "get rid of" -> delete), and when they name one class, it is the request's. Undefined
 * when the request opens with anything else ("top posts this week").
 */
export function askedVerbClass(
  query: string,
  analyse: Analyse,
  unasked: (opening: string) => ReadonlySet<string>,
  phrasal: (term: string) => readonly string[] = () => [],
): string | undefined {
  const classes = verbClasses(analyse);
  const words = splitWords(query.slice(0, OPENING_CHARS));
  let question = false;
  for (const [i, word] of words.entries()) {
    if (QUESTION_WORDS.has(word)) question = true;
    const term = analyse(word)[0];
    if (term === undefined) continue;
    if (unasked(words.slice(0, i + 1).join(" ")).has(term)) break;
    const whole = new Set(phrasal(term).flatMap((t) => classes.get(t) ?? []));
    const asked = whole.size === 1 ? [...whole][0] : classes.get(term);
    return asked ?? (question ? "read" : undefined);
  }
  return question ? "read" : undefined;
}

/** One set per combination of classes (at most 32), shared by every tool name that has it: callers cache them. */
const interned = new Map<string, ReadonlySet<string>>();

/** The classes of the verbs in a tool's name (`create_record` -> create; `weather_forecast` -> none). */
export function nameVerbClasses(name: string, analyse: Analyse): ReadonlySet<string> {
  const classes = verbClasses(analyse);
  const found = new Set<string>();
  for (const word of splitWords(name)) {
    const verbClass = classes.get(analyse(word)[0] ?? "");
    if (verbClass) found.add(verbClass);
  }
  const key = [...found].sort().join(" ");
  let shared = interned.get(key);
  if (!shared) {
    shared = found;
    interned.set(key, shared);
  }
  return shared;
}

/**
 * A tool's factor for a request asking `asked` (askedVerbClass): `boost` unless its name has verbs and none is of the
 * asked class; 1 when the request asks no class.
 */
export function verbFactor(asked: string | undefined, tool: ReadonlySet<string>, boost: number): number {
  return asked !== undefined && (tool.size === 0 || tool.has(asked)) ? boost : 1;
}
