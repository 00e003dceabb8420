/**
 * The service as a black box: a fresh tenant (operator token), the catalog uploaded through
 * `POST /v1/tenants/{t}/tools` in batches, every query through `POST .../search` with the default
 * threshold and ranking (only `max_results` is set, to the metrics' depth).
 */
import type { ServiceTool } from "./dataset.ts";
import type { Engine, Ranked } from "./engines.ts";
import { DEPTH } from "./metrics.ts";
import { Progress } from "./progress.ts";

const BATCH = 500;

export interface HttpTenant {
  id: string;
  key: string;
}

interface SearchReply {
  results: { tool_id: string; score: number; match: "exact-name" | "name-tail" | "terms" }[];
  threshold: number;
}

const ATTEMPTS = 4;

export async function request<T>(
  base: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    let res: Response;
    try {
      res = await fetch(new URL(path, base), {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (e) {
      // A local dev server drops a kept-alive connection now and then: retry the request (searches are idempotent).
      if (attempt < ATTEMPTS) {
        await new Promise((r) => setTimeout(r, 100 * attempt));
        continue;
      }
      throw e;
    }
    const text = await res.text();
    if (res.ok) return (text ? JSON.parse(text) : undefined) as T;
    // The service rate-limits each key (429 rate-limited, Retry-After): wait as told, then go on.
    if (res.status === 429 && (JSON.parse(text) as { error?: string }).error === "rate-limited") {
      await new Promise((r) => setTimeout(r, 1000 * Number(res.headers.get("retry-after") ?? 1)));
      attempt--;
      continue;
    }
    // ...and may briefly fail while it restarts an object: retry server errors too.
    if (res.status >= 500 && attempt < ATTEMPTS) continue;
    throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 500)}`);
  }
}

/** Creates a tenant for `label`, uploads the tools and returns an engine that searches over HTTP. */
export async function httpEngine(
  base: string,
  operatorToken: string,
  label: string,
  tools: readonly ServiceTool[],
): Promise<Engine & { threshold: () => number | null }> {
  const tenant = `eval-${label.toLowerCase().replace(/[^a-z0-9]+/g, "-")}-${Date.now().toString(36)}`.slice(0, 63);
  await request(base, operatorToken, "POST", "/v1/tenants", { id: tenant });
  const { key } = await request<{ key: string }>(base, operatorToken, "POST", `/v1/tenants/${tenant}/keys`, {
    scopes: ["search", "write"],
    label: "eval",
  });
  const evalIds = new Map<string, string>();
  const progress = new Progress(`${label}: upload to ${tenant}`, tools.length);
  for (let at = 0; at < tools.length; at += BATCH) {
    const batch = tools.slice(at, at + BATCH);
    for (const t of batch) evalIds.set(`${t.server}::${t.name}`, t.evalId);
    await request(base, key, "POST", `/v1/tenants/${tenant}/tools`, {
      tools: batch.map(({ evalId: _, ...tool }) => tool),
    });
    progress.tick(Math.min(at + BATCH, tools.length));
  }
  let applied: number | null = null;
  return {
    name: "tool-search (HTTP)",
    thresholded: false, // the service applied its own default threshold already
    threshold: () => applied,
    async search(query): Promise<Ranked> {
      const reply = await request<SearchReply>(base, key, "POST", `/v1/tenants/${tenant}/search`, {
        query,
        max_results: DEPTH,
      });
      applied = reply.threshold;
      return {
        hits: reply.results.map((r) => {
          const id = evalIds.get(r.tool_id);
          if (!id) throw new Error(`the service returned an unknown tool ${r.tool_id}`);
          return { id, score: r.score, match: r.match };
        }),
      };
    },
  };
}

/** A fresh tenant (its id starts with `label`) holding the set's catalog, with a key of every scope. */
export async function uploadTenant(
  base: string,
  operator: string,
  label: string,
  tools: readonly ServiceTool[],
  settings: Record<string, unknown> = {},
): Promise<HttpTenant> {
  const id = `${label}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .slice(0, 63);
  await request(base, operator, "POST", "/v1/tenants", { id, settings });
  const { key } = await request<{ key: string }>(base, operator, "POST", `/v1/tenants/${id}/keys`, {
    scopes: ["search", "write", "admin"],
    label: "eval",
  });
  const progress = new Progress(`${label}: upload to ${id}`, tools.length);
  for (let at = 0; at < tools.length; at += BATCH) {
    await request(base, key, "POST", `/v1/tenants/${id}/tools`, {
      tools: tools.slice(at, at + BATCH).map(({ evalId: _, ...tool }) => tool),
    });
    progress.tick(Math.min(at + BATCH, tools.length));
  }
  return { id, key };
}
