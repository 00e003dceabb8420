/**
 * The operator token of a local worker (scripts/local-worker.ts: the e2e tests, npm run load, the bench and npm run
 * attack start workers with it) reaches wrangler in a `.dev.vars` file only its owner may read, never on a command
 * line, where any user of the machine could read it in the process list. Linux only: it reads /proc.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { api, localWorkers } from "./support.ts";

/** The command line of every process in a process group (wrangler, workerd and their helpers). */
function commandLines(group: number): string[][] {
  const lines: string[][] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // /proc/<pid>/stat: "pid (comm) state ppid pgrp ..."; comm may hold spaces, so read after its ")".
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const pgrp = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
      if (pgrp !== group) continue;
      lines.push(readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").filter(Boolean));
    } catch {
      // the process ended meanwhile
    }
  }
  return lines;
}

describe.runIf(existsSync("/proc/self/stat"))("a local worker's secrets", () => {
  const start = localWorkers();

  it("the operator token is in a 0600 .dev.vars given with --env-file, on no process's command line", async () => {
    const worker = await start();
    const lines = commandLines(worker.pid);
    expect(lines.length).toBeGreaterThanOrEqual(2); // wrangler and workerd at least
    for (const argv of lines) expect(argv.join(" ")).not.toContain(worker.adminToken);
    const wrangler = lines.find((argv) => argv.includes("--env-file"))!;
    expect(wrangler, "wrangler is given an --env-file").toBeDefined();
    const file = wrangler[wrangler.indexOf("--env-file") + 1]!;
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8")).toContain(`ADMIN_TOKEN='${worker.adminToken}'`);
    // And the worker runs with it.
    expect((await api(worker, worker.adminToken, "POST", "/v1/tenants", { id: "secrets" })).status).toBe(201);
  });
});
