/**
 * The thesaurus format: Solr/Lucene `synonyms.txt` (SolrSynonymParser), one rule a line.
 *
 *   # a comment (a whole line; leading spaces allowed)
 *   ticket, issue                  equivalents: each member expands to every other member
 *   pr => pull request             one way: a query saying `pr` also searches `pull request`
 *   repo, repos => repository      one way, several sources: each left member maps to the right side
 *   dm => direct message, dms      several targets; multi-word entries are phrases
 *
 * Differences from Solr, all on the safe side: expansion only adds (a one-way rule keeps the query's
 * own word, as Solr's `expand` with the source listed on the right would); rules are not applied
 * transitively (`a, b` and `b, c` do not make `a` expand to `c`); `#` starts a comment only at the
 * start of a line, and a `#` inside a rule is an error instead of silently becoming part of a term
 * (write `\#` for a literal one). A backslash escapes the next character (`\,` `\=` `\#` `\\`).
 *
 * Parsing (`parseSynonyms`) works on the text as written; compiling (`compileRules`) analyses every
 * side with the index's own analysis (tokenizer.ts), so that a rule meets queries and tool text
 * exactly as they are indexed: case, plurals and stems do not matter, stop words vanish.
 */
import { ruleKey, type SynonymRule } from "../query.ts";
import { type Analyze, analyzeAll as defaultAnalyzeAll, analyze as defaultAnalyze } from "../tokenizer.ts";

/** One rule as written: a query that says `from` is also searched for each entry of `to`. */
export interface ThesaurusRule {
  from: string;
  to: string[];
  /** 1-based line of the rule in its list. */
  line: number;
  /** The list the rule comes from (a domain file's name, `tenant`, ...), when given. */
  source?: string;
}

/** A line that could not be used, and why. */
export interface ThesaurusProblem {
  /** 1-based line in its list. */
  line: number;
  source?: string;
  text: string;
  message: string;
}

export interface ParseResult {
  rules: ThesaurusRule[];
  problems: ThesaurusProblem[];
}

/** A side of a rule may hold at most this many searchable words (the tenant synonym limit, config/synonyms.ts). */
const MAX_PHRASE_TERMS = 4;

/** Splits on `separator` outside backslash escapes; returns null on a dangling backslash. */
function splitEscaped(text: string, separator: string): string[] | null {
  const parts: string[] = [];
  let current = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === "\\") {
      if (i + 1 >= text.length) return null;
      current += ch + text[i + 1];
      i++;
    } else if (text.startsWith(separator, i)) {
      parts.push(current);
      current = "";
      i += separator.length - 1;
    } else {
      current += ch;
    }
  }
  parts.push(current);
  return parts;
}

/** Removes escapes (`\,` -> `,`) and collapses white space. */
function unescapeEntry(entry: string): string {
  return entry.replace(/\\(.)/g, "$1").replace(/\s+/g, " ").trim();
}

/** True if `text` holds a `#` that no backslash escapes. */
function hasUnescapedHash(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === "#") return true;
  }
  return false;
}

/** The members of one side, or a problem message. */
function members(side: string, what: string): string[] | string {
  const parts = splitEscaped(side, ",");
  if (parts === null) return "a backslash at the end of the line escapes nothing";
  const out = parts.map(unescapeEntry);
  if (out.some((m) => m === "")) return `an empty entry on the ${what} (a stray comma?)`;
  const seen = new Set<string>();
  for (const m of out) {
    const lower = m.toLowerCase();
    if (seen.has(lower)) return `'${m}' is listed twice on the ${what}`;
    seen.add(lower);
  }
  return out;
}

/**
 * Parses rule lines (an array, or one text of lines). Blank lines and comments are skipped; every
 * other line yields rules or a problem with its line number. An equivalence line yields one rule
 * per member, whose `to` is every other member.
 */
export function parseSynonyms(input: string | readonly string[], source?: string): ParseResult {
  const lines = typeof input === "string" ? input.split(/\r?\n/) : input;
  const rules: ThesaurusRule[] = [];
  const problems: ThesaurusProblem[] = [];
  /** Adds the line's rules; answers what is wrong with it, if anything. */
  const parseLine = (raw: string, line: number): string | undefined => {
    const text = raw.trim();
    if (text === "" || text.startsWith("#")) return;
    if (hasUnescapedHash(text)) {
      return "a '#' inside a rule: comments go on their own line (write \\# for a '#')";
    }
    const sides = splitEscaped(text, "=>");
    if (sides === null) return "a backslash at the end of the line escapes nothing";
    if (sides.length > 2) return "more than one '=>' on the line";
    const at = (rule: Omit<ThesaurusRule, "line" | "source">) =>
      rules.push({ ...rule, line, ...(source ? { source } : {}) });
    if (sides.length === 2) {
      if (sides[0]!.trim() === "") return "nothing before '=>'";
      if (sides[1]!.trim() === "") return "nothing after '=>'";
      const left = members(sides[0]!, "left of '=>'");
      if (typeof left === "string") return left;
      const right = members(sides[1]!, "right of '=>'");
      if (typeof right === "string") return right;
      for (const from of left) at({ from, to: right.filter((to) => to.toLowerCase() !== from.toLowerCase()) });
      return;
    }
    const all = members(sides[0]!, "line");
    if (typeof all === "string") return all;
    if (all.length < 2) return "a single entry maps nothing: write 'a, b' (equivalents) or 'a => b' (one way)";
    for (const from of all) at({ from, to: all.filter((to) => to !== from) });
  };
  for (const [index, raw] of lines.entries()) {
    const message = parseLine(raw, index + 1);
    if (message) problems.push({ line: index + 1, ...(source ? { source } : {}), text: raw, message });
  }
  // `a => a` leaves a rule with nothing to add.
  for (const rule of rules.filter((r) => r.to.length === 0)) {
    const where = { line: rule.line, ...(rule.source ? { source: rule.source } : {}) };
    problems.push({ ...where, text: rule.from, message: "maps only to itself" });
  }
  return { rules: rules.filter((r) => r.to.length > 0), problems };
}

