/**
 * `npm run attack`: the hostile clients of issue 16, against the real local runtime. Starts the
 * Worker under `wrangler dev` on a free loopback port (with the DevTools inspector open), seeds a
 * victim tenant, then runs each attack next to an honest request of the same size and prints, per
 * case, the status, the time to answer, the size of the answer, and the heap of workerd's isolate
 * (after a full collection) before and after the attack. Times are taken first, in a pass of their
 * own; the heap is read in a second pass (a heap snapshot slows the isolate down for good). Ends
 * with the checks the issue asks for and exits 1 if one fails.
 *
 *   npm run attack                  # every case, a table on stdout, progress on stderr
 *   npm run attack -- --markdown    # the table as markdown (as in docs/reliability.md)
 *   npm run attack -- --runs 9      # repetitions of each hostile request (the median is shown)
 *
 * Loopback only: it starts its own worker, on its own temporary storage, and talks to nothing else.
 */
import { readdirSync, statSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { parseArgsWith, type CommandHelp } from "../src/cli/usage.ts";
import { Inspector, type HeapReading } from "./bench/inspector.ts";
import { syntheticCatalog } from "./bench/synthetic.ts";
import { catalogFor } from "./load/workload.ts";
import { freePort, startLocalWorker, type LocalWorker } from "./local-worker.ts";

const HELP: CommandHelp = {
  usage: ["npm run attack -- [options]"],
  summary:
    "Hostile requests (issue 16) against the Worker under wrangler dev on a loopback port and temporary storage, " +
    "each next to an honest request of the same size: the answer, its time and size, and the heap of workerd's " +
    "isolate before and after. Exits 1 if a check fails.",
  flags: {
    runs: { text: "times each request is sent; the median time is shown (1-50)", value: "<n>" },
    markdown: "print the table as markdown (as in docs/reliability.md)",
    verbose: "print wrangler's output",
  },
  examples: ["npm run attack", "npm run attack -- --runs 9 --markdown"],
};

const { values: flags } = parseArgsWith(HELP)({
  options: {
    runs: { type: "string", default: "5" },
    markdown: { type: "boolean", default: false },
    verbose: { type: "boolean", default: false },
  },
});
const RUNS = Number(flags.runs);
if (!Number.isInteger(RUNS) || RUNS < 1 || RUNS > 50) throw new Error("--runs must be a whole number from 1 to 50");

/**
 * The attack worker runs at the default limits except one, raised so that the case can be
 * sent at all: a 64 KB description (the default allows 16 KB).
 */
const LIMITS = { max_description_bytes: 65_536 };
const TWO_MB = 2 * 1024 * 1024;

// ---- requests -------------------------------------------------------------------------------------

interface Answer {
  status: number;
  ms: number;
  bytes: number;
  body: any;
}

let base = "";
/** GET /healthz, median: what any request costs on this machine and stack. */
let baseline = Number.NaN;
let addressCounter = 0;
/**
 * A client address per request (CF-Connecting-IP, which wrangler dev passes through): the forged
 * keys sent here would otherwise trip the failed-authentication guard and be answered 429 after the
 * first twenty. The guard has a case of its own.
 */
const nextAddress = () => `198.51.100.${(addressCounter++ % 250) + 1}`;

async function send(
  method: string,
  path: string,
  options: { token?: string | null; body?: string | Uint8Array; type?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { "cf-connecting-ip": nextAddress(), ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers["content-type"] = options.type ?? "application/json";
  const started = performance.now();
  const res = await fetch(`${base}${path}`, { method, headers, body: options.body ?? null });
  const text = await res.text();
  const ms = performance.now() - started;
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  return { status: res.status, ms, bytes: Buffer.byteLength(text), body };
}

const json = (value: unknown) => JSON.stringify(value);

async function expectStatus(answer: Promise<Answer>, status: number, what: string): Promise<Answer> {
  const a = await answer;
  if (a.status !== status)
    throw new Error(`${what}: expected ${status}, got ${a.status} ${json(a.body).slice(0, 300)}`);
  return a;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

// ---- cases ----------------------------------------------------------------------------------------

interface Side {
  label: string;
  status: number;
  ms: number;
  bytes: number;
}

interface Row {
  name: string;
  hostile: Side;
  heapBefore: HeapReading;
  heapAfter: HeapReading;
  honest: Side | null;
  note: string;
  /** The hostile answers of the timing pass, for the checks. */
  answers: Answer[];
}

interface Case {
  name: string;
  /** The hostile request (sent `runs` times unless `once`), in the timing pass (1) and the heap pass (2). */
  hostile: { label: string; send: (pass: number) => Promise<Answer>; once?: boolean };
  /**
   * The honest request. `after`: sent only once the hostile ones are timed, not in turn with them (an honest 2 MB
   * upload leaves seconds of indexing behind it, which would land on the next hostile request).
   */
  honest?: { label: string; send: () => Promise<Answer>; after?: boolean };
  /** Checked after the hostile requests; a string is a failure. */
  check?: (hostile: Answer[], row: Row) => Promise<string | null> | string | null;
  /** Shown in the last column. */
  note?: (hostile: Answer[]) => Promise<string> | string;
}

interface Checked {
  name: string;
  ok: boolean;
  detail: string;
}

const checks: Checked[] = [];

function check(name: string, ok: boolean, detail: string): void {
  checks.push({ name, ok, detail });
}

const heapGrowth = (row: Row) =>
  row.heapAfter.usedMb + row.heapAfter.backingMb - (row.heapBefore.usedMb + row.heapBefore.backingMb);

/**
 * The isolate's heap after a full collection, through the DevTools inspector. A heap snapshot leaves
 * workerd's isolate about twice as slow for the rest of its life (measured: /healthz 22 -> 46 ms), so
 * the heap is read in a pass of its own, after every time has been taken.
 */
async function readHeap(port: number): Promise<HeapReading> {
  const inspector = await Inspector.connect(port);
  try {
    return await inspector.heap();
  } finally {
    inspector.close();
  }
}

/** The timing pass: the hostile request `runs` times, then the honest one, each after one unmeasured request. */
async function timeCase(c: Case, index: number, total: number): Promise<Row> {
  process.stderr.write(`[attack] times ${index}/${total}: ${c.name}\n`);
  // A warm-up of each, then the hostile and the honest request in turn, so that a change in the machine's load
  // while the case runs weighs on both medians alike (the checks compare them); or all the hostile ones first.
  const inTurn = c.honest !== undefined && !c.honest.after;
  if (!c.hostile.once) await c.hostile.send(1);
  if (inTurn) await c.honest!.send();
  const answers: Answer[] = [];
  const honestAnswers: Answer[] = [];
  for (let i = 0; i < RUNS; i++) {
    if (i === 0 || !c.hostile.once) answers.push(await c.hostile.send(1));
    if (inTurn) honestAnswers.push(await c.honest!.send());
  }
  if (c.honest?.after) {
    await c.honest.send();
    for (let i = 0; i < RUNS; i++) honestAnswers.push(await c.honest.send());
  }
  const honest = honestAnswers[0] ? { ...honestAnswers[0], ms: median(honestAnswers.map((a) => a.ms)) } : null;
  const first = answers[0]!;
  const unread = { usedMb: Number.NaN, backingMb: Number.NaN };
  const row: Row = {
    name: c.name,
    hostile: {
      label: c.hostile.label,
      status: first.status,
      ms: median(answers.map((a) => a.ms)),
      bytes: Math.max(...answers.map((a) => a.bytes)),
    },
    heapBefore: unread,
    heapAfter: unread,
    honest:
      honest && c.honest ? { label: c.honest.label, status: honest.status, ms: honest.ms, bytes: honest.bytes } : null,
    note: c.note ? await c.note(answers) : "",
    answers,
  };
  return row;
}

/** The heap pass: the isolate's heap before and after the hostile requests, sent as often again. */
async function heapCase(c: Case, row: Row, inspectorPort: number, index: number, total: number): Promise<void> {
  process.stderr.write(`[attack] heap ${index}/${total}: ${c.name}\n`);
  row.heapBefore = await readHeap(inspectorPort);
  for (let i = 0; i < (c.hostile.once ? 1 : RUNS); i++) await c.hostile.send(2);
  row.heapAfter = await readHeap(inspectorPort);
  const problem = c.check ? await c.check(row.answers, row) : null;
  if (problem !== null) check(c.name, false, problem);
}

/** The tenant objects' storage files under wrangler dev's persistence directory (one SQLite database each). */
function storageFiles(persistTo: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else out.push(path);
    }
  };
  walk(persistTo);
  return out.filter((f) => f.includes("TenantObject"));
}

/**
 * The tables a tenant object's SQLite database holds, read beside the running worker (read only), less the
 * runtime's own: workerd's `_cf_*` and miniflare's `__miniflare_do_name` (the object's name, which the local
 * runtime records when it opens an object's database; Cloudflare keeps no storage for an object that writes none).
 */
function tablesIn(file: string): string[] {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as { name: string }[])
      .map((r) => r.name)
      .filter((name) => !name.startsWith("_cf_") && !name.startsWith("__miniflare"));
  } finally {
    db.close();
  }
}

