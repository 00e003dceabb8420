/**
 * The engines an evaluation compares, all over the same documents: the service's own search core
 * (`ToolIndex`, exactly as the Durable Object builds it from validated rows) and two peers with their
 * defaults, MiniSearch and Orama (default tokenizer and scoring), over the same indexed text.
 */
import { create, insertMultiple, search as oramaSearch, type AnyOrama } from "@orama/orama";
import MiniSearch from "minisearch";
import { parseToolBatch } from "../../src/catalog/batch.ts";
import { searchable } from "../../src/catalog/render.ts";
import type { ToolRow } from "../../src/catalog/tool.ts";
import { DEFAULT_LIMITS } from "../../src/config/limits.ts";
import { FIELDS } from "../../src/catalog/fields.ts";
import { toSearchDocument, type SearchDocument } from "../../src/search/document.ts";
import { DEFAULT_BM25F } from "../../src/search/ranker.ts";
import { analyze } from "../../src/search/tokenizer.ts";
import { DEFAULT_TUNING, ToolIndex, type Hit } from "../../src/search/tool-index.ts";
import type { ServiceTool } from "./dataset.ts";
import { DEPTH } from "./metrics.ts";

/** The hits the service weighs before it decides whether anything matched (its candidate pool). */
export const DECISION_POOL = DEFAULT_TUNING.candidates;

/** One ranked answer, best first: eval ids with the service's score and match kind (peers: "terms"). */
export interface Ranked {
  hits: { id: string; score: number; match: Hit["match"]; gate?: number }[];
}

export interface Engine {
  name: string;
  /** Whether the threshold applies to this engine's scores (peers have no threshold). */
  thresholded: boolean;
  search(query: string): Ranked | Promise<Ranked>;
}

/** Validates the tools exactly as an upload does: the rows the service would store. */
export async function toRows(tools: readonly ServiceTool[]): Promise<ToolRow[]> {
  const parsed = await parseToolBatch(
    tools.map(({ evalId: _, ...tool }) => tool),
    { ...DEFAULT_LIMITS, max_tools_per_batch: Math.max(tools.length, 1) },
  );
  if (!parsed.ok) throw new Error(`the service would refuse these tools: ${JSON.stringify(parsed.errors.slice(0, 3))}`);
  return parsed.rows;
}

export function ours(rows: readonly ToolRow[], evalIds: ReadonlyMap<string, string>): Engine {
  const index = ToolIndex.fromTools(rows.map(searchable));
  return {
    name: "tool-search",
    thresholded: true,
    search(query) {
      // Threshold 0 keeps every hit; the evaluation applies thresholds afterwards with the same rule, over the whole
      // pool the service decides on (a hit below the first DEPTH may open the list: ranks are boosted by names,
      // decisions are not, naming.ts), and scores the first DEPTH of what passes.
      const hits = index.search(query, { limit: DECISION_POOL, threshold: 0 });
      return {
        hits: hits.map((h) => ({
          id: evalIds.get(h.id)!,
          score: h.score,
          match: h.match,
          ...(h.gate === undefined ? {} : { gate: h.gate }),
        })),
      };
    },
  };
}

function documents(rows: readonly ToolRow[]): SearchDocument[] {
  return rows.map((row) => toSearchDocument(searchable(row)));
}

/**
 * MiniSearch with its defaults (`analysed: false`), or with this project's analysis (identifier splitting, stop
 * words, stemming) and field weights (`analysed: true`): the fair peer, which shows what the ranking adds beyond
 * tokenization.
 */
export function miniSearch(rows: readonly ToolRow[], evalIds: ReadonlyMap<string, string>, analysed = false): Engine {
  const weights = Object.fromEntries(FIELDS.map((f) => [f, DEFAULT_BM25F.fields[f].weight]));
  const mini = new MiniSearch<SearchDocument>({
    fields: [...FIELDS],
    idField: "id",
    ...(analysed ? { tokenize: analyze, processTerm: (term: string) => term, searchOptions: { boost: weights } } : {}),
  });
  mini.addAll(documents(rows));
  return {
    name: analysed ? "MiniSearch (our analysis and weights)" : "MiniSearch",
    thresholded: false,
    search(query) {
      const hits = mini.search(query).slice(0, DEPTH);
      return { hits: hits.map((h) => ({ id: evalIds.get(String(h.id))!, score: h.score, match: "terms" as const })) };
    },
  };
}

export async function oramaDefaults(rows: readonly ToolRow[], evalIds: ReadonlyMap<string, string>): Promise<Engine> {
  const schema = Object.fromEntries(FIELDS.map((f) => [f, "string"])) as Record<(typeof FIELDS)[number], "string">;
  const db = create({ schema }) as AnyOrama;
  await insertMultiple(
    db,
    documents(rows).map((d) => Object.fromEntries([["id", d.id], ...FIELDS.map((f) => [f, d[f]])])),
  );
  return {
    name: "Orama",
    thresholded: false,
    async search(query) {
      const res = await oramaSearch(db, { term: query, limit: DEPTH });
      return { hits: res.hits.map((h) => ({ id: evalIds.get(h.id)!, score: h.score, match: "terms" as const })) };
    },
  };
}
