/**
 * Backup and restore (issue 14): GET .../backup streams a tenant as NDJSON (header, settings, synonyms, keys, learned
 * terms, servers, tools); POST .../restore loads one into a new or empty tenant, all or nothing. A round trip into
 * another tenant id gives the same catalog, field for field, and the same search answers; keys keep working; a
 * corrupt or truncated backup is refused with what was wrong and nothing written.
 */
import { env } from "cloudflare:workers";
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/env.ts";
import { BackupChecksum } from "../../src/contract/backup.ts";
import type { TenantObject } from "../../src/durable/tenant-object.ts";
import { rekey } from "../../src/tenancy/keys.ts";
import {
  call,
  createKey,
  createTenant,
  mcpTool,
  OPERATOR,
  search,
  tenantWithKey,
  uniqueTenant,
  upsert,
} from "../helpers.ts";
import { send, stateFingerprint } from "../routes.ts";
import { newSession, resolve, sessionSearch } from "./session-helpers.ts";

const stubOf = (tenant: string) => env.TENANTS.get(env.TENANTS.idFromName(tenant));

const TOOLS = [
  {
    server: "github",
    ...mcpTool("list_issues", "List issues in a GitHub repository", { repo: { type: "string", description: "o/n" } }),
    title: "List issues",
    keywords: ["tickets", "bugs"],
    annotations: { readOnlyHint: true },
    outputSchema: { type: "object", properties: { issues: { type: "array" } } },
  },
  { server: "github", ...mcpTool("merge_pull_request", "Merge a pull request", { number: { type: "integer" } }) },
  {
    server: "fs",
    name: "read_file",
    description: "Read the contents of a file",
    input_schema: { type: "object", properties: { path: { type: "string" } } },
    strict: true,
    input_examples: [{ path: "/etc/hosts" }],
  },
  {
    type: "function",
    function: { name: "write_file", description: "Write text to a file", parameters: { type: "object" }, strict: true },
    server: "fs",
  },
  { server: "core", ...mcpTool("ask_user", "Ask the user a question", {}, { defer: "never" }) },
  // Two tools whose model-facing names collide: the second one's suffix must survive the trip.
  { server: "a", ...mcpTool("b__c", "First of a pair") },
  { server: "a__b", ...mcpTool("c", "Second of a pair") },
];

const QUERIES = ["list issues", "merge a pull request", "read a file", "ask the user", "tickets", "open a PR"];

/** A tenant with tools, settings, synonyms, keys (one revoked) and learned terms. */
async function richTenant() {
  const { tenant, key } = await tenantWithKey({ default_max_results: 7, builtin_synonyms: false });
  const up = await upsert(tenant, key, TOOLS);
  expect(up.status, up.text).toBe(200);
  await call("PUT", `/v1/tenants/${tenant}/servers/core/tools`, {
    token: key,
    body: { tools: [mcpTool("ask_user", "Ask the user a question", {}, { defer: "never" })], defer_tools: "never" },
  });
  const syn = await call("PUT", `/v1/tenants/${tenant}/synonyms`, {
    token: key,
    body: { synonyms: { pr: ["pull request"], doc: ["file"] } },
  });
  expect(syn.status, syn.text).toBe(200);
  const searchKey = await createKey(tenant, ["search"]);
  const revoked = await createKey(tenant, ["write"]);
  expect((await call("DELETE", `/v1/tenants/${tenant}/keys/${revoked.split("_")[2]}`, { token: key })).status).toBe(
    204,
  );
  // Learning: a session searched "open a PR" and resolved the merge tool.
  const session = await newSession(tenant, key, { budget_cap: 10 });
  await sessionSearch(tenant, key, session, { query: "open a PR" });
  await sessionSearch(tenant, key, session, { tool_id: "github::merge_pull_request" });
  expect((await resolve(tenant, key, session, "github::merge_pull_request")).status).toBe(200);
  return { tenant, key, searchKey, revoked };
}

