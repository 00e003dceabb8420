/**
 * The bench's catalogs and queries: the real tools of `../shared/eval` (bfcl + toolbench) made
 * into valid MCP tools, synthetic catalogs, and a query mix of benchmark questions plus Zipf-drawn
 * short keyword queries (common words included, since they are what makes a search slow).
 */
import { resolve } from "node:path";
import { modelName } from "../../src/catalog/tool.ts";
import { readJsonl, type EvalTool } from "../eval/dataset.ts";
import { seeded, zipf } from "../random.ts";
import { syntheticCatalog, vocabularyByFrequency, type BenchTool } from "./synthetic.ts";

const EVAL_DIR = resolve(import.meta.dirname, "../../../shared/eval");

/** Names and servers reduced to the MCP character set the API accepts; duplicates numbered. */
function mcpSafe(text: string, max: number): string {
  return text.replace(/[^A-Za-z0-9_.-]+/g, "_").slice(0, max) || "_";
}

/**
 * bfcl (server "bfcl") and toolbench (server = the RapidAPI tool): ~5,200 valid MCP tools. A name
 * that collides with an earlier one, as written or as the model-facing name the API derives
 * (`car.rental` and `car_rental`), gets a numeric suffix, as the API requires.
 */
export function realCatalog(): BenchTool[] {
  const out: BenchTool[] = [];
  const seen = new Set<string>();
  for (const set of ["bfcl", "toolbench"]) {
    for (const t of readJsonl<EvalTool>(`${EVAL_DIR}/${set}/tools.jsonl`)) {
      const server = mcpSafe(t.server ?? set, 64).replace(/\./g, "_");
      const base = mcpSafe(t.name, 120);
      let name = base;
      for (let n = 2; seen.has(modelName({ server, name })); n++) name = `${base}_${n}`;
      seen.add(modelName({ server, name }));
      out.push({
        server,
        name,
        description: t.description,
        inputSchema: t.inputSchema ?? { type: "object", properties: {} },
      });
    }
  }
  return out;
}

export function syntheticCatalogOf(tools: number): BenchTool[] {
  return syntheticCatalog({ tools, seed: 42 + tools });
}

/** The benchmark questions of bfcl and toolbench, in file order. */
function benchmarkQueries(): string[] {
  return ["bfcl", "toolbench"].flatMap((set) =>
    readJsonl<{ query: string }>(`${EVAL_DIR}/${set}/queries.jsonl`).map((q) => q.query),
  );
}

/**
 * `count` queries: half benchmark questions (an evenly spaced sample), half keyword queries of
 * 1-3 words drawn Zipf-wise from the catalog's own words ranked by document frequency, so the
 * most common words ("get", "list", "data") are the most frequent query words, as in real use.
 */
export function queryMix(
  tools: readonly BenchTool[],
  count: number,
  split: (text: string) => string[],
  seed = 7,
): string[] {
  const rand = seeded(seed);
  const questions = benchmarkQueries();
  const half = Math.floor(count / 2);
  const out: string[] = [];
  for (let i = 0; i < half; i++) out.push(questions[Math.floor((i * questions.length) / half)]!);
  const vocabulary = vocabularyByFrequency(tools, split);
  const draw = zipf(vocabulary.length, 1);
  while (out.length < count) {
    const n = 1 + Math.floor(rand() * 3);
    out.push(Array.from({ length: n }, () => vocabulary[draw(rand)]!).join(" "));
  }
  // Interleave so that a slow stretch of one kind does not sit in one part of the run.
  return out
    .map((q, i) => ({ q, k: seeded(seed + i)() }))
    .sort((a, b) => a.k - b.k)
    .map((x) => x.q);
}

/**
 * `count` queries of `chars` characters each (16 KB), made of the benchmark questions one after another from a
 * different starting point each, one per line, as when an agent passes a user's whole message: each is read as a
 * message of many lines (src/search/message.ts). They measure that reading and the cap on distinct query terms,
 * not the catalog.
 */
export function longQueries(count: number, chars = 16_384): string[] {
  const questions = benchmarkQueries();
  return Array.from({ length: count }, (_, i) => {
    let text = "";
    for (let k = Math.floor((i * questions.length) / count); text.length < chars; k++)
      text += `${questions[k % questions.length]}\n`;
    return text.slice(0, chars);
  });
}