// ---- the run ----------------------------------------------------------------------------------------

async function seedTenant(
  worker: LocalWorker,
  id: string,
  scopes = ["search", "write", "admin"],
): Promise<{ id: string; key: string }> {
  await expectStatus(
    send("POST", "/v1/tenants", { token: worker.adminToken, body: json({ id }) }),
    201,
    `tenant ${id}`,
  );
  const created = await expectStatus(
    send("POST", `/v1/tenants/${id}/keys`, { token: worker.adminToken, body: json({ scopes }) }),
    201,
    `key of ${id}`,
  );
  return { id, key: created.body.key as string };
}

/** NDJSON of real-looking tools, `bytes` long at most, on servers named after `prefix` (new tools each time). */
function honestNdjson(bytes: number, prefix: string): { text: string; tools: number } {
  const lines: string[] = [];
  let size = 0;
  for (const tool of syntheticCatalog({ tools: Math.ceil(bytes / 300), seed: 16 })) {
    const line = json({ ...tool, server: `${prefix}_${tool.server}`.slice(0, 64) });
    if (size + line.length + 1 > bytes) break;
    lines.push(line);
    size += line.length + 1;
  }
  return { text: `${lines.join("\n")}\n`, tools: lines.length };
}

/** Junk lines, encoded once: the time measured is the request's, not the client's encoding of 2 MB. */
function junkNdjson(bytes: number): Uint8Array {
  return new TextEncoder().encode("x\n".repeat(bytes / 2));
}

