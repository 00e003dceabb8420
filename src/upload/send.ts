/**
 * Sending planned uploads through the typed client, a few requests at a time. Each request's
 * answer is added to its server's outcome: the counts the service reports, or what it rejected
 * and why, or what could not be delivered (after the client's retries).
 */
import { ToolSearchError, type TenantClient, type ToolBatchResult } from "../client/index.ts";
import type { Batch, Rejection, ServerUpload } from "./plan.ts";

interface Counts {
  added: number;
  updated: number;
  unchanged: number;
  removed: number;
}

export interface ServerOutcome {
  server: string;
  /** Tools of the input for this server, and the requests planned for them. */
  tools: number;
  requests: number;
  counts: Counts;
  /** Tools refused by local validation or by the service, with the reasons. */
  rejectedTools: number;
  rejected: Rejection[];
  /** Tools whose request could not be delivered, and what failed (also an MCP server that could not be listed). */
  failedTools: number;
  failed: string[];
  /** Tools whose model-facing name is not the usual `server__name` (another tool held it): `tool_id -> name`. */
  renamed: string[];
}

export interface SendOptions {
  replace: boolean;
  concurrency: number;
  /** Called as each request settles, with its number of tools. */
  onSettled?: (tools: number) => void;
}

export function emptyOutcome(upload: ServerUpload): ServerOutcome {
  const refused = upload.rejected.length > 0;
  return {
    server: upload.server,
    tools: upload.tools,
    requests: upload.batches.length,
    counts: { added: 0, updated: 0, unchanged: 0, removed: 0 },
    rejectedTools: refused ? upload.tools : 0,
    rejected: [...upload.rejected],
    failedTools: 0,
    failed: [],
    renamed: [],
  };
}

/** Runs `tasks` with at most `limit` in flight. */
async function pool(tasks: (() => Promise<void>)[], limit: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) await tasks[next++]!();
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
}

function record(outcome: ServerOutcome, result: ToolBatchResult): void {
  outcome.counts.added += result.added;
  outcome.counts.updated += result.updated;
  outcome.counts.unchanged += result.unchanged;
  outcome.counts.removed += result.removed;
  for (const r of result.renamed ?? []) outcome.renamed.push(`${r.tool_id} -> ${r.model_name}`);
}

function describe(batch: Batch): string {
  const first = batch.items[0]?.where;
  const last = batch.items.at(-1)?.where;
  return batch.items.length === 0 ? "the empty set" : first === last ? first! : `${first} … ${last}`;
}

/** A service refusal in terms of the input: per item when it lists items, else for the request. */
function refusal(outcome: ServerOutcome, batch: Batch, error: ToolSearchError): void {
  outcome.rejectedTools += batch.items.length;
  const items = Array.isArray(error.body.items)
    ? (error.body.items as { index: number; name?: string; reasons: string[] }[])
    : [];
  if (items.length === 0) {
    outcome.rejected.push({
      where: describe(batch),
      reasons: [`${error.status} ${error.code}: ${error.body.message}`],
    });
    return;
  }
  for (const item of items) {
    outcome.rejected.push({
      where: batch.items[item.index]?.where ?? describe(batch),
      ...(item.name ? { name: item.name } : {}),
      reasons: item.reasons,
    });
  }
}

export async function sendUploads(
  uploads: ServerUpload[],
  api: TenantClient,
  options: SendOptions,
): Promise<ServerOutcome[]> {
  const outcomes = uploads.map(emptyOutcome);
  const tasks = uploads.flatMap((upload, i) =>
    upload.batches.map((batch) => async () => {
      const outcome = outcomes[i]!;
      const tools = batch.items.map((item) => item.raw) as Parameters<TenantClient["tools"]["upsert"]>[0];
      try {
        const result = options.replace
          ? await api.servers.replaceTools(upload.server, {
              tools,
              ...(upload.deferTools ? { defer_tools: upload.deferTools } : {}),
            })
          : await api.tools.upsert(tools);
        record(outcome, result);
      } catch (e) {
        const undeliverable = !(e instanceof ToolSearchError) || e.status === 429 || e.status >= 500;
        if (e instanceof ToolSearchError && !undeliverable) refusal(outcome, batch, e);
        else {
          outcome.failedTools += batch.items.length;
          outcome.failed.push(
            `${describe(batch)}: not delivered (${e instanceof Error ? e.message : String(e)}); run again to finish`,
          );
        }
      }
      options.onSettled?.(batch.items.length);
    }),
  );
  await pool(tasks, options.concurrency);
  return outcomes;
}
