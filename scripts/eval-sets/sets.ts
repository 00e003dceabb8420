/**
 * The rules our own evaluation sets (eval/mcp-keyword, eval/mcp-keyword-blind, eval/mcp-keyword-blind2,
 * eval/mcp-requests, eval/mcp-requests-blind, eval/mcp-requests-long, and eval/mcp-keyword-fresh over its own catalog)
 * must keep, as
 * pure functions over the files' text, so that the same checks run in the test suite (test/eval/sets.test.ts, files
 * imported with `?raw`) and from the command line (scripts/eval-sets/check.ts, files read from disk).
 */

/** Categories of eval/mcp-keyword/queries.jsonl and the least number of queries each must have. */
const KEYWORD_MINIMUMS = {
  "exact-name": 40,
  "partial-name": 40,
  "other-words": 60,
  task: 50,
  absent: 50,
} as const;
const KEYWORD_TOTAL_MINIMUM = 250;

/** Categories of eval/mcp-keyword-blind{,2}/queries.jsonl (the same kinds, other shares) and their minimums. */
const BLIND_MINIMUMS = { "exact-name": 20, "partial-name": 30, "other-words": 100, task: 50, absent: 50 } as const;

/** Categories of eval/mcp-requests/queries.jsonl and their minimums. */
const REQUEST_MINIMUMS = { single: 60, multi: 30 } as const;
const REQUEST_TOTAL_MINIMUM = 120;

/** Categories of eval/mcp-requests-blind/ (the same kinds, written blind) and their minimums. */
const BLIND_REQUEST_MINIMUMS = { single: 100, multi: 45 } as const;
const BLIND_REQUEST_TOTAL_MINIMUM = 150;
const BLIND_IRRELEVANT_MINIMUMS = { "chit-chat": 10, "general-knowledge": 15, "missing-capability": 20 } as const;
const BLIND_IRRELEVANT_TOTAL_MINIMUM = 45;

/** Categories of eval/mcp-requests/irrelevant.jsonl and their minimums. */
const IRRELEVANT_MINIMUMS = { "chit-chat": 10, "general-knowledge": 10, "missing-capability": 10 } as const;
const IRRELEVANT_TOTAL_MINIMUM = 40;

/** Categories of eval/mcp-requests-long/queries.jsonl and irrelevant.jsonl, their minimums, the messages' lengths. */
const LONG_MINIMUMS = {
  "pasted-log": 20,
  "pasted-code": 20,
  "pasted-text": 20,
  narrative: 20,
  "multi-step": 20,
} as const;
const LONG_TOTAL_MINIMUM = 110;
const LONG_IRRELEVANT_MINIMUMS = { explain: 10, write: 10, missing: 10 } as const;
const LONG_IRRELEVANT_TOTAL_MINIMUM = 35;
/** Characters of a long message: long enough to be one, and within the service's max_query_chars (32 K). */
const LONG_CHARS: [number, number] = [400, 30_000];

const SERVER_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

export interface SetTool {
  id: string;
  server: string;
  name: string;
  description: string;
  inputSchema: Record<string, unknown> | null;
}

export interface SetQuery {
  id: string;
  query: string;
  gold: string[];
  gold_groups?: string[][];
  category: string;
}

/** Lines of a JSONL text, parsed; a line that is not JSON is reported by its number. */
function parseJsonl<T>(text: string, file: string, problems: string[]): T[] {
  const rows: T[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    try {
      rows.push(JSON.parse(line) as T);
    } catch {
      problems.push(`${file}:${i + 1}: not JSON`);
    }
  });
  return rows;
}