async function main(): Promise<void> {
  const inspectorPort = await freePort();
  process.stderr.write("[attack] starting wrangler dev on a loopback port (inspector open)...\n");
  const worker = await startLocalWorker({
    inspectorPort,
    vars: { LIMITS: json(LIMITS) },
    verbose: flags.verbose,
  });
  base = worker.url;
  try {
    const rows = await attack(worker, inspectorPort);
    print(rows);
  } finally {
    await worker.stop();
  }
  const failed = checks.filter((c) => !c.ok);
  console.log("\nchecks");
  for (const c of checks) console.log(`  ${c.ok ? "ok  " : "FAIL"} ${c.name}: ${c.detail}`);
  console.log(failed.length === 0 ? "RESULT: OK" : `RESULT: ${failed.length} check(s) failed`);
  process.exit(failed.length === 0 ? 0 : 1);
}

async function attack(worker: LocalWorker, inspectorPort: number): Promise<Row[]> {
  process.stderr.write("[attack] seeding the victim tenant (1,000 tools)...\n");
  const victim = await seedTenant(worker, "victim");
  for (const s of catalogFor(1_000)) {
    await expectStatus(
      send("PUT", `/v1/tenants/${victim.id}/servers/${s.server}/tools`, {
        token: victim.key,
        body: json({ tools: s.tools, defer_tools: s.defer_tools }),
      }),
      200,
      `seed ${s.server}`,
    );
  }
  const searchKey = (
    await expectStatus(
      send("POST", `/v1/tenants/${victim.id}/keys`, { token: victim.key, body: json({ scopes: ["search"] }) }),
      201,
      "search key",
    )
  ).body.key as string;
  const otherKey = (
    await expectStatus(
      send("POST", `/v1/tenants/${victim.id}/keys`, { token: victim.key, body: json({ scopes: ["search"] }) }),
      201,
      "second search key",
    )
  ).body.key as string;
  const [, , keyId] = victim.key.split("_");
  const forged = `tsk_${victim.id}_${keyId}_${"F".repeat(40)}${"G".repeat(9)}`; // a tag that does not match
  const forgedUntagged = `tsk_${victim.id}_${keyId}_${"F".repeat(40)}`; // the form of keys made before tags
  const ghost = `ghost-${Date.now().toString(36)}`;
  const forgedGhost = `tsk_${ghost}_${"k".repeat(12)}_${"F".repeat(40)}`;
  const junk = junkNdjson(TWO_MB);
  // Honest uploads go to a tenant of their own, new tools each time, so the victim's catalog stays as seeded.
  const uploader = await seedTenant(worker, "honest");
  let honestRun = 0;
  const honestUpload = () => {
    const body = honestNdjson(TWO_MB, `h${++honestRun}`);
    return send("POST", `/v1/tenants/${uploader.id}/tools`, {
      token: uploader.key,
      body: body.text,
      type: "application/x-ndjson",
    });
  };
  const honestTools = honestNdjson(TWO_MB, "h0").tools;
  const ndjson = "application/x-ndjson";

  const capitals = "A".repeat(65_536);
  const prose = Array.from(
    { length: 12_000 },
    (_, i) => ["read", "the", "file", "and", "list", "open", "issues"][i % 7],
  )
    .join(" ")
    .slice(0, 65_536);
  // A small tenant of their own: a write to a large one schedules a large snapshot, which would show in the heap.
  const describer = await seedTenant(worker, "describer");
  let descriptionServer = 0;
  const uploadDescription = (description: string) =>
    send("POST", `/v1/tenants/${describer.id}/tools`, {
      token: describer.key,
      body: json({
        tools: [{ server: `desc${++descriptionServer}`, name: "big", description, inputSchema: { type: "object" } }],
      }),
    });

  const vocabulary = Array.from({ length: 1_000 }, (_, i) => `term${i.toString(36)}x`);
  vocabulary.splice(0, 6, "list", "issues", "read", "file", "create", "event");
  const thousandTerms = vocabulary.join(" ");
  // An honest request of the same size: a long request in ordinary words, most of them repeated.
  const longRequest = Array.from(
    { length: 2_000 },
    (_, i) => ["list", "the", "open", "issues", "in", "my", "repository", "and", "read", "each", "file"][i % 11],
  )
    .join(" ")
    .slice(0, thousandTerms.length);
  const search = (body: Record<string, unknown>, token = searchKey) =>
    send("POST", `/v1/tenants/${victim.id}/search`, { token, body: json(body) });

  const mcpHeaders = { accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" };
  const mcpSession = await (async () => {
    const res = await fetch(`${base}/v1/tenants/${victim.id}/mcp`, {
      method: "POST",
      headers: { ...mcpHeaders, authorization: `Bearer ${searchKey}`, "content-type": "application/json" },
      body: json({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "attack", version: "1" } },
      }),
    });
    await res.text();
    return res.headers.get("mcp-session-id")!;
  })();
  const mcpCall = (id: number) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "tool_search", arguments: { query: "list issues" } },
  });

  // A session that searched far more of the catalog than it may keep activated.
  const greedy = (
    await expectStatus(
      send("POST", `/v1/tenants/${victim.id}/sessions`, { token: searchKey, body: json({ budget_cap: 100 }) }),
      201,
      "session",
    )
  ).body.session_id as string;
  const fresh = (
    await expectStatus(
      send("POST", `/v1/tenants/${victim.id}/sessions`, { token: searchKey, body: json({}) }),
      201,
      "session",
    )
  ).body.session_id as string;
  // A query that is a server's name lists that server's tools: 50 new ones from each synthetic server.
  const topics = ["synthetic0", "synthetic1", "synthetic2", "synthetic3", "synthetic4", "list issues", "send email"];
  const foundIds = new Set<string>();
  for (const topic of topics) {
    const found = await expectStatus(
      search({ query: topic, max_results: 50, threshold: 0, session_id: greedy }),
      200,
      "greedy search",
    );
    for (const r of found.body.results as { tool_id: string }[]) foundIds.add(r.tool_id);
  }
  const greedyState = (await send("GET", `/v1/tenants/${victim.id}/sessions/${greedy}`, { token: searchKey })).body;
  process.stderr.write("[attack] waiting 8 s for the seeded catalog's index snapshot to be written\n");
  await new Promise((r) => setTimeout(r, 8_000));

  const storageBefore = storageFiles(worker.persistTo);

  const cases: Case[] = [
    {
      name: "forged key, 2 MB of junk NDJSON",
      hostile: {
        label: "401",
        send: () => send("POST", `/v1/tenants/${victim.id}/tools`, { token: forged, body: junk, type: ndjson }),
      },
      honest: {
        label: `valid key, 2 MB NDJSON (${honestTools.toLocaleString("en-US")} tools)`,
        send: honestUpload,
        after: true,
      },
      check: (answers, row) => {
        const slow = Math.max(...answers.map((a) => a.ms));
        const growth = heapGrowth(row);
        const ok = answers.every((a) => a.status === 401) && row.hostile.ms < 50 && row.hostile.bytes < 1024;
        // Unchanged: the attack adds nothing (a heap that shrinks meanwhile is other work finishing).
        check(
          "forged key + 2 MB junk: 401 in under 50 ms, under 1 KB, heap unchanged",
          ok && growth < 0.5,
          `median ${row.hostile.ms.toFixed(1)} ms (slowest ${slow.toFixed(1)}), ${row.hostile.bytes} bytes, ` +
            `heap ${growth >= 0 ? "+" : ""}${growth.toFixed(2)} MB`,
        );
        return null;
      },
    },
    {
      name: "forged key without a tag (old key form), 2 MB",
      hostile: {
        label: "401",
        send: () => send("POST", `/v1/tenants/${victim.id}/tools`, { token: forgedUntagged, body: junk, type: ndjson }),
      },
      note: () => "refused by the tenant object's key check, before the body is read",
      check: (answers) => (answers.every((a) => a.status === 401) ? null : "not 401"),
    },
    {
      name: "forged key, tenant that does not exist, 2 MB",
      hostile: {
        label: "401",
        send: () => send("POST", `/v1/tenants/${ghost}/tools`, { token: forgedGhost, body: junk, type: ndjson }),
      },
      note: () => {
        const added = storageFiles(worker.persistTo).filter((f) => !storageBefore.includes(f) && f.endsWith(".sqlite"));
        return `tables written for it: ${added.flatMap(tablesIn).length}`;
      },
      check: (answers) => {
        const added = storageFiles(worker.persistTo).filter((f) => !storageBefore.includes(f));
        const databases = added.filter((f) => f.endsWith(".sqlite"));
        const tables = databases.flatMap(tablesIn);
        check(
          "a tenant that does not exist is left with no object storage",
          tables.length === 0 && answers.every((a) => a.status === 401),
          added.length === 0
            ? "no storage file was created"
            : `${tables.length} tables written (the local runtime opened ${databases.length} database file(s) ` +
                `for the object it asked, holding only its own record of the object's name)`,
        );
        return null;
      },
    },
    {
      name: "no token, 2 MB",
      hostile: {
        label: "401",
        send: () => send("POST", `/v1/tenants/${victim.id}/tools`, { body: junk, type: ndjson }),
      },
      check: (answers) => (answers.every((a) => a.status === 401) ? null : "not 401"),
    },
    {
      name: "search-only key on a write route, 2 MB",
      hostile: {
        label: "403",
        send: () => send("POST", `/v1/tenants/${victim.id}/tools`, { token: searchKey, body: junk, type: ndjson }),
      },
      check: (answers) => (answers.every((a) => a.status === 403) ? null : "not 403"),
    },
    {
      name: "route that does not exist, 2 MB",
      hostile: { label: "404", send: () => send("POST", "/v2/anything", { body: junk, type: ndjson }) },
      check: (answers) => (answers.every((a) => a.status === 404) ? null : "not 404"),
    },
    {
      name: "valid key, 2 MB of junk NDJSON lines",
      hostile: {
        label: "413",
        send: () => send("POST", `/v1/tenants/${victim.id}/tools`, { token: victim.key, body: junk, type: ndjson }),
      },
      note: () => "read no further than max_tools_per_batch + 1 lines",
      check: (answers) => (answers.every((a) => a.status === 413) ? null : `got ${answers[0]!.status}`),
    },
    {
      name: "30 bad keys from one address",
      hostile: {
        label: "401 x20, then 429",
        once: true,
        send: async (pass) => {
          const address = { "cf-connecting-ip": `203.0.113.${pass}` };
          const statuses: number[] = [];
          let last: Answer | null = null;
          for (let i = 0; i < 30; i++) {
            last = await send("GET", `/v1/tenants/${victim.id}/catalog`, { token: forged, headers: address });
            statuses.push(last.status);
          }
          const blockedGood = await send("GET", `/v1/tenants/${victim.id}/catalog`, {
            token: searchKey,
            headers: address,
          });
          const otherGood = await send("GET", `/v1/tenants/${victim.id}/catalog`, {
            token: searchKey,
            headers: { "cf-connecting-ip": "203.0.113.100" },
          });
          const firstRefused = statuses.indexOf(429) + 1;
          if (pass === 1)
            check(
              "30 bad keys from one address: 429 for it; a valid key from another address is served",
              statuses.at(-1) === 429 && blockedGood.status === 429 && otherGood.status === 200,
              `429 from request ${firstRefused}; that address with a valid key ${blockedGood.status}; ` +
                `another address ${otherGood.status}`,
            );
          return last!;
        },
      },
      honest: {
        label: "valid key, another address",
        send: () => send("GET", `/v1/tenants/${victim.id}/catalog`, { token: searchKey }),
      },
    },
    {
      name: "64 KB description of capitals",
      hostile: { label: "200", send: () => uploadDescription(capitals) },
      honest: { label: "64 KB of ordinary text", send: () => uploadDescription(prose) },
      check: (answers, row) => {
        const ratio = row.hostile.ms / row.honest!.ms;
        check(
          "64 KB of capitals uploads in under 2x the time of 64 KB of ordinary text",
          answers.every((a) => a.status === 200) && row.honest!.status === 200 && ratio < 2,
          `${row.hostile.ms.toFixed(1)} ms vs ${row.honest!.ms.toFixed(1)} ms (medians of ${RUNS}): ` +
            `${ratio.toFixed(2)}x`,
        );
        return null;
      },
    },
    {
      name: "1,000-term query",
      hostile: { label: "200", send: () => search({ query: thousandTerms, max_results: 10 }) },
      honest: {
        label: "ordinary words, same length",
        send: () => search({ query: longRequest, max_results: 10 }),
      },
      note: async (a) => {
        const short: number[] = [];
        for (let i = 0; i < RUNS; i++) short.push((await search({ query: "list open issues", max_results: 10 })).ms);
        return (
          `${thousandTerms.length.toLocaleString("en-US")} characters; ${a[0]!.body.results?.length ?? 0} results; ` +
          `a 3-term query ${median(short).toFixed(1)} ms`
        );
      },
      check: (answers, row) => {
        // Scored with at most max_query_terms (64) distinct terms: 1,000 distinct words cost what reading 1,000
        // ordinary ones does (the analysis is linear in the text, which max_query_chars bounds), not 1,000 lookups.
        const ratio = row.hostile.ms / row.honest!.ms;
        check(
          "a 1,000-term query is answered within 2x the time of ordinary words of the same length " +
            "(max_query_terms bounds what it scores)",
          answers.every((a) => a.status === 200) && row.honest!.status === 200 && ratio < 2,
          `${row.hostile.ms.toFixed(1)} ms vs ${row.honest!.ms.toFixed(1)} ms: ${ratio.toFixed(2)}x`,
        );
        return null;
      },
    },
    {
      name: "explain on 50 hits",
      hostile: {
        label: "200",
        send: () => search({ query: "list records team", max_results: 50, threshold: 0, explain: true }),
      },
      honest: {
        label: "the same without explain",
        send: () => search({ query: "list records team", max_results: 50, threshold: 0 }),
      },
      note: (a) => `${a[0]!.body.results?.length ?? 0} hits`,
      check: (answers, row) => {
        // Explained in one pass over the query terms' postings for all 50 hits (ranker.ts explainTerms); what the
        // time adds over the same search is mostly the answer's size (shown beside it), which max_results bounds.
        const ratio = row.hostile.ms / row.honest!.ms;
        const results = (answers[0]!.body.results ?? []) as { explain?: unknown }[];
        const explained = results.filter((r) => r.explain !== undefined).length;
        check(
          "explain on 50 hits: every hit explained, the answer bounded by max_results (under 64 KB)",
          answers.every((a) => a.status === 200) &&
            results.length === 50 &&
            explained === 50 &&
            row.hostile.bytes < 65_536,
          `${explained} of ${results.length} hits explained, ${row.hostile.bytes.toLocaleString("en-US")} bytes; ` +
            `${row.hostile.ms.toFixed(1)} ms vs ${row.honest!.ms.toFixed(1)} ms without explain (${ratio.toFixed(2)}x)`,
        );
        return null;
      },
    },
    {
      name: "MCP batch of 100 tool_search calls",
      hostile: {
        label: "400",
        send: () =>
          send("POST", `/v1/tenants/${victim.id}/mcp`, {
            token: searchKey,
            headers: { ...mcpHeaders, "mcp-session-id": mcpSession },
            body: json(Array.from({ length: 100 }, (_, i) => mcpCall(i + 2))),
          }),
      },
      honest: {
        label: "one tool_search call",
        send: () =>
          send("POST", `/v1/tenants/${victim.id}/mcp`, {
            token: searchKey,
            headers: { ...mcpHeaders, "mcp-session-id": mcpSession },
            body: json(mcpCall(1)),
          }),
      },
      check: (answers) => (answers.every((a) => a.status === 400) ? null : `got ${answers[0]!.status}`),
    },
    {
      name: "tool list of a session that searched 350 hits",
      hostile: {
        label: "200",
        send: () => send("GET", `/v1/tenants/${victim.id}/sessions/${greedy}/tools`, { token: searchKey }),
      },
      honest: {
        label: "tool list of a new session",
        send: () => send("GET", `/v1/tenants/${victim.id}/sessions/${fresh}/tools`, { token: searchKey }),
      },
      note: () =>
        `${foundIds.size} distinct tools found, ${greedyState.activated.length} kept activated ` +
        "(max_activated_tools 200)",
      check: () => {
        check(
          "activated never exceeds max_activated_tools",
          greedyState.activated.length <= 200 && foundIds.size > 200,
          `${greedyState.activated.length} activated after ${topics.length} searches found ${foundIds.size} tools`,
        );
        return null;
      },
    },
    {
      name: "another key's session",
      hostile: {
        label: "404",
        send: () => send("GET", `/v1/tenants/${victim.id}/sessions/${greedy}`, { token: otherKey }),
      },
      honest: {
        label: "its own key",
        send: () => send("GET", `/v1/tenants/${victim.id}/sessions/${greedy}`, { token: searchKey }),
      },
      check: (answers) => {
        check(
          "a session made by key A: key B (same tenant, search) gets 404",
          answers.every((a) => a.status === 404),
          `status ${answers[0]!.status}`,
        );
        return null;
      },
    },
  ];

  const rows: Row[] = [];
  const healthz: number[] = [];
  for (let i = 0; i < 20; i++) healthz.push((await send("GET", "/healthz")).ms);
  baseline = median(healthz);
  for (const [i, c] of cases.entries()) rows.push(await timeCase(c, i + 1, cases.length));
  // The timing pass's writes schedule index snapshots (2 s after a tenant's last write): let them run first.
  process.stderr.write("[attack] waiting 8 s for the timing pass's snapshots, then reading the heap\n");
  await new Promise((r) => setTimeout(r, 8_000));
  await readHeap(inspectorPort);
  for (const [i, c] of cases.entries()) await heapCase(c, rows[i]!, inspectorPort, i + 1, cases.length);
  return rows;
}

