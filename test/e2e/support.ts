/** What the end-to-end tests share: JSON calls to a local worker, and workers stopped after the file. */
import { afterAll } from "vitest";
import { startLocalWorker, type LocalWorker, type LocalWorkerOptions } from "../../scripts/local-worker.ts";

export async function api(w: LocalWorker, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${w.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, json: (await res.json().catch(() => null)) as any };
}

/** A `start` that launches local workers and stops every one of them when the test file ends. */
export function localWorkers(): (options?: LocalWorkerOptions) => Promise<LocalWorker> {
  const running: LocalWorker[] = [];
  afterAll(async () => {
    for (const w of running) await w.stop();
  });
  return async (options) => {
    const w = await startLocalWorker(options);
    running.push(w);
    return w;
  };
}
