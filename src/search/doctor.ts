/**
 * The catalog doctor: what in a catalog makes tools hard to find or costly to load, each finding with a stable code,
 * the tool it concerns and a reason a person can act on (GET /v1/tenants/{t}/doctor, docs/console.md).
 *
 * Pure: it reads tools one at a time (so a large catalog is never held whole) and asks the index what the tools' own
 * words reach, with the tenant's search settings. What it keeps per tool is its id, server and word ids.
 */
import { modelName, type ToolRow } from "../catalog/tool.ts";
import type { TokenCounter } from "../catalog/tokens.ts";
import { analyze, splitWords } from "./tokenizer.ts";
import type { SearchOptions, ToolIndex } from "./tool-index.ts";

/** Fewer words than this make a short description. */
const SHORT_WORDS = 4;
/** Word-set similarity (Jaccard) from which two tools of different servers are near-duplicates. */
const DUPLICATE_SIMILARITY = 0.8;
/** A tool is reported as the near-duplicate of at most this many others. */
const DUPLICATES_PER_TOOL = 5;
/** The context window a description's cost is measured against, and the share that makes it long. */
const REFERENCE_CONTEXT = 128_000;
const LONG_SHARE = 0.005;
const LONG_TOKENS = Math.round(REFERENCE_CONTEXT * LONG_SHARE);
/** The opening of a description a reach check queries with: its first sentence, at most this many words. */
const OPENING_WORDS = 12;
/** How deep nested parameters are checked for descriptions (as deep as the index reads them). */
const PARAM_DEPTH = 4;

/** Every finding code, with its severity and what it means (the API documents this table). */
export const FINDINGS = {
  "description-empty": { severity: "error", means: "The tool has no description: a model cannot tell when to use it" },
  "description-short": {
    severity: "warning",
    means:
      `The description has fewer than ${SHORT_WORDS} words: too little for a model to choose the tool or a query ` +
      "to find it",
  },
  "description-copies-name": {
    severity: "warning",
    means: "The description says nothing its name does not (read_file: 'Read file')",
  },
  "near-duplicate": {
    severity: "warning",
    means:
      "Another server has a tool with (nearly) the same words in its name and description: a model cannot tell " +
      "them apart, and a search returns both or the wrong one",
  },
  unreachable: {
    severity: "error",
    means:
      "Neither the words of its name nor the opening of its description, used as a query, return the tool (at the " +
      "tenant's threshold and max_results, by words, not by exact name): nothing in them is distinctive",
  },
  "param-undocumented": {
    severity: "warning",
    means: "Parameters without a description: the model guesses what to pass, and their words are not searched",
  },
  "description-long": {
    severity: "warning",
    means:
      `The description alone takes at least ${LONG_SHARE * 100} % of a ${REFERENCE_CONTEXT / 1000}k-token context ` +
      `(${LONG_TOKENS} tokens), paid on every request that loads the tool`,
  },
  "model-name-clash": {
    severity: "warning",
    means:
      "Its model-facing name (server__name made safe for every vendor) was taken by another tool, so it got a " +
      "suffix: models see two near-identical names",
  },
} as const;

export type FindingCode = keyof typeof FINDINGS;
export const FINDING_CODES = Object.keys(FINDINGS) as [FindingCode, ...FindingCode[]];
type Severity = (typeof FINDINGS)[FindingCode]["severity"];

interface Finding {
  code: FindingCode;
  severity: Severity;
  tool_id: string;
  message: string;
  /** The other tool of a near-duplicate, or the holder of a clashing model name. */
  other?: string;
  /** Undocumented parameters, as paths (`options.depth`). */
  params?: string[];
  /** Tokens of a long description. */
  tokens?: number;
}

export interface DoctorOptions {
  index: ToolIndex;
  /**
   * How many tools reach is checked for with real searches (limit doctor_reach_checks): the least distinctive ones,
   * those whose rarest word of name and description the most tools share. A tool with a word few others have is
   * the likeliest to be found, so it is the one left out when the catalog is larger than the bound.
   */
  reachChecks: number;
  /** The tenant's search: threshold, max results, weights, synonyms. */
  search: SearchOptions;
  countTokens: TokenCounter;
  /** Holder of a model-facing name (for clashes). */
  nameOwner: (modelName: string) => string | null;
}

