/**
 * Suggestions (issue 11) through the API, against real Durable Objects: a turn's user message loads the deferred tools
 * that clearly fit it, at once, in the turn's own step, without spending its search budget; never tools already active
 * or always loaded; nothing for chit-chat or a capability the catalog lacks; suggest_max and suggest_threshold per
 * tenant and per request; a retried turn suggests nothing more; refusals change nothing.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SUGGEST_MAX, SUGGEST_THRESHOLD } from "../../src/search/suggest.ts";
import { call, mcpTool } from "../helpers.ts";
import {
  CATALOG,
  createSession,
  newSession,
  resolve,
  sessionPath,
  sessionSearch,
  tenantStub,
  tenantWithCatalog,
  toolList,
} from "./session-helpers.ts";

const MERGE = { tool_id: "github::merge_pull_request", model_name: "github__merge_pull_request" };

function turn(tenant: string, key: string, id: string, body: Record<string, unknown>) {
  return call("POST", sessionPath(tenant, id, "/turns"), { token: key, body });
}

const ids = (suggested: { tool_id: string }[]) => suggested.map((s) => s.tool_id);

/** The session's rows as storage holds them: its state and its activations, to show a refusal wrote nothing. */
async function stored(tenant: string, id: string) {
  return runInDurableObject(tenantStub(tenant), (_o, state) => ({
    session: state.storage.sql.exec(`SELECT * FROM sessions WHERE id = ?`, id).toArray(),
    activations: state.storage.sql
      .exec(`SELECT * FROM session_activations WHERE session_id = ? ORDER BY seq`, id)
      .toArray(),
  }));
}