/** A rule compiled for query time: `key` matched as a contiguous run of a query's analysed terms. */
interface CompiledRule extends SynonymRule {
  /** The analysed terms of `from` (all its words, stop words kept, for a phrasal key: see query.ts). */
  key: string[];
  /** `from` as first written, for explanations (`via: "builtin:<source>"`). */
  source: string;
  /** The analysed terms of each expansion, in the order written, without duplicates. */
  expansions: string[][];
  /** Each expansion as written, parallel to `expansions`. */
  targets: string[];
}

/** Compiled rules by the first term of their key, longest keys first; the shape of query.ts's `Synonyms`. */
export type CompiledThesaurus = ReadonlyMap<string, readonly CompiledRule[]>;

export interface CompileResult {
  thesaurus: CompiledThesaurus;
  problems: ThesaurusProblem[];
}

/**
 * Analyses every rule and merges the rules whose keys analyse alike (`doc => ...` and `docs => ...`).
 * Reports and drops what could never work or never add anything: a side with no searchable words
 * (only stop words), a side of more than MAX_PHRASE_TERMS words, an expansion whose terms all occur
 * in the key (`doc => docs` after stemming, `s3 bucket => bucket`), an expansion repeated for a key.
 */
export function compileRules(
  rules: readonly ThesaurusRule[],
  analyze: Analyze = defaultAnalyze,
  analyzeAll: Analyze = defaultAnalyzeAll,
): CompileResult {
  const problems: ThesaurusProblem[] = [];
  const byKey = new Map<string, CompiledRule>();
  const seen = new Map<string, Set<string>>();
  for (const rule of rules) {
    const problem = (text: string, message: string) =>
      problems.push({ line: rule.line, ...(rule.source ? { source: rule.source } : {}), text, message });
    const matched = ruleKey(rule.from, analyze, analyzeAll);
    if (matched === null) {
      problem(rule.from, `'${rule.from}' has no searchable words (only stop words or punctuation)`);
      continue;
    }
    const key = matched.phrasal?.words ?? matched.key;
    if (matched.key.length > MAX_PHRASE_TERMS) {
      problem(rule.from, `'${rule.from}' has ${matched.key.length} words; the limit is ${MAX_PHRASE_TERMS}`);
      continue;
    }
    const id = `${matched.phrasal ? "phrasal:" : ""}${matched.key.join(" ")}`;
    let compiled = byKey.get(id);
    if (!compiled) {
      compiled = { ...matched, key: [...matched.key], source: rule.from, expansions: [], targets: [] };
      byKey.set(id, compiled);
      seen.set(id, new Set());
    }
    const targets = seen.get(id)!;
    for (const to of rule.to) {
      const terms = analyze(to);
      if (terms.length === 0) {
        problem(to, `'${to}' has no searchable words (only stop words or punctuation)`);
      } else if (terms.length > MAX_PHRASE_TERMS) {
        problem(to, `'${to}' has ${terms.length} searchable words; the limit is ${MAX_PHRASE_TERMS}`);
      } else if (terms.every((t) => key.includes(t))) {
        problem(to, `'${rule.from} => ${to}' adds nothing: after analysis the expansion is within the key (${id})`);
      } else if (targets.has(terms.join(" "))) {
        problem(to, `'${rule.from} => ${to}' repeats an expansion of '${id}' already given`);
      } else {
        targets.add(terms.join(" "));
        compiled.expansions.push(terms);
        compiled.targets.push(to);
      }
    }
  }
  const thesaurus = new Map<string, CompiledRule[]>();
  for (const rule of byKey.values()) {
    if (rule.expansions.length === 0) continue;
    const list = thesaurus.get(rule.key[0]!) ?? [];
    list.push(rule);
    thesaurus.set(rule.key[0]!, list);
  }
  for (const list of thesaurus.values()) list.sort((a, b) => b.key.length - a.key.length);
  return { thesaurus, problems };
}

/**
 * The service list's format: one product a line, `name, alias, ...` (lower case; `#` comments).
 * Returns the groups of names that designate one product, and the malformed lines.
 */
export function parseServices(
  input: string | readonly string[],
  source = "services",
): { groups: string[][]; problems: ThesaurusProblem[] } {
  const lines = typeof input === "string" ? input.split(/\r?\n/) : input;
  const groups: string[][] = [];
  const problems: ThesaurusProblem[] = [];
  /** Adds the line's product; answers what is wrong with it, if anything. */
  const parseLine = (raw: string): string | undefined => {
    const text = raw.trim();
    if (text === "" || text.startsWith("#")) return;
    if (hasUnescapedHash(text)) return "a '#' inside a line: comments go on their own line";
    if (text.includes("=>")) return "'=>' in the service list: a line lists one product's names";
    const names = members(text, "line");
    if (typeof names === "string") return names;
    if (names.some((n) => n !== n.toLowerCase())) return "service names are written in lower case";
    const empty = names.find((n) => defaultAnalyze(n).length === 0);
    if (empty !== undefined) return `'${empty}' has no searchable words`;
    groups.push(names);
  };
  for (const [index, raw] of lines.entries()) {
    const message = parseLine(raw);
    if (message) problems.push({ line: index + 1, source, text: raw, message });
  }
  return { groups, problems };
}