interface Words {
  id: string;
  server: string;
  /** Word ids, distinct, sorted by rarity (then id) once every tool is read. */
  terms: number[];
  /** The queries its reach is checked with: its name's words, its description's opening. */
  queries: [string, string];
}

export interface Diagnosis {
  findings: Finding[];
  /** Tools whose reach was checked with real searches, of how many. */
  reach: { checked: number; of: number };
}

/** Findings for `tools`, ordered by severity, code, then tool id. */
export function diagnose(tools: Iterable<ToolRow>, options: DoctorOptions): Diagnosis {
  const findings: Finding[] = [];
  const add = (code: FindingCode, tool_id: string, message: string, extra: Partial<Finding> = {}) =>
    findings.push({ code, severity: FINDINGS[code].severity, tool_id, message, ...extra });
  const vocabulary = new Map<string, number>();
  const words: Words[] = [];

  for (const tool of tools) {
    const description = tool.description.trim();
    const descriptionTerms = analyze(description);
    const nameTerms = new Set(analyze(tool.name));
    if (description === "") add("description-empty", tool.id, "The description is empty.");
    else if (descriptionTerms.length > 0 && descriptionTerms.every((t) => nameTerms.has(t)))
      add("description-copies-name", tool.id, `The description "${clip(description)}" only repeats the name.`);
    else if (splitWords(description).length < SHORT_WORDS)
      add(
        "description-short",
        tool.id,
        `The description "${clip(description)}" has ${splitWords(description).length} words; say what the tool ` +
          "does, on what, and when to use it.",
      );

    const undocumented = undocumentedParams(tool.inputSchema, "", 0);
    if (undocumented.length > 0)
      add(
        "param-undocumented",
        tool.id,
        `${undocumented.length} parameter${undocumented.length === 1 ? "" : "s"} without a description: ` +
          `${undocumented.slice(0, 10).join(", ")}${undocumented.length > 10 ? ", ..." : ""}.`,
        { params: undocumented },
      );

    // A token is at least one byte: only descriptions of that many bytes can reach the share.
    if (utf8Length(description) >= LONG_TOKENS) {
      const tokens = options.countTokens(description);
      if (tokens >= LONG_TOKENS)
        add(
          "description-long",
          tool.id,
          `The description is ${tokens.toLocaleString("en-US")} tokens, ` +
            `${((tokens / REFERENCE_CONTEXT) * 100).toFixed(1)} % of a ${REFERENCE_CONTEXT / 1000}k-token context, ` +
            "paid on every request that loads the tool; move detail into parameter descriptions.",
          { tokens },
        );
    }

    const usual = modelName(tool);
    if (tool.modelName !== usual) {
      const holder = options.nameOwner(usual);
      add(
        "model-name-clash",
        tool.id,
        `Its model-facing name would be ${usual}, which ${holder ?? "another tool"} holds, so models see it as ` +
          `${tool.modelName}; rename one of them.`,
        holder ? { other: holder } : {},
      );
    }

    const terms = new Set([...nameTerms, ...descriptionTerms]);
    words.push({
      id: tool.id,
      server: tool.server,
      terms: [...terms].map((t) => {
        const id = vocabulary.get(t) ?? vocabulary.size;
        vocabulary.set(t, id);
        return id;
      }),
      queries: [splitWords(tool.name).join(" "), opening(tool.description)],
    });
  }

  const df = documentFrequencies(words, vocabulary.size);
  findings.push(...nearDuplicates(words));
  // The least distinctive first: no word at all, then the most shared rarest word.
  const rarest = (w: Words) => (w.terms.length === 0 ? Number.POSITIVE_INFINITY : df[w.terms[0]!]!);
  const checked = [...words].sort((a, b) => rarest(b) - rarest(a)).slice(0, options.reachChecks);
  for (const w of checked) {
    if (!reaches(options, w.id, w.queries))
      add(
        "unreachable",
        w.id,
        "Neither its name's words nor its description's opening, as a query, return it: give it words a user " +
          "would search for (a clearer name or description, or keywords).",
      );
  }

  const rank: Record<Severity, number> = { error: 0, warning: 1 };
  findings.sort(
    (a, b) =>
      rank[a.severity] - rank[b.severity] ||
      FINDING_CODES.indexOf(a.code) - FINDING_CODES.indexOf(b.code) ||
      (a.tool_id < b.tool_id ? -1 : a.tool_id > b.tool_id ? 1 : 0),
  );
  return { findings, reach: { checked: checked.length, of: words.length } };
}

