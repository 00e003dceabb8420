/**
 * Evaluation sets in the `tools.jsonl` / `queries.jsonl` format (see ../shared/eval/README.md), and
 * their mapping onto the service's catalog rules, shared by the in-process and the HTTP runs so that
 * both search the very same catalog.
 *
 * The mapping is general, not per benchmark: names outside the MCP rule have every run of other
 * characters replaced by `_` (accents dropped first); a name whose words change that way keeps its
 * original spelling as the tool's `title` (indexed with the name). A tool without a server goes to
 * server `_`, which has no words, so the server field stays as empty as in the source. A name that
 * would clash with an earlier tool on its server (same id or same model-facing name, as the
 * pooled benchmarks' same-name variants do) gets a trailing `_`, again adding no words.
 */
import { readFileSync, existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { modelName, SERVER_NAME, TOOL_NAME, toolId } from "../../src/catalog/tool.ts";
import { DEFAULT_LIMITS } from "../../src/config/limits.ts";
import { analyze } from "../../src/search/tokenizer.ts";

export interface EvalTool {
  id: string;
  server: string | null;
  name: string;
  description: string;
  inputSchema: Record<string, unknown> | null;
}

export interface EvalQuery {
  id: string;
  query: string;
  /** Needed tools, each a group of acceptable ids (strict: one id per group). */
  groups: string[][];
  strict: string[][];
  category?: string;
}

export interface EvalSet {
  name: string;
  dir: string;
  tools: EvalTool[];
  queries: EvalQuery[];
  /**
   * Queries that no tool answers: irrelevant.jsonl, and the queries of queries.jsonl with an empty gold list (such as
   * a category of capabilities the catalog lacks), each with its category.
   */
  irrelevant: { query: string; category: string }[];
}

/** A tool as the service takes it (MCP input format plus `server`); `evalId` is the set's own id. */
export interface ServiceTool {
  evalId: string;
  server: string;
  name: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export function readJsonl<T>(path: string): T[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as T);
}

interface RawQuery {
  id: string;
  query: string;
  gold: string[];
  gold_groups?: string[][];
  category?: string;
}

export function loadSet(dir: string, irrelevantFile?: string): EvalSet {
  const tools = readJsonl<EvalTool>(join(dir, "tools.jsonl"));
  const raw = readJsonl<RawQuery>(join(dir, "queries.jsonl"));
  const queries = raw
    .filter((q) => q.gold.length > 0)
    .map((q) => ({
      id: q.id,
      query: q.query,
      strict: q.gold.map((g) => [g]),
      groups: q.gold_groups ?? q.gold.map((g) => [g]),
      ...(q.category ? { category: q.category } : {}),
    }));
  const irrelevantPath = irrelevantFile ?? join(dir, "irrelevant.jsonl");
  const irrelevant = [
    ...raw.filter((q) => q.gold.length === 0),
    ...(existsSync(irrelevantPath) ? readJsonl<RawQuery>(irrelevantPath) : []),
  ].map((q) => ({ query: q.query, category: q.category ?? "irrelevant" }));
  return { name: dir.split("/").filter(Boolean).pop()!, dir, tools, queries, irrelevant };
}

/**
 * Each set with the catalog of all of them (`--pooled`): the same queries and gold tools, among every other set's tools
 * as distractors. Ids are prefixed with the set's name so that tools of different sets never share one; a tool that
 * another set already holds word for word (sets built over the same servers) is kept once, and gold that names the
 * copy names the kept one, so that a tool's own twin never counts as a distractor.
 */
export function pooled(sets: readonly EvalSet[]): EvalSet[] {
  const kept = new Map<string, string>(); // the tool's whole content -> the id it is pooled under
  const pooledId = new Map<string, string>(); // `set|id` -> the id it is pooled under
  const tools: EvalTool[] = [];
  for (const set of sets)
    for (const t of set.tools) {
      const content = JSON.stringify([t.server, t.name, t.description, t.inputSchema]);
      const id = kept.get(content) ?? `${set.name}|${t.id}`;
      if (!kept.has(content)) {
        kept.set(content, id);
        tools.push({ ...t, id });
      }
      pooledId.set(`${set.name}|${t.id}`, id);
    }
  const ids = (set: EvalSet, groups: string[][]) =>
    groups.map((g) => g.map((id) => pooledId.get(`${set.name}|${id}`) ?? `${set.name}|${id}`));
  return sets.map((set) => ({
    ...set,
    name: `${set.name} (pooled)`,
    tools,
    queries: set.queries.map((q) => ({ ...q, groups: ids(set, q.groups), strict: ids(set, q.strict) })),
  }));
}

/** Every folder under `root` that holds a tools.jsonl and a queries.jsonl, by name. */
export function findSets(root: string): string[] {
  return readdirSync(root, { withFileTypes: true })
    .filter(
      (e) =>
        e.isDirectory() &&
        existsSync(join(root, e.name, "tools.jsonl")) &&
        existsSync(join(root, e.name, "queries.jsonl")),
    )
    .map((e) => join(root, e.name))
    .sort();
}

/** Accents dropped, every run of characters outside `allowed` made one `_`, ends trimmed. */
function sanitize(text: string, allowed: RegExp, max: number): string {
  const ascii = text.normalize("NFKD").replace(/\p{M}/gu, "");
  const safe = [...ascii]
    .map((ch) => (allowed.test(ch) ? ch : "_"))
    .join("")
    .replace(/_+/g, "_")
    .replace(/^_+|_+$/g, "");
  return safe.slice(0, max);
}

const NAME_CHAR = /^[A-Za-z0-9_.-]$/;
const SERVER_CHAR = /^[A-Za-z0-9_-]$/;
const NO_SERVER = "_";
const EMPTY_SCHEMA = { type: "object", properties: {} };

/** The set's tools as service tools, in order, with unique ids and model names. */
export function toServiceTools(tools: readonly EvalTool[]): ServiceTool[] {
  const ids = new Set<string>();
  const modelNames = new Set<string>();
  return tools.map((tool) => {
    const server = (tool.server && sanitize(tool.server, SERVER_CHAR, 64)) || NO_SERVER;
    let name = sanitize(tool.name, NAME_CHAR, 128) || "tool";
    while (ids.has(toolId(server, name)) || modelNames.has(modelName({ server, name })))
      name = `${name.slice(0, 127)}_`;
    if (!TOOL_NAME.test(name) || !SERVER_NAME.test(server))
      throw new Error(`cannot map tool ${tool.id} to the service's name rules`);
    ids.add(toolId(server, name));
    modelNames.add(modelName({ server, name }));
    const renamed = analyze(name).join(" ") !== analyze(tool.name).join(" ");
    return {
      evalId: tool.id,
      server,
      name,
      ...(renamed ? { title: tool.name.slice(0, DEFAULT_LIMITS.max_title_chars) } : {}),
      description: tool.description ?? "",
      inputSchema: tool.inputSchema ?? EMPTY_SCHEMA,
    };
  });
}

/**
 * A query as a client of the service sends it: cut to the service's query limit, at a word
 * boundary. (A few benchmark queries are pasted documents far longer than any tool search.)
 */
export function clientQuery(query: string, maxChars = DEFAULT_LIMITS.max_query_chars): string {
  if (query.length <= maxChars) return query;
  const cut = query.slice(0, maxChars);
  const space = cut.lastIndexOf(" ");
  return space > maxChars / 2 ? cut.slice(0, space) : cut;
}