/** Problems of a catalog (tools.jsonl): fields, name rules, id = server::name, unique ids. */
export function checkTools(tools: SetTool[], file: string): string[] {
  const problems: string[] = [];
  const ids = new Set<string>();
  for (const t of tools) {
    const where = `${file}: ${t.id}`;
    if (typeof t.server !== "string" || !SERVER_NAME.test(t.server))
      problems.push(`${where}: server name ${t.server} breaks [A-Za-z0-9_-]{1,64}`);
    if (typeof t.name !== "string" || !TOOL_NAME.test(t.name))
      problems.push(`${where}: tool name ${t.name} breaks the MCP name rule`);
    if (t.id !== `${t.server}::${t.name}`) problems.push(`${where}: id is not server::name`);
    if (typeof t.description !== "string") problems.push(`${where}: description is not a string`);
    if (t.inputSchema !== null && (typeof t.inputSchema !== "object" || Array.isArray(t.inputSchema)))
      problems.push(`${where}: inputSchema is not an object`);
    if (ids.has(t.id)) problems.push(`${where}: duplicate id`);
    ids.add(t.id);
  }
  return problems;
}

interface QueryRules {
  file: string;
  minimums: Record<string, number>;
  totalMinimum: number;
  /** Categories whose gold must be empty (all of them for irrelevant.jsonl). */
  emptyGold: (category: string) => boolean;
  /** Least and most gold tools a category may name, when it names some. */
  goldCount?: (category: string) => [number, number];
  /** Least and most characters of a query. */
  chars?: [number, number];
}

/** Problems of a query file: categories, counts, ids, duplicate texts, gold ids and groups. */
export function checkQueries(queries: SetQuery[], toolIds: ReadonlySet<string>, rules: QueryRules): string[] {
  const problems: string[] = [];
  const counts = new Map<string, number>();
  const ids = new Set<string>();
  const texts = new Set<string>();
  for (const q of queries) {
    const where = `${rules.file}: ${q.id}`;
    if (typeof q.id !== "string" || q.id === "") problems.push(`${rules.file}: a query has no id`);
    if (ids.has(q.id)) problems.push(`${where}: duplicate id`);
    ids.add(q.id);
    if (typeof q.query !== "string" || q.query.trim() === "") problems.push(`${where}: empty query`);
    const text = String(q.query).trim().toLowerCase().replace(/\s+/g, " ");
    if (texts.has(text)) problems.push(`${where}: duplicate query text "${q.query}"`);
    texts.add(text);
    if (rules.chars && (String(q.query).length < rules.chars[0] || String(q.query).length > rules.chars[1]))
      problems.push(`${where}: ${String(q.query).length} characters, expected ${rules.chars[0]}..${rules.chars[1]}`);
    if (!(q.category in rules.minimums)) problems.push(`${where}: unknown category ${q.category}`);
    counts.set(q.category, (counts.get(q.category) ?? 0) + 1);
    if (!Array.isArray(q.gold)) {
      problems.push(`${where}: gold is not a list`);
      continue;
    }
    if (rules.emptyGold(q.category)) {
      if (q.gold.length > 0 || (q.gold_groups?.length ?? 0) > 0)
        problems.push(`${where}: a ${q.category} query must have empty gold`);
      continue;
    }
    if (q.gold.length === 0) problems.push(`${where}: empty gold`);
    const [least, most] = rules.goldCount?.(q.category) ?? [1, Number.POSITIVE_INFINITY];
    if (q.gold.length < least || q.gold.length > most)
      problems.push(`${where}: ${q.gold.length} gold tools, expected ${least}..${most}`);
    if (new Set(q.gold).size !== q.gold.length) problems.push(`${where}: a gold id is repeated`);
    for (const g of q.gold) if (!toolIds.has(g)) problems.push(`${where}: gold ${g} is not in tools.jsonl`);
    if (q.gold_groups !== undefined) {
      if (q.gold_groups.length !== q.gold.length) problems.push(`${where}: gold_groups and gold differ in length`);
      q.gold_groups.forEach((group, i) => {
        if (group[0] !== q.gold[i]) problems.push(`${where}: group ${i + 1} does not start with gold[${i}]`);
        if (new Set(group).size !== group.length) problems.push(`${where}: group ${i + 1} repeats an id`);
        for (const g of group) if (!toolIds.has(g)) problems.push(`${where}: group member ${g} is not in tools.jsonl`);
      });
    }
  }
  for (const [category, least] of Object.entries(rules.minimums)) {
    const n = counts.get(category) ?? 0;
    if (n < least) problems.push(`${rules.file}: ${n} ${category} queries, at least ${least} needed`);
  }
  if (queries.length < rules.totalMinimum)
    problems.push(`${rules.file}: ${queries.length} queries, at least ${rules.totalMinimum} needed`);
  return problems;
}