/** The backup of a tenant, as text. */
async function backupOf(tenant: string, token: string): Promise<string> {
  const r = await call("GET", `/v1/tenants/${tenant}/backup`, { token });
  expect(r.status, r.text.slice(0, 300)).toBe(200);
  expect(r.headers.get("content-type")).toContain("application/x-ndjson");
  return r.text;
}

function restore(tenant: string, body: string | Uint8Array, token = OPERATOR) {
  return send({
    method: "POST",
    path: `/v1/tenants/${tenant}/restore`,
    token,
    contentType: "application/x-ndjson",
    body,
  });
}

/** A backup's lines with `edit` applied to the ones after the header, the header's checksum (and counts) made right. */
function rewritten(text: string, edit: (lines: string[]) => string[]): string {
  const [first, ...rest] = text.trimEnd().split("\n");
  const lines = edit(rest);
  const checksum = new BackupChecksum();
  for (const l of lines) checksum.add(l);
  const header = JSON.parse(first!);
  header.checksum = checksum.digest();
  return `${[JSON.stringify(header), ...lines].join("\n")}\n`;
}

/** Everything a client can read about a tenant's catalog and configuration. */
async function everything(tenant: string, token: string) {
  const get = async (path: string) => (await call("GET", `/v1/tenants/${tenant}${path}`, { token })).body;
  const tools = [];
  for (const t of (await get("/tools?limit=500")).tools as { tool_id: string }[])
    for (const format of ["mcp", "anthropic", "openai", "openai-responses"])
      tools.push(await get(`/tools/${t.tool_id}?format=${format}`));
  const catalog = await get("/catalog");
  const answers = [];
  for (const query of QUERIES)
    answers.push((await search(tenant, token, { query, threshold: 0, max_results: 9, explain: true })).body);
  return {
    tools,
    servers: catalog.servers,
    counts: [catalog.tools, catalog.always_loaded, catalog.deferred, catalog.tokens],
    deferred: await get("/catalog/deferred"),
    settings: await get("/settings"),
    synonyms: await get("/synonyms"),
    keys: await get("/keys"),
    learned: await get("/learned"),
    answers,
  };
}