// ---- output -------------------------------------------------------------------------------------------

function print(rows: Row[]): void {
  const ms = (n: number) => (n < 10 ? n.toFixed(1) : Math.round(n).toLocaleString("en-US"));
  const heap = (h: HeapReading) => (h.usedMb + h.backingMb).toFixed(1);
  const header = [
    "case",
    "answer",
    "time ms",
    "bytes",
    "heap MB before -> after",
    "honest request",
    "answer",
    "time ms",
    "note",
  ];
  const table = rows.map((r) => [
    r.name,
    String(r.hostile.status),
    ms(r.hostile.ms),
    r.hostile.bytes.toLocaleString("en-US"),
    `${heap(r.heapBefore)} -> ${heap(r.heapAfter)}`,
    r.honest?.label ?? "",
    r.honest ? String(r.honest.status) : "",
    r.honest ? ms(r.honest.ms) : "",
    r.note,
  ]);
  const machine = `${cpus()[0]?.model.trim() ?? "?"} (${cpus().length} cores), ${Math.round(totalmem() / 2 ** 30)} GB`;
  console.log(
    `npm run attack: ${RUNS} run(s) per request (median time), heap after a full collection; ${machine}, ` +
      `Node ${process.version}, worker under wrangler dev on the same machine; load average ` +
      `${loadavg()[0]!.toFixed(1)} at the end; GET /healthz ${ms(baseline)} ms`,
  );
  if (flags.markdown) {
    console.log(`\n| ${header.join(" | ")} |\n|${header.map(() => "---").join("|")}|`);
    for (const row of table) console.log(`| ${row.join(" | ")} |`);
    return;
  }
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  console.log(`\n${line(header)}`);
  for (const row of table) console.log(line(row));
}

main().catch((e: unknown) => {
  console.error(`npm run attack failed: ${e instanceof Error ? (e.stack ?? e.message) : e}`);
  process.exit(1);
});
