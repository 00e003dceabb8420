/**
 * What of a tool is searched: the text of each field the index scores separately.
 *
 * Only search text is kept here, never the whole definition: the index stays small and the
 * catalog rows in storage remain the single source of a tool's definition.
 */

import type { Field } from "../catalog/fields.ts";
import { type Analysis, type Analyze, analyze, analyzeAll, analyzer, DEFAULT_ANALYSIS, phrases } from "./tokenizer.ts";

/** The parts of a tool row the search core reads (a catalog row satisfies it). */
export interface SearchableTool {
  id: string;
  server: string;
  name: string;
  title?: string | null;
  description: string;
  inputSchema?: unknown;
  keywords?: readonly string[];
  /** Other names the tool answers to exactly (for example its model-facing name). */
  aliases?: readonly string[];
}

/** Indexed fields plus what exact-name lookup needs (stored by Orama, not indexed). */
export type SearchDocument = { id: string; toolName: string; aliases: string[] } & Record<Field, string>;

/** How deep into nested parameter schemas names and descriptions are collected. */
const MAX_PARAM_DEPTH = 4;

/**
 * How many terms of a description's opening also count as two-word phrases. Descriptions say what
 * the tool does first (`Retrieves the weather forecast for a city`); a query that shares a phrase
 * with that opening is about the tool, not just near it. Limiting phrases to the opening keeps the
 * index small: every phrase is a term of its own.
 */
const PHRASE_TERMS = 8;

/** What an index holds of each tool: the choices the evaluation measures (docs/quality.md). */
export interface IndexOptions {
  analysis: Analysis;
  /** Terms of a description's opening that also count as two-word phrases (0: none). */
  phraseTerms: number;
  /** Whether parameters' enumerated values are searched. */
  enumValues: boolean;
}

export const DEFAULT_INDEX_OPTIONS: IndexOptions = {
  analysis: DEFAULT_ANALYSIS,
  phraseTerms: PHRASE_TERMS,
  enumValues: true,
};

/** The terms a field's text contributes to the index (tokenizer.ts): words, and the description's opening phrases. */
export function fieldTerms(analyze: Analyze, phraseTerms: number): (field: string, text: string) => string[] {
  return (field, text) => {
    const terms = analyze(text);
    return field === "description" && phraseTerms > 0 ? [...terms, ...phrases(terms.slice(0, phraseTerms))] : terms;
  };
}

/** An index's analysis: of its words, and of all words, stop words kept (the default ones are shared). */
export interface Analyzers {
  words: Analyze;
  all: Analyze;
}

export function indexAnalyzers(options: IndexOptions): Analyzers {
  if (options.analysis === DEFAULT_ANALYSIS) return DEFAULT_ANALYZERS;
  return { words: analyzer(options.analysis), all: analyzer(options.analysis, true) };
}

const DEFAULT_ANALYZERS: Analyzers = { words: analyze, all: analyzeAll };

export function toSearchDocument(tool: SearchableTool, options: IndexOptions = DEFAULT_INDEX_OPTIONS): SearchDocument {
  return {
    id: tool.id,
    toolName: tool.name,
    aliases: [...(tool.aliases ?? [])],
    name: tool.title ? `${tool.name} ${tool.title}` : tool.name,
    server: tool.server,
    description: tool.description,
    params: paramText(tool.inputSchema, 0, options.enumValues).join(" "),
    keywords: (tool.keywords ?? []).join(" "),
  };
}

/**
 * Parameter names, and per parameter its title, description and enumerated values, walking nested
 * objects, array items and `anyOf`/`oneOf`/`allOf` alternatives. Enumerated values are the words of
 * the tool's domain (`genre: comedy | drama`, `unit: celsius | fahrenheit`), so they are searched.
 * Defaults and examples are left out on purpose: they are sample inputs, not words about what the
 * tool does, and benchmark queries written from the docs repeat them (the ToolBench caveat).
 */
function paramText(schema: unknown, depth: number, enums: boolean): string[] {
  if (depth > MAX_PARAM_DEPTH || !isObject(schema) || !isObject(schema.properties)) return [];
  const out: string[] = [];
  for (const [name, sub] of Object.entries(schema.properties)) out.push(name, ...describeParam(sub, depth + 1, enums));
  return out;
}

function describeParam(schema: unknown, depth: number, enums: boolean): string[] {
  if (depth > MAX_PARAM_DEPTH || !isObject(schema)) return [];
  const out: string[] = [];
  if (typeof schema.title === "string") out.push(schema.title);
  if (typeof schema.description === "string") out.push(schema.description);
  if (enums && Array.isArray(schema.enum)) {
    for (const value of schema.enum) if (typeof value === "string") out.push(value);
  }
  out.push(...paramText(schema, depth, enums));
  out.push(...describeParam(schema.items, depth + 1, enums));
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    const alternatives = schema[key];
    if (Array.isArray(alternatives)) for (const alt of alternatives) out.push(...describeParam(alt, depth + 1, enums));
  }
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