describe("backup and restore: the issue's check", () => {
  it("restored under another tenant id: the same catalog, answers, settings, keys, learned terms", async () => {
    const source = await richTenant();
    const before = await everything(source.tenant, OPERATOR);
    expect(before.learned.tools).toHaveLength(1);
    const text = await backupOf(source.tenant, source.key);
    const lines = text
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({
      type: "header",
      format: "tool-search-backup",
      version: 1,
      tenant: source.tenant,
      counts: { lines: lines.length - 1, settings: 1, synonyms: 1, keys: 3, learned: 1, servers: 5, tools: 7 },
    });
    expect(lines[0].checksum).toMatch(/^sha256:[0-9a-f]{64}$/);
    // Keys travel as hashes: no secret is in the backup.
    for (const k of [source.key, source.searchKey, source.revoked]) expect(text).not.toContain(k.split("_")[3]);

    const copy = uniqueTenant("copy");
    const restored = await restore(copy, text);
    expect(restored.status, restored.text).toBe(201);
    expect(restored.body).toMatchObject({
      tenant: copy,
      created: true,
      restored: { tools: 7, servers: 5, keys: 3, learned: 1 },
      from: { tenant: source.tenant, revision: lines[0].revision },
    });
    expect(restored.body.revision).toBeGreaterThanOrEqual(lines[0].revision);
    expect(restored.body.keys).toContain(`tsk_${copy}_<key id>_<secret>`);

    expect(await everything(copy, OPERATOR)).toEqual(before);
    // The restore asked for an index snapshot: the alarm writes it, and GET .../catalog reports it.
    expect(await runDurableObjectAlarm(stubOf(copy))).toBe(true);
    const snapshot = (await call("GET", `/v1/tenants/${copy}/catalog`, { token: OPERATOR })).body.snapshot;
    expect(snapshot).toMatchObject({ revision: restored.body.revision, current: true });
    expect(snapshot.bytes).toBeGreaterThan(1000);
    // The same after the object forgets its memory (index rebuilt from the restored rows, then its snapshot).
    await evictDurableObject(stubOf(copy));
    expect(await everything(copy, OPERATOR)).toEqual(before);

    // Keys: the same key id and secret work under the new tenant id; the revoked one stays revoked.
    const moved = rekey(source.searchKey, copy)!;
    expect((await search(copy, moved, { query: "list issues" })).body.results[0].tool_id).toBe("github::list_issues");
    expect((await call("GET", `/v1/tenants/${copy}/keys`, { token: moved })).status).toBe(403); // its scopes too
    expect((await call("GET", `/v1/tenants/${copy}/keys`, { token: rekey(source.key, copy)! })).status).toBe(200);
    expect((await call("GET", `/v1/tenants/${copy}/catalog`, { token: rekey(source.revoked, copy)! })).status).toBe(
      401,
    );
    // The old spelling names the old tenant: refused on the copy's routes, still the source's key.
    expect((await search(copy, source.searchKey, { query: "x" })).status).toBe(403);
    expect((await search(source.tenant, source.searchKey, { query: "list issues" })).status).toBe(200);

    // A restore is a catalog revision of its own, audited, listed, and in the operator's trail.
    const revisions = (await call("GET", `/v1/tenants/${copy}/catalog/revisions`, { token: OPERATOR })).body;
    expect(revisions.revisions[0]).toMatchObject({ action: "catalog.restore", added: 7, actor: "operator" });
    const audit = (await call("GET", `/v1/tenants/${copy}/audit`, { token: OPERATOR })).body.entries;
    expect(audit.map((e: { action: string }) => e.action)).toEqual(["catalog.restore", "tenant.create"]);
    const tenants = (await call("GET", "/v1/tenants?limit=500", { token: OPERATOR })).body.tenants;
    expect(tenants.map((t: { id: string }) => t.id)).toContain(copy);
    const trail = (await call("GET", "/v1/operator/audit?limit=20", { token: OPERATOR })).body.entries;
    expect(trail.find((e: { tenant: string }) => e.tenant === copy)).toMatchObject({
      action: "tenant.restore",
      details: { from: { tenant: source.tenant } },
    });
    // A backup of the copy is the same backup but for the tenant, the time and the catalog's revision.
    const again = await backupOf(copy, OPERATOR);
    expect(again.split("\n").slice(1)).toEqual(text.split("\n").slice(1));
    // Undoable like any catalog write: rolling back to before the restore empties the catalog.
    const back = await call("POST", `/v1/tenants/${copy}/catalog/rollback`, { token: OPERATOR, body: { revision: 0 } });
    expect(back.body).toMatchObject({ removed: 7 });
  });

  it("a truncated backup is refused with what was wrong, and nothing is written", async () => {
    const source = await richTenant();
    const text = await backupOf(source.tenant, OPERATOR);
    const copy = uniqueTenant("cut");
    const before = await stateFingerprint(copy);
    const lines = text.trimEnd().split("\n");
    // Cut after a whole line, and in the middle of one.
    for (const cut of [lines.slice(0, -2).join("\n"), text.slice(0, Math.floor(text.length * 0.7))]) {
      const r = await restore(copy, cut);
      expect(r.status, r.text).toBe(400);
      expect(r.body.error).toBe("invalid-request");
      expect(r.body.message).toMatch(/truncated|not JSON/);
      expect(r.body.message).toContain("Nothing was restored");
      expect(await stateFingerprint(copy)).toBe(before);
      expect((await call("GET", `/v1/tenants/${copy}/catalog`, { token: OPERATOR })).status).toBe(404);
    }
    const tenants = (await call("GET", "/v1/tenants?limit=500", { token: OPERATOR })).body.tenants;
    expect(tenants.map((t: { id: string }) => t.id)).not.toContain(copy);
    // The whole backup then restores.
    expect((await restore(copy, text)).status).toBe(201);
  });
});

