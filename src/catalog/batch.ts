/**
 * Validation of a batch of tools, all or nothing: either every item becomes a row, or the caller
 * learns every bad item (index, name, reasons) and nothing is written.
 */
import type { z } from "zod";
import { limitNote, type Limits } from "../config/limits.ts";
import { detectFormat, namespaceTools, normalizeTool, toolInputSchemas, type ToolInputSchemas } from "./formats.ts";
import { toRow, toolId, type ToolRow } from "./tool.ts";

export interface ItemError {
  /** Position in the batch (0-based; for NDJSON, the line number minus one). */
  index: number;
  /** The tool's name when it could be read. */
  name?: string;
  reasons: string[];
}

export type BatchResult = { ok: true; rows: ToolRow[] } | { ok: false; errors: ItemError[] };

export interface BatchOptions {
  /** The server from the request path; items may omit `server` or must match it. */
  server?: string;
}

const schemaCache = new WeakMap<Limits, ToolInputSchemas>();

export function schemasFor(limits: Limits): ToolInputSchemas {
  let schemas = schemaCache.get(limits);
  if (!schemas) {
    schemas = toolInputSchemas(limits);
    schemaCache.set(limits, schemas);
  }
  return schemas;
}

/** The longest reason kept whole; a longer one (a list of 10,000 unknown keys) is cut short. */
const MAX_REASON_CHARS = 500;

/** Readable reasons from zod issues: `inputSchema: expected object, received undefined`. */
export function issueReasons(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.map((issue) => {
    const where = issue.path.length ? `${issue.path.join(".")}: ` : "";
    const reason = `${where}${issue.message}`;
    return reason.length > MAX_REASON_CHARS ? `${reason.slice(0, MAX_REASON_CHARS)}…` : reason;
  });
}

/**
 * An error list as a refusal shows it: the first `max` entries (`max_listed_errors`), and how many
 * more there were. However bad the input, the answer stays small.
 */
export function listed<T>(entries: readonly T[], max: number): { shown: T[]; not_listed: number } {
  return { shown: entries.slice(0, max), not_listed: Math.max(0, entries.length - max) };
}

function nameOf(raw: unknown): string | undefined {
  if (typeof raw !== "object" || raw === null) return undefined;
  const r = raw as { name?: unknown; function?: { name?: unknown } };
  const name = r.function?.name ?? r.name;
  return typeof name === "string" ? name.slice(0, 128) : undefined;
}

export async function parseToolBatch(
  items: readonly unknown[],
  limits: Limits,
  options: BatchOptions = {},
): Promise<BatchResult> {
  if (items.length > limits.max_tools_per_batch) {
    return {
      ok: false,
      errors: [
        {
          index: limits.max_tools_per_batch,
          reasons: [
            `a batch holds at most ${limits.max_tools_per_batch} tools; split the upload ` +
              `${limitNote("max_tools_per_batch", limits)}`,
          ],
        },
      ],
    };
  }
  const schemas = schemasFor(limits);
  const errors: ItemError[] = [];
  const contents: Parameters<typeof toRow>[0][] = [];
  const firstIndex = new Map<string, number>();
  for (const [index, raw] of items.entries()) {
    const name = nameOf(raw);
    const fail = (reasons: string[]) => errors.push({ index, ...(name ? { name } : {}), reasons });
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
      fail(["a tool must be a JSON object"]);
      continue;
    }
    const format = detectFormat(raw);
    const parsed = format === "openai-namespace" ? null : schemas.byFormat[format].safeParse(raw);
    const namespace = format === "openai-namespace" ? schemas.namespace.safeParse(raw) : null;
    const problem = parsed?.error ?? namespace?.error;
    if (problem) {
      fail(issueReasons(problem.issues).map((r) => `${r} (read as ${format} format)`));
      continue;
    }
    // A namespace is its server: its functions upload as that server's tools.
    const server = namespace?.data ? namespace.data.name : (parsed!.data!.server ?? options.server);
    if (!server) {
      fail(["server is required (or use PUT /v1/tenants/{tenant}/servers/{server}/tools)"]);
      continue;
    }
    if (options.server && server !== options.server) {
      fail([`server '${server}' differs from the path's server '${options.server}'`]);
      continue;
    }
    const tools = namespace?.data ? namespaceTools(namespace.data) : [parsed!.data!];
    const duplicates: string[] = [];
    for (const tool of tools) {
      const content = normalizeTool(tool, server);
      const id = toolId(server, content.name);
      const seen = firstIndex.get(id);
      if (seen !== undefined) {
        duplicates.push(`duplicate of tools[${seen}] (${id}); each tool may appear once per batch`);
        continue;
      }
      firstIndex.set(id, index);
      contents.push(content);
    }
    if (duplicates.length > 0) fail(duplicates);
  }
  if (errors.length === 0 && contents.length > limits.max_tools_per_batch) {
    errors.push({
      index: items.length - 1,
      reasons: [
        `the batch's namespaces hold ${contents.length} tools, more than a batch may hold; split the upload ` +
          `${limitNote("max_tools_per_batch", limits)}`,
      ],
    });
  }
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, rows: await Promise.all(contents.map(toRow)) };
}
