/**
 * What an upload will send: the tools grouped by server, each group validated locally with the
 * service's own batch validation (catalog/batch.ts, under the default limits) and cut into
 * requests under the request limits. A group with any invalid tool is rejected whole and sends
 * nothing, like a batch the service rejects: a file is never left half uploaded because of a typo.
 *
 * With --replace each server's set must travel in ONE request: a PUT is atomic only as one
 * request, and a replacement spread over several (upsert in chunks, then delete the rest) could
 * stop half way and leave a mix of old and new tools. So a set larger than one request is refused
 * with a message saying what to do instead.
 */
import { parseToolBatch } from "../catalog/batch.ts";
import type { Defer } from "../catalog/tool.ts";
import type { Limits } from "../config/limits.ts";
import { serverNameFrom } from "./names.ts";
import type { Item, Source } from "./sources.ts";

export interface Rejection {
  where: string;
  name?: string;
  reasons: string[];
}

/** One request's worth of tools. */
export interface Batch {
  items: Item[];
  /** The request body's size in bytes. */
  bytes: number;
}

/** One server's tools, as they will be sent (or why they will not). */
export interface ServerUpload {
  server: string;
  /** Every tool of the input that belongs here, the refused ones included. */
  tools: number;
  items: Item[];
  deferTools?: Defer;
  batches: Batch[];
  /** Non-empty: the group is refused and nothing of it is sent. */
  rejected: Rejection[];
}

export interface PlanOptions {
  /** Every tool goes to this server (--server). */
  server?: string;
  /** PUT each server's whole set (one request per server). */
  replace: boolean;
  batchSize: number;
  maxBodyBytes: number;
  limits: Limits;
}

const utf8 = (text: string) => new TextEncoder().encode(text).length;

/**
 * An OpenAI Responses namespace as its functions, each naming the namespace as its server (what the service does
 * with a namespace, done here so that every tool of a server goes through the same grouping and batching).
 */
function namespaceFunctions(item: Item): Item[] {
  const raw = item.raw as { type?: unknown; name?: unknown; tools?: unknown } | null;
  if (typeof raw !== "object" || raw === null || raw.type !== "namespace" || !Array.isArray(raw.tools)) return [item];
  return raw.tools.map((tool: unknown, i) => ({
    raw:
      typeof tool === "object" && tool !== null && typeof raw.name === "string" ? { ...tool, server: raw.name } : tool,
    where: `${item.where} tools[${i}]`,
  }));
}

/**
 * Tools grouped by server, in order of first appearance. `server`: --server, else the tool's own, else the file's name.
 */
export function groupByServer(sources: Source[], forced?: string): ServerUpload[] {
  const groups = new Map<string, ServerUpload>();
  const group = (server: string) => {
    let g = groups.get(server);
    if (!g) {
      g = { server, tools: 0, items: [], batches: [], rejected: [] };
      groups.set(server, g);
    }
    return g;
  };
  for (const source of sources) {
    const fromFile = forced ?? serverNameFrom(source.stem);
    const touched = new Set<ServerUpload>();
    for (const item of source.items.flatMap(namespaceFunctions)) {
      const own =
        typeof item.raw === "object" && item.raw !== null ? (item.raw as { server?: unknown }).server : undefined;
      const server = forced ?? (typeof own === "string" ? own : fromFile);
      if (server === null) {
        const g = group(`(${source.stem})`);
        g.tools += 1;
        g.rejected.push({
          where: item.where,
          reasons: [
            `no server: the tool names none and the file name '${source.stem}' cannot be made one; pass --server`,
          ],
        });
        continue;
      }
      const g = group(server);
      g.tools += 1;
      touched.add(g);
      if (forced && typeof own === "string" && own !== forced) {
        g.rejected.push({ where: item.where, reasons: [`server '${own}' differs from --server '${forced}'`] });
        continue;
      }
      const raw =
        typeof item.raw === "object" && item.raw !== null && !Array.isArray(item.raw)
          ? { ...item.raw, server }
          : item.raw;
      g.items.push({ raw, where: item.where });
    }
    if (source.items.length === 0 && fromFile) touched.add(group(fromFile));
    if (source.deferTools) {
      for (const g of touched) {
        if (g.deferTools && g.deferTools !== source.deferTools)
          g.rejected.push({
            where: source.file,
            reasons: [
              `defer_tools "${source.deferTools}" differs from "${g.deferTools}" in another file of ` +
                `server '${g.server}'`,
            ],
          });
        g.deferTools = source.deferTools;
      }
    }
  }
  return [...groups.values()];
}

/** Cuts a group into requests under both limits; a tool too large for any request is a rejection. */
function cut(group: ServerUpload, options: PlanOptions): Batch[] {
  const envelope = utf8(JSON.stringify({ tools: [], defer_tools: "never" }));
  const batches: Batch[] = [];
  let current: Batch = { items: [], bytes: envelope };
  for (const item of group.items) {
    const size = utf8(JSON.stringify(item.raw)) + 1; // and a comma
    if (envelope + size > options.maxBodyBytes) {
      group.rejected.push({
        where: item.where,
        reasons: [`${size} bytes: larger than a request may be (--max-body-bytes ${options.maxBodyBytes})`],
      });
      continue;
    }
    if (current.items.length >= options.batchSize || current.bytes + size > options.maxBodyBytes) {
      batches.push(current);
      current = { items: [], bytes: envelope };
    }
    current.items.push(item);
    current.bytes += size;
  }
  // A replacement with no tools is still a request: it empties the server.
  if (current.items.length > 0 || (options.replace && batches.length === 0)) batches.push(current);
  return batches;
}

/** Validates and cuts every group; the result says per server what will be sent. */
export async function planUploads(groups: ServerUpload[], options: PlanOptions): Promise<ServerUpload[]> {
  for (const group of groups) {
    const batches = cut(group, options);
    const firstSeen = new Map<string, string>();
    for (const batch of batches) {
      const parsed = await parseToolBatch(
        batch.items.map((i) => i.raw),
        options.limits,
        options.replace ? { server: group.server } : {},
      );
      if (!parsed.ok) {
        for (const e of parsed.errors)
          group.rejected.push({
            where: batch.items[e.index]?.where ?? group.server,
            ...(e.name ? { name: e.name } : {}),
            reasons: e.reasons,
          });
        continue;
      }
      parsed.rows.forEach((row, i) => {
        const where = batch.items[i]!.where;
        const seen = firstSeen.get(row.id);
        if (seen)
          group.rejected.push({
            where,
            name: row.name,
            reasons: [`duplicate of ${seen} (${row.id}); each tool may appear once`],
          });
        else firstSeen.set(row.id, where);
      });
    }
    if (options.replace && batches.length > 1) {
      const bytes = batches.reduce((n, b) => n + b.bytes, 0);
      group.rejected.push({
        where: `server '${group.server}'`,
        reasons: [
          `${group.items.length} tools (${bytes} bytes) do not fit one request (--batch-size ` +
            `${options.batchSize}, --max-body-bytes ${options.maxBodyBytes}); ` +
            `--replace sends each server in one request so that the replacement stays all-or-nothing. Upload without ` +
            `--replace (adds and updates in several requests, removes nothing), or raise the deployment's LIMITS and ` +
            `these options.`,
        ],
      });
    }
    group.batches = group.rejected.length === 0 ? batches : [];
  }
  return groups;
}