describe("restore refuses", () => {
  it("corrupt backups, naming the line and what is wrong, and writes nothing", async () => {
    const source = await richTenant();
    const text = await backupOf(source.tenant, OPERATOR);
    const lines = text.trimEnd().split("\n");
    const toolAt = lines.findIndex((l) => l.includes('"id":"github::list_issues"'));
    const edited = lines[toolAt]!.replace("List issues in a GitHub repository", "Delete every repository");
    const cases: [string, string | Uint8Array, RegExp][] = [
      ["a changed line", text.replace('"default_max_results":7', '"default_max_results":8'), /checksum/],
      [
        "a changed tool",
        [...lines.slice(0, toolAt), edited, ...lines.slice(toolAt + 1)].join("\n"),
        new RegExp(`Line ${toolAt + 1}: tool 'github::list_issues': its hash does not match`),
      ],
      [
        "a changed line under a recomputed checksum",
        rewritten(text, (ls) => ls.map((l) => (l === lines[toolAt] ? edited : l))),
        new RegExp(`Line ${toolAt + 1}: tool 'github::list_issues': its hash does not match`),
      ],
      ["a lost line", rewritten(text, (ls) => ls.filter((l) => l !== lines[toolAt])), /truncated|holds/],
      ["an added line", `${text}${lines[toolAt]}\n`, /extra/],
      ["a line twice", rewritten(text, (ls) => [...ls, lines[toolAt]!]), /extra|twice/],
      ["a line that is not JSON", rewritten(text, (ls) => ls.map((l, i) => (i === 3 ? l.slice(0, -1) : l))), /Line 5/],
      ["an empty body", "", /empty/],
      ["a header that is not one", `{"type":"header"}\n${lines.slice(1).join("\n")}\n`, /Line 1 is not a backup/],
      ["JSON that is no backup", '{"tools":[]}\n', /Line 1/],
      [
        "a tool of another deployment's limits",
        rewritten(text, (ls) =>
          ls.map((l) => (l === lines[toolAt] ? l.replace('"title":"List issues"', `"title":"${"x".repeat(300)}"`) : l)),
        ),
        /max_title_chars/,
      ],
      [
        "a learned line for a tool the backup lacks",
        rewritten(text, (ls) => ls.map((l) => l.replace('"tool_id":"github::merge_pull_request"', '"tool_id":"x::y"'))),
        /x::y/,
      ],
      [
        "bytes that are not UTF-8",
        new Uint8Array([...new TextEncoder().encode(`${lines[0]}\n`), 0xff, 0xfe, 0x0a]),
        /not valid UTF-8/,
      ],
    ];
    for (const [what, body, message] of cases) {
      const copy = uniqueTenant("bad");
      const before = await stateFingerprint(copy);
      const r = await restore(copy, body);
      expect(r.status, `${what}: ${r.text}`).toBe(400);
      expect(r.body.error, what).toBe("invalid-request");
      expect(r.body.message, what).toMatch(message);
      expect(r.body.message, what).toContain("Nothing was restored");
      expect(await stateFingerprint(copy), what).toBe(before);
      expect((await call("GET", `/v1/tenants/${copy}/catalog`, { token: OPERATOR })).status, what).toBe(404);
    }
  });

  it("a tenant that holds a catalog (409), callers that are not the operator (403), and changes nothing", async () => {
    const source = await richTenant();
    const text = await backupOf(source.tenant, OPERATOR);
    const before = await stateFingerprint(source.tenant);
    const busy = await restore(source.tenant, text);
    expect(busy.status, busy.text).toBe(409);
    expect(busy.body.message).toContain("not empty");
    expect((await restore(source.tenant, text, source.key)).status).toBe(403);
    expect(await stateFingerprint(source.tenant)).toBe(before);
    // An admin key may take a backup; a search key may not.
    expect((await call("GET", `/v1/tenants/${source.tenant}/backup`, { token: source.searchKey })).status).toBe(403);
    expect((await call("GET", `/v1/tenants/${uniqueTenant("none")}/backup`, { token: OPERATOR })).status).toBe(404);
  });

  it("into an existing empty tenant (200), keeping its keys; into a deleted one with its old keys", async () => {
    const source = await richTenant();
    const text = await backupOf(source.tenant, OPERATOR);
    const empty = await createTenant(uniqueTenant("empty"));
    const own = await createKey(empty, ["search"]);
    const r = await restore(empty, text);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ created: false, restored: { tools: 7 } });
    expect((await search(empty, own, { query: "list issues" })).body.results[0].tool_id).toBe("github::list_issues");
    expect((await search(empty, rekey(source.searchKey, empty)!, { query: "tickets" })).status).toBe(200);

    // Disaster recovery: the tenant deleted, then restored under its own id: its keys work unchanged.
    expect((await call("DELETE", `/v1/tenants/${source.tenant}`, { token: OPERATOR })).status).toBe(204);
    expect((await search(source.tenant, source.searchKey, { query: "tickets" })).status).toBe(401);
    const back = await restore(source.tenant, text);
    expect(back.status, back.text).toBe(201);
    expect(back.body.keys).toContain("work as before");
    const hit = await search(source.tenant, source.searchKey, { query: "tickets" });
    expect(hit.body.results[0].tool_id).toBe("github::list_issues");
  });

  it("a line over max_body_bytes is refused as soon as it is (413); one of exactly that length is read", async () => {
    const { limits } = loadConfig(env);
    const source = await richTenant();
    const header = (await backupOf(source.tenant, OPERATOR)).split("\n")[0]!;
    const line = (bytes: number) => {
      const head = '{"type":"settings","settings":{},"pad":"';
      return `${head}${"a".repeat(bytes - head.length - 2)}"}`;
    };
    const copy = uniqueTenant("long");
    const before = await stateFingerprint(copy);
    const over = await restore(copy, `${header}\n${line(limits.max_body_bytes + 1)}\n`);
    expect(over.status, over.text.slice(0, 300)).toBe(413);
    expect(over.body).toMatchObject({ error: "payload-too-large", limit: "max_body_bytes", line: 2 });
    const exact = await restore(copy, `${header}\n${line(limits.max_body_bytes)}\n`);
    expect(exact.status, exact.text.slice(0, 300)).toBe(400);
    expect(exact.body.message).toMatch(/Line 2 \(settings\): .*pad/);
    expect(await stateFingerprint(copy)).toBe(before);
  }, 60_000);

  it("a backup reads one revision: writes made while it is open do not show in it", async () => {
    const { tenant, key } = await tenantWithKey();
    await upsert(tenant, key, [{ server: "s", ...mcpTool("one", "First tool") }]);
    const stub = stubOf(tenant) as unknown as TenantObject;
    const operator = { kind: "operator" } as const;
    const opened = await stub.backupBegin(operator);
    if (!opened.ok) throw new Error(opened.error.message);
    await upsert(tenant, key, [
      { server: "s", ...mcpTool("one", "First tool, changed") },
      { server: "t", ...mcpTool("two", "Second tool") },
    ]);
    const page = await stub.backupPage(operator, opened.value.id, null);
    if (!page.ok) throw new Error(page.error.message);
    const kinds = page.value.lines.map((l) => JSON.parse(l)).filter((l) => l.type === "tool" || l.type === "server");
    expect(kinds).toMatchObject([
      { type: "server", name: "s" },
      { type: "tool", id: "s::one", description: "First tool" },
    ]);
    expect(page.value.next).toBeNull();
    await stub.backupEnd(operator, opened.value.id);
    await runInDurableObject(stubOf(tenant), (_o, state) => {
      expect(state.storage.sql.exec(`SELECT COUNT(*) AS n FROM backup_lines`).one().n).toBe(0);
    });
  });
});