/** Whether the tool's own words, as a user would type them, find it among the ranked results. */
function reaches(options: DoctorOptions, id: string, queries: readonly string[]): boolean {
  return queries.some(
    (query) =>
      analyze(query).length > 0 &&
      options.index.answer(query, { ...options.search, explain: false, names: false }).hits.some((h) => h.id === id),
  );
}

/** The description's first sentence, at most OPENING_WORDS words. */
function opening(description: string): string {
  const sentence = description.trim().split(/(?<=[.!?])\s/)[0] ?? "";
  return sentence.split(/\s+/).slice(0, OPENING_WORDS).join(" ");
}

/**
 * Pairs of tools on different servers whose word sets have a Jaccard similarity of at least DUPLICATE_SIMILARITY:
 * an all-pairs similarity join with prefix filtering (two sets that similar must share one of the rarest few words of
 * each; `documentFrequencies` sorted them), so a catalog of many tools compares only the pairs that can qualify.
 */
function nearDuplicates(tools: Words[]): Finding[] {
  const postings = new Map<number, number[]>();
  const reported = new Uint8Array(tools.length);
  const out: Finding[] = [];
  tools.forEach((tool, i) => {
    const size = tool.terms.length;
    if (size === 0) return;
    const prefix = size - Math.ceil(DUPLICATE_SIMILARITY * size) + 1;
    const seen = new Set<number>();
    for (const term of tool.terms.slice(0, prefix)) {
      const list = postings.get(term);
      for (const j of list ?? []) {
        if (seen.has(j)) continue;
        seen.add(j);
        const other = tools[j]!;
        if (other.server === tool.server || reported[i]! >= DUPLICATES_PER_TOOL || reported[j]! >= DUPLICATES_PER_TOOL)
          continue;
        const similarity = jaccard(tool.terms, other.terms);
        if (similarity < DUPLICATE_SIMILARITY) continue;
        reported[i]! += 1;
        reported[j]! += 1;
        const [a, b] = other.id < tool.id ? [other, tool] : [tool, other];
        out.push({
          code: "near-duplicate",
          severity: FINDINGS["near-duplicate"].severity,
          tool_id: a.id,
          other: b.id,
          message:
            `${a.id} and ${b.id} share ${Math.round(similarity * 100)} % of the words of their names and ` +
            "descriptions: say what tells them apart, or keep one.",
        });
      }
      if (list) list.push(i);
      else postings.set(term, [i]);
    }
  });
  return out;
}

/** How many tools hold each word; sorts each tool's words rarest first. */
function documentFrequencies(tools: Words[], vocabularySize: number): Uint32Array {
  const df = new Uint32Array(vocabularySize);
  for (const t of tools) for (const id of t.terms) df[id]! += 1;
  for (const t of tools) t.terms.sort((a, b) => df[a]! - df[b]! || a - b);
  return df;
}

function jaccard(a: readonly number[], b: readonly number[]): number {
  const set = new Set(a);
  let shared = 0;
  for (const x of b) if (set.has(x)) shared++;
  return shared / (a.length + b.length - shared);
}

/** Paths of parameters (properties of object schemas, nested ones included) that have no description. */
function undocumentedParams(schema: unknown, path: string, depth: number): string[] {
  if (depth >= PARAM_DEPTH || !isObject(schema)) return [];
  const out: string[] = [];
  if (isObject(schema.properties)) {
    for (const [name, sub] of Object.entries(schema.properties)) {
      const at = path ? `${path}.${name}` : name;
      if (!isObject(sub)) continue;
      const described = typeof sub.description === "string" && sub.description.trim() !== "";
      if (!described) out.push(at);
      out.push(...undocumentedParams(sub, at, depth + 1));
      if (isObject(sub.items)) out.push(...undocumentedParams(sub.items, `${at}[]`, depth + 1));
    }
  }
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const encoder = new TextEncoder();

function utf8Length(text: string): number {
  return encoder.encode(text).length;
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 60)}...` : text;
}