describe("suggestions", () => {
  it("a turn's message activates the tools that fit it at once, appended, without spending the budget", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const id = await newSession(tenant, key);
    const prior = (await sessionSearch(tenant, key, id, { query: "read a file" })).body.activated as string[];
    expect(prior).toContain("fs::read_file");
    const before = (await toolList(tenant, key, id)).body;

    const r = await turn(tenant, key, id, { turn: 2, message: "Please merge pull request 42 before the release" });
    expect(r.status, r.text).toBe(200);
    expect(r.body.suggested).toEqual([{ ...MERGE, score: expect.any(Number), match: "terms" }]);
    expect(r.body.suggested[0].score).toBeGreaterThanOrEqual(SUGGEST_THRESHOLD);
    // Also in `activated`, after what was there; the turn's budget untouched.
    expect(r.body.activated).toEqual([...prior, MERGE.tool_id]);
    expect(r.body).toMatchObject({ turn: 2, budget: { used: 0, cap: 3, remaining: 3 } });

    // The next model request's tools: the same prefix, the suggestion appended (a provider's prompt cache still hits).
    const after = (await toolList(tenant, key, id)).body;
    expect(after.tools.slice(0, before.tools.length)).toEqual(before.tools);
    expect(after.entries.slice(before.entries.length)).toEqual([
      { name: MERGE.model_name, source: "activated", tool_id: MERGE.tool_id },
    ]);

    // Callable right after the turn, by the name the model sees.
    const resolved = await resolve(tenant, key, id, MERGE.model_name);
    expect(resolved.status, resolved.text).toBe(200);
    expect(resolved.body).toMatchObject({ name: MERGE.model_name, source: "activated", tool_id: MERGE.tool_id });

    // The whole budget is still there: three searches run, the fourth is refused.
    for (const query of ["weather", "email", "calendar"])
      expect((await sessionSearch(tenant, key, id, { query })).status).toBe(200);
    expect((await sessionSearch(tenant, key, id, { query: "issues" })).status).toBe(429);
    // GET shows the session, not a turn's answer.
    expect((await call("GET", sessionPath(tenant, id), { token: key })).body.suggested).toBeUndefined();
  });

  it("a create with the first message suggests as a turn does; without a message nothing is ranked", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const created = await createSession(tenant, key, { message: "What's the weather forecast for Paris tomorrow?" });
    expect(created.status, created.text).toBe(201);
    expect(ids(created.body.suggested)).toEqual(["weather::get_forecast"]);
    expect(created.body).toMatchObject({ turn: 1, activated: ["weather::get_forecast"], budget: { used: 0 } });
    expect((await resolve(tenant, key, created.body.session_id, "weather__get_forecast")).status).toBe(200);

    const plain = await createSession(tenant, key, {});
    expect(plain.status).toBe(201);
    expect(plain.body.suggested).toBeUndefined();
    const bare = await turn(tenant, key, plain.body.session_id, {});
    expect(bare.status).toBe(200);
    expect(bare.body.suggested).toBeUndefined();
    expect(bare.body.activated).toEqual([]);
  });

  it("never suggests a tool that is already active or always loaded", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const id = await newSession(tenant, key, { message: "merge pull request 42" });
    expect((await call("GET", sessionPath(tenant, id), { token: key })).body.activated).toEqual([MERGE.tool_id]);
    const again = await turn(tenant, key, id, { message: "now merge pull request 43 too" });
    expect(again.body.suggested).toEqual([]);
    expect(again.body.activated).toEqual([MERGE.tool_id]);
    // core::ask_user is always loaded (defer: never): the message fits it, and it is not suggested.
    const always = await turn(tenant, key, id, { message: "ask the user a question about it" });
    expect(always.body.always_loaded).toContain("core::ask_user");
    expect(always.body.suggested).toEqual([]);
    expect(always.body.activated).toEqual([MERGE.tool_id]);
  });

  it("chit-chat, questions no tool answers and capabilities the catalog lacks load nothing", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const id = await newSession(tenant, key, { budget_cap: 5 });
    const messages = [
      "thanks!",
      "ok",
      "ok great",
      "Thank you so much, that was helpful",
      "what is the capital of France",
      "hi there",
      "",
      "book a flight to Rome for next Friday",
      "open a zendesk ticket",
      "translate this paragraph into Japanese",
    ];
    for (const message of messages) {
      const r = await turn(tenant, key, id, { message });
      expect(r.status, r.text).toBe(200);
      expect(r.body.suggested, message).toEqual([]);
    }
    expect((await call("GET", sessionPath(tenant, id), { token: key })).body.activated).toEqual([]);
    // Even at threshold 0 a tool reached only through synonyms is not suggested: the message's own words must match.
    expect(
      (await call("PUT", `/v1/tenants/${tenant}/synonyms`, { token: key, body: { synonyms: { meteo: ["forecast"] } } }))
        .status,
    ).toBe(200);
    const found = await sessionSearch(tenant, key, id, { query: "meteo", threshold: 0 });
    expect(found.body.results.map((r: { match: string }) => r.match)).toEqual(["synonyms"]);
    const r = await turn(tenant, key, id, { message: "meteo in Paris", suggest: { threshold: 0 } });
    expect(r.body.suggested).toEqual([]);
  });

  it("suggest_max and suggest_threshold: tenant settings, overridden per request; 0 turns them off", async () => {
    const twins = [...CATALOG, { server: "disk", ...mcpTool("read_file", "Read the contents of a file") }];
    const { tenant, key } = await tenantWithCatalog(undefined, twins);
    const settings = await call("GET", `/v1/tenants/${tenant}/settings`, { token: key });
    expect(settings.body).toMatchObject({ suggest_max: SUGGEST_MAX, suggest_threshold: null });
    const message = "read the contents of the file notes.txt";

    // Two tools fit equally well: both are suggested, best first; suggest.max 1 keeps one.
    const both = await createSession(tenant, key, { message });
    expect(ids(both.body.suggested).sort()).toEqual(["disk::read_file", "fs::read_file"]);
    expect(both.body.activated).toEqual(ids(both.body.suggested));
    const one = await createSession(tenant, key, { message, suggest: { max: 1 } });
    expect(one.body.suggested).toHaveLength(1);

    // suggest.max 0 on the request, then suggest_max 0 on the tenant: nothing, and nothing activated.
    const off = await createSession(tenant, key, { message, suggest: { max: 0 } });
    expect(off.body).toMatchObject({ suggested: [], activated: [] });
    const patched = await call("PATCH", `/v1/tenants/${tenant}/settings`, { token: key, body: { suggest_max: 0 } });
    expect(patched.body.suggest_max).toBe(0);
    const id = await newSession(tenant, key);
    const none = await turn(tenant, key, id, { message });
    expect(none.body).toMatchObject({ suggested: [], activated: [] });
    // A request may still ask for suggestions when the tenant turned them off.
    const asked = await turn(tenant, key, id, { message, suggest: { max: 1 } });
    expect(asked.body.suggested).toHaveLength(1);

    // A threshold above every score suggests nothing; the request's own threshold wins over the tenant's.
    await call("PATCH", `/v1/tenants/${tenant}/settings`, {
      token: key,
      body: { suggest_max: 3, suggest_threshold: 50 },
    });
    const strict = await createSession(tenant, key, { message });
    expect(strict.body.suggested).toEqual([]);
    const loose = await createSession(tenant, key, { message, suggest: { threshold: 2 } });
    expect(loose.body.suggested).toHaveLength(2);
    const reset = await call("PATCH", `/v1/tenants/${tenant}/settings`, {
      token: key,
      body: { suggest_threshold: null },
    });
    expect(reset.body.suggest_threshold).toBeNull();
    expect((await createSession(tenant, key, { message })).body.suggested).toHaveLength(2);
  });

  it("a message is ranked once per turn: a retried turn, or a retried create, suggests nothing more", async () => {
    const { tenant, key } = await tenantWithCatalog();
    // An explicit turn 1 on a new session (what an MCP client sends first) still ranks its message.
    const id = await newSession(tenant, key, { session_id: "retry-me" });
    const first = await turn(tenant, key, id, { turn: 1, message: "send an email to the team" });
    expect(ids(first.body.suggested)).toEqual(["mail::send_email"]);
    const retried = await turn(tenant, key, id, { turn: 1, message: "send an email to the team" });
    expect(retried.body).toMatchObject({ turn: 1, suggested: [], activated: ["mail::send_email"] });
    const second = await turn(tenant, key, id, { turn: 2, message: "merge pull request 7" });
    expect(second.body).toMatchObject({ turn: 2, suggested: [{ tool_id: MERGE.tool_id }] });
    expect((await turn(tenant, key, id, { turn: 2, message: "merge pull request 7" })).body.suggested).toEqual([]);

    const create = { session_id: "created-twice", message: "weather forecast for Oslo" };
    expect(ids((await createSession(tenant, key, create)).body.suggested)).toEqual(["weather::get_forecast"]);
    const again = await createSession(tenant, key, create);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ created: false, suggested: [], activated: ["weather::get_forecast"] });
  });

  it("refuses invalid messages and suggest settings with 400, and changes nothing", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const id = await newSession(tenant, key, { session_id: "strict" });
    const before = await stored(tenant, id);
    const bad = [
      { message: 42 },
      { message: ["merge"] },
      { message: "merge pull request", suggest: { max: -1 } },
      { message: "merge pull request", suggest: { max: 1.5 } },
      { message: "merge pull request", suggest: { threshold: -1 } },
      { message: "merge pull request", suggest: { threshold: 101 } },
      { message: "merge pull request", suggest: { top: 3 } },
      { message: "merge pull request", suggest: 3 },
    ];
    for (const body of bad) {
      const r = await turn(tenant, key, id, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error).toBe("invalid-request");
      const c = await createSession(tenant, key, body);
      expect(c.status, JSON.stringify(body)).toBe(400);
    }
    expect(await stored(tenant, id)).toEqual(before);
    const sessions = await call("GET", sessionPath(tenant, "strict"), { token: key });
    expect(sessions.body).toMatchObject({ turn: 1, activated: [] });
    for (const patch of [
      { suggest_max: -1 },
      { suggest_max: 2.5 },
      { suggest_threshold: -0.5 },
      { suggest_max: "3" },
    ]) {
      const r = await call("PATCH", `/v1/tenants/${tenant}/settings`, { token: key, body: patch });
      expect(r.status, JSON.stringify(patch)).toBe(400);
    }
    expect((await call("GET", `/v1/tenants/${tenant}/settings`, { token: key })).body).toMatchObject({
      suggest_max: SUGGEST_MAX,
      suggest_threshold: null,
    });
  });

  it("a session of another tenant is not found, and its catalog is never suggested", async () => {
    const a = await tenantWithCatalog();
    const b = await tenantWithCatalog(undefined, [{ server: "x", ...mcpTool("noop", "Does nothing at all") }]);
    const id = await newSession(a.tenant, a.key);
    expect((await turn(b.tenant, b.key, id, { message: "merge pull request 1" })).status).toBe(404);
    const other = await createSession(b.tenant, b.key, { message: "merge pull request 1" });
    expect(other.body.suggested).toEqual([]);
    expect((await call("GET", sessionPath(a.tenant, id), { token: a.key })).body.activated).toEqual([]);
  });
});
