/**
 * The bench through the platform: starts the worker with `wrangler dev` (local workerd, storage
 * persisted to a temporary directory), loads the real catalog through the HTTP API, then measures
 * search and `/healthz` latency on the same server, alternating request by request, and the first
 * search after the tenant's Durable Object is evicted.
 *
 * Eviction: `wrangler dev` is stopped and started again on the same `--persist-to` directory. The
 * new process has no object in memory, only its SQLite storage (rows and index snapshot), which is
 * what a Durable Object finds after hibernating. `/healthz` is called first after the restart, so
 * the worker isolate is up and the first search pays for the object's start and index restore only.
 *
 * Memory in workerd: one more restart with the DevTools inspector open; the isolate's heap is read
 * (after full collections) before and after the first search, whose object restores the index.
 */
import { rmSync } from "node:fs";
import { splitWords } from "../../src/search/tokenizer.ts";
import { freePort, startLocalWorker, type LocalWorker } from "../local-worker.ts";
import { queryMix } from "./catalogs.ts";
import { Inspector } from "./inspector.ts";
import { log, percentile, Progress } from "./measure.ts";
import type { BenchTool } from "./synthetic.ts";

export interface HttpFigures {
  search_p50_ms: number;
  search_p99_ms: number;
  healthz_p50_ms: number;
  healthz_p99_ms: number;
  cold_first_search_ms: number;
  [extra: string]: number | string;
}

const BATCH = 1_000;
const REQUESTS = 1_000;
const WARMUP = 100;
const COLD_ROUNDS = 3;
/** The tenant object writes its index snapshot 2 s after the last write; writing takes longer for large catalogs. */
const snapshotSettleMs = (tools: number) => 4_000 + tools / 20;

interface Options {
  /** Which catalog to load, and its tools. */
  catalog: string;
  tools: () => BenchTool[];
  port?: number;
}

export async function runHttpBench(options: Options): Promise<HttpFigures> {
  if (options.port && (await answers(options.port)))
    throw new Error(`port ${options.port} is already in use: stop what runs there or pick another --port`);
  log(`\n[http] starting wrangler dev${options.port ? ` on port ${options.port}` : ""}, catalog ${options.catalog}`);
  let worker: LocalWorker = await startLocalWorker(options.port ? { port: options.port } : {});
  const { adminToken, persistTo } = worker;
  const base = worker.url;
  try {
    const tenant = `bench-${Date.now().toString(36)}`;
    await expectStatus(post(base, "/v1/tenants", adminToken, { id: tenant }), 201);
    const created = (await (
      await expectStatus(post(base, `/v1/tenants/${tenant}/keys`, adminToken, { scopes: ["search", "write"] }), 201)
    ).json()) as { key: string };
    const key = created.key;

    const tools = options.tools();
    const upload = new Progress("[http] uploading tools", tools.length);
    const uploadStarted = performance.now();
    for (let i = 0; i < tools.length; i += BATCH) {
      await expectStatus(post(base, `/v1/tenants/${tenant}/tools`, key, { tools: tools.slice(i, i + BATCH) }), 200);
      upload.tick(Math.min(i + BATCH, tools.length));
    }
    const uploadMs = performance.now() - uploadStarted;
    const settle = snapshotSettleMs(tools.length);
    log(`[http] waiting ${(settle / 1000).toFixed(1)} s for the index snapshot to be written`);
    await sleep(settle);

    const queries = queryMix(tools, REQUESTS, splitWords, 11);
    const search = (q: string) => post(base, `/v1/tenants/${tenant}/search`, key, { query: q });
    const healthz = () => fetch(`${base}/healthz`);
    for (let i = 0; i < WARMUP; i++) {
      await drain(search(queries[i]!));
      await drain(healthz());
    }
    const searchMs = new Float64Array(REQUESTS);
    const healthMs = new Float64Array(REQUESTS);
    const progress = new Progress("[http] search and /healthz, alternating", REQUESTS);
    for (let i = 0; i < REQUESTS; i++) {
      // Alternate which goes first, so neither always follows the other.
      if (i % 2 === 0) {
        searchMs[i] = await timed(() => search(queries[i]!));
        healthMs[i] = await timed(healthz);
      } else {
        healthMs[i] = await timed(healthz);
        searchMs[i] = await timed(() => search(queries[i]!));
      }
      progress.tick(i + 1);
    }

    const cold: number[] = [];
    const warmAfterCold: number[] = [];
    for (let round = 1; round <= COLD_ROUNDS; round++) {
      log(`[http] eviction ${round}/${COLD_ROUNDS}: restarting wrangler dev on the same storage`);
      await worker.stop();
      worker = await startLocalWorker({ port: worker.port, persistTo, adminToken });
      await drain(healthz());
      cold.push(await timed(() => search("list open issues")));
      warmAfterCold.push(await timed(() => search("list open issues")));
    }
    log("[http] heap of the worker's isolate around a cold start (inspector)");
    await worker.stop();
    const inspectorPort = await freePort();
    worker = await startLocalWorker({ port: worker.port, persistTo, adminToken, inspectorPort });
    await drain(healthz());
    const inspector = await Inspector.connect(inspectorPort);
    const idle = await inspector.heap();
    await drain(search("list open issues"));
    const loaded = await inspector.heap();
    inspector.close();
    const catalog = (await (
      await fetch(`${base}/v1/tenants/${tenant}/catalog`, { headers: { authorization: `Bearer ${key}` } })
    ).json()) as {
      index?: { source?: string; ms?: number };
    };

    return {
      search_p50_ms: percentile(searchMs, 50),
      search_p99_ms: percentile(searchMs, 99),
      healthz_p50_ms: percentile(healthMs, 50),
      healthz_p99_ms: percentile(healthMs, 99),
      cold_first_search_ms: percentile(cold, 50),
      cold_first_search_all_ms: cold.map((ms) => ms.toFixed(1)).join(" "),
      second_search_after_cold_ms: percentile(warmAfterCold, 50),
      cold_index_source: String(catalog.index?.source ?? "unknown"),
      cold_index_load_ms: Number(catalog.index?.ms ?? NaN),
      catalog: options.catalog,
      tools: tools.length,
      requests: REQUESTS,
      workerd_index_heap_mb: loaded.usedMb + loaded.backingMb - idle.usedMb - idle.backingMb,
      workerd_index_js_mb: loaded.usedMb - idle.usedMb,
      workerd_index_buffers_mb: loaded.backingMb - idle.backingMb,
      workerd_isolate_heap_mb: loaded.usedMb + loaded.backingMb,
      upload_ms: uploadMs,
    };
  } finally {
    await worker.stop();
    rmSync(persistTo, { recursive: true, force: true });
    log("[http] wrangler dev stopped");
  }
}

function post(base: string, path: string, token: string, body: unknown): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

async function expectStatus(pending: Promise<Response>, status: number): Promise<Response> {
  const res = await pending;
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${await res.text()}`);
  return res;
}

async function drain(pending: Promise<Response>): Promise<void> {
  const res = await pending;
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
}

/** Wall time of one request, body read included. */
async function timed(request: () => Promise<Response>): Promise<number> {
  const started = performance.now();
  await drain(request());
  return performance.now() - started;
}

async function answers(port: number): Promise<boolean> {
  try {
    await fetch(`http://127.0.0.1:${port}/`);
    return true;
  } catch {
    return false;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}