/** The texts of our sets' files, by path relative to eval/. */
export interface SetFiles {
  keywordTools: string;
  keywordQueries: string;
  blindTools: string;
  blindQueries: string;
  blind2Tools: string;
  blind2Queries: string;
  requestTools: string;
  requestQueries: string;
  requestIrrelevant: string;
  blindRequestTools: string;
  blindRequestQueries: string;
  blindRequestIrrelevant: string;
  longTools: string;
  longQueries: string;
  longIrrelevant: string;
  /** The fresh keyword set's catalog (other servers: eval/mcp-fresh) and its queries. */
  freshTools: string;
  freshQueries: string;
}

export interface SetReport {
  problems: string[];
  /** Queries per category, per file. */
  counts: Record<string, Record<string, number>>;
  tools: number;
  servers: number;
  /** The fresh set's catalog. */
  freshTools: number;
  freshServers: number;
}

function countBy(queries: SetQuery[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const q of queries) counts[q.category] = (counts[q.category] ?? 0) + 1;
  return counts;
}

/** Every rule over both sets; `problems` is empty when the sets are sound. */
export function checkSets(files: SetFiles): SetReport {
  const problems: string[] = [];
  const tools = parseJsonl<SetTool>(files.keywordTools, "mcp-keyword/tools.jsonl", problems);
  problems.push(...checkTools(tools, "mcp-keyword/tools.jsonl"));
  for (const [name, text] of [
    ["mcp-requests", files.requestTools],
    ["mcp-keyword-blind", files.blindTools],
    ["mcp-keyword-blind2", files.blind2Tools],
    ["mcp-requests-blind", files.blindRequestTools],
    ["mcp-requests-long", files.longTools],
  ] as const) {
    if (text !== files.keywordTools) problems.push(`${name}/tools.jsonl differs from mcp-keyword/tools.jsonl`);
  }
  const toolIds = new Set(tools.map((t) => t.id));

  // The fresh keyword set has a catalog of its own, from other servers.
  const fresh = parseJsonl<SetTool>(files.freshTools, "mcp-keyword-fresh/tools.jsonl", problems);
  problems.push(...checkTools(fresh, "mcp-keyword-fresh/tools.jsonl"));
  const freshServers = new Set(fresh.map((t) => t.server));
  for (const server of new Set(tools.map((t) => t.server)))
    if (freshServers.has(server))
      problems.push(`mcp-keyword-fresh/tools.jsonl: server ${server} is in mcp-keyword too`);

  // Each query file is parsed and checked against its own rules (and its catalog's ids).
  const queryFile = (text: string, rules: QueryRules, ids: ReadonlySet<string> = toolIds) => {
    const queries = parseJsonl<SetQuery>(text, rules.file, problems);
    problems.push(...checkQueries(queries, ids, rules));
    return queries;
  };
  // The keyword sets keep the same rules, with their own shares of the categories.
  const keywordRules = (file: string, minimums: Record<string, number>): QueryRules => ({
    file,
    minimums,
    totalMinimum: KEYWORD_TOTAL_MINIMUM,
    emptyGold: (c) => c === "absent",
  });
  const keyword = queryFile(files.keywordQueries, keywordRules("mcp-keyword/queries.jsonl", KEYWORD_MINIMUMS));
  const blind = queryFile(files.blindQueries, keywordRules("mcp-keyword-blind/queries.jsonl", BLIND_MINIMUMS));
  const blind2 = queryFile(files.blind2Queries, keywordRules("mcp-keyword-blind2/queries.jsonl", BLIND_MINIMUMS));
  const freshQueries = queryFile(
    files.freshQueries,
    keywordRules("mcp-keyword-fresh/queries.jsonl", BLIND_MINIMUMS),
    new Set(fresh.map((t) => t.id)),
  );
  // The two request sets keep the same rules too: a single request names one tool, a multi request two or three;
  // their irrelevant.jsonl holds messages that need none.
  type Minimums = [Record<string, number>, number];
  const requestSet = (
    set: string,
    texts: [string, string],
    requests: Minimums,
    noTool: Minimums,
  ): [SetQuery[], SetQuery[]] => [
    queryFile(texts[0], {
      file: `${set}/queries.jsonl`,
      minimums: requests[0],
      totalMinimum: requests[1],
      emptyGold: () => false,
      goldCount: (c) => (c === "single" ? [1, 1] : [2, 3]),
    }),
    queryFile(texts[1], {
      file: `${set}/irrelevant.jsonl`,
      minimums: noTool[0],
      totalMinimum: noTool[1],
      emptyGold: () => true,
    }),
  ];
  const [requests, irrelevant] = requestSet(
    "mcp-requests",
    [files.requestQueries, files.requestIrrelevant],
    [REQUEST_MINIMUMS, REQUEST_TOTAL_MINIMUM],
    [IRRELEVANT_MINIMUMS, IRRELEVANT_TOTAL_MINIMUM],
  );
  const [blindRequests, blindIrrelevant] = requestSet(
    "mcp-requests-blind",
    [files.blindRequestQueries, files.blindRequestIrrelevant],
    [BLIND_REQUEST_MINIMUMS, BLIND_REQUEST_TOTAL_MINIMUM],
    [BLIND_IRRELEVANT_MINIMUMS, BLIND_IRRELEVANT_TOTAL_MINIMUM],
  );
  const long = queryFile(files.longQueries, {
    file: "mcp-requests-long/queries.jsonl",
    minimums: LONG_MINIMUMS,
    totalMinimum: LONG_TOTAL_MINIMUM,
    emptyGold: () => false,
    goldCount: (c) => (c === "multi-step" ? [2, 3] : [1, 1]),
    chars: LONG_CHARS,
  });
  const longIrrelevant = queryFile(files.longIrrelevant, {
    file: "mcp-requests-long/irrelevant.jsonl",
    minimums: LONG_IRRELEVANT_MINIMUMS,
    totalMinimum: LONG_IRRELEVANT_TOTAL_MINIMUM,
    emptyGold: () => true,
    chars: LONG_CHARS,
  });
  const requestTexts = new Set(requests.map((q) => q.query.trim().toLowerCase()));
  for (const q of irrelevant) {
    if (requestTexts.has(q.query.trim().toLowerCase()))
      problems.push(`mcp-requests/irrelevant.jsonl: ${q.id} repeats a request of queries.jsonl`);
  }
  return {
    problems,
    counts: {
      "mcp-keyword/queries.jsonl": countBy(keyword),
      "mcp-keyword-blind/queries.jsonl": countBy(blind),
      "mcp-keyword-blind2/queries.jsonl": countBy(blind2),
      "mcp-keyword-fresh/queries.jsonl": countBy(freshQueries),
      "mcp-requests/queries.jsonl": countBy(requests),
      "mcp-requests/irrelevant.jsonl": countBy(irrelevant),
      "mcp-requests-blind/queries.jsonl": countBy(blindRequests),
      "mcp-requests-blind/irrelevant.jsonl": countBy(blindIrrelevant),
      "mcp-requests-long/queries.jsonl": countBy(long),
      "mcp-requests-long/irrelevant.jsonl": countBy(longIrrelevant),
    },
    tools: tools.length,
    servers: new Set(tools.map((t) => t.server)).size,
    freshTools: fresh.length,
    freshServers: freshServers.size,
  };
}
