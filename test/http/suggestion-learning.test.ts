/**
 * Suggestions and learning from use (issues 10 and 11), against real Durable Objects: a suggested tool the session
 * resolves in the turn of its message learns the message's words, through the same credit as a search's; a suggested
 * tool never resolved in its turn learns nothing; a tool a search found learns the search's words, not the message's.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { searchTerms } from "../../src/search/learning.ts";
import { call } from "../helpers.ts";
import {
  createSession,
  newSession,
  resolve,
  sessionPath,
  sessionSearch,
  tenantStub,
  tenantWithCatalog,
} from "./session-helpers.ts";

const MERGE = "github::merge_pull_request";
const MESSAGE = "Please merge pull request 42 before the release";

function turn(tenant: string, key: string, id: string, body: Record<string, unknown>) {
  return call("POST", sessionPath(tenant, id, "/turns"), { token: key, body });
}

async function learned(tenant: string, key: string, toolId: string) {
  const r = await call("GET", `/v1/tenants/${tenant}/learned?tool_id=${encodeURIComponent(toolId)}`, { token: key });
  expect(r.status, r.text).toBe(200);
  return r.body as { credits: number; terms: { term: string; weight: number }[] };
}

const terms = (tool: { terms: { term: string }[] }) => tool.terms.map((t) => t.term).sort();

/** What the session left for crediting in storage: its recorded terms by kind. */
async function records(tenant: string, id: string) {
  return runInDurableObject(tenantStub(tenant), (_o, state) =>
    state.storage.sql
      .exec<{ turn: number; kind: string }>(
        `SELECT turn, kind FROM session_terms WHERE session_id = ? ORDER BY seq`,
        id,
      )
      .toArray()
      .map((r) => ({ ...r })),
  );
}

describe("learning from suggestions", () => {
  it("a suggested tool resolved in its turn learns the message's words", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const id = await newSession(tenant, key);
    const r = await turn(tenant, key, id, { message: MESSAGE });
    expect(r.body.suggested.map((s: { tool_id: string }) => s.tool_id)).toEqual([MERGE]);
    expect(await records(tenant, id)).toEqual([{ turn: 2, kind: "message" }]);
    expect((await learned(tenant, key, MERGE)).credits).toBe(0);

    expect((await resolve(tenant, key, id, "github__merge_pull_request")).status).toBe(200);
    const tool = await learned(tenant, key, MERGE);
    expect(tool.credits).toBe(1);
    expect(terms(tool)).toEqual([...searchTerms(MESSAGE)].sort());
    for (const t of tool.terms) expect(t.weight).toBe(1);
    // Once per (session, turn, tool), as for searches.
    expect((await resolve(tenant, key, id, MERGE)).status).toBe(200);
    expect((await learned(tenant, key, MERGE)).credits).toBe(1);
  });

  it("the first message of a create counts the same way", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const created = await createSession(tenant, key, { message: MESSAGE });
    expect(created.body.activated).toEqual([MERGE]);
    expect((await resolve(tenant, key, created.body.session_id, MERGE)).status).toBe(200);
    expect(terms(await learned(tenant, key, MERGE))).toEqual([...searchTerms(MESSAGE)].sort());
  });

  it("a suggested tool never resolved in its turn counts as nothing, even when resolved in a later turn", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const id = await newSession(tenant, key);
    expect((await turn(tenant, key, id, { message: MESSAGE })).body.activated).toEqual([MERGE]);
    // The turn ends without a resolve: its message leaves nothing behind.
    expect((await turn(tenant, key, id, {})).body.turn).toBe(3);
    expect(await records(tenant, id)).toEqual([]);
    expect((await resolve(tenant, key, id, MERGE)).status).toBe(200);
    expect(await learned(tenant, key, MERGE)).toMatchObject({ credits: 0, terms: [] });
    const page = await call("GET", `/v1/tenants/${tenant}/learned`, { token: key });
    expect(page.body.tools).toEqual([]);
  });

  it("a tool found by a search in the message's turn learns the search's words only", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const id = await newSession(tenant, key);
    expect((await turn(tenant, key, id, { message: MESSAGE })).body.activated).toEqual([MERGE]);
    const found = await sessionSearch(tenant, key, id, { query: "weather forecast" });
    expect(found.body.activated).toEqual(["weather::get_forecast"]);
    expect((await resolve(tenant, key, id, "weather__get_forecast")).status).toBe(200);
    expect(terms(await learned(tenant, key, "weather::get_forecast"))).toEqual(
      [...searchTerms("weather forecast")].sort(),
    );
    // The suggested tool, resolved in the same turn, learns the message's words and the turn's search's.
    expect((await resolve(tenant, key, id, MERGE)).status).toBe(200);
    expect(terms(await learned(tenant, key, MERGE))).toEqual(
      [...new Set([...searchTerms(MESSAGE), ...searchTerms("weather forecast")])].sort(),
    );
  });

  it("a message that suggested nothing records nothing; learn_from_use off records and credits nothing", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const id = await newSession(tenant, key);
    expect((await turn(tenant, key, id, { message: "thanks, that was great" })).body.suggested).toEqual([]);
    expect(await records(tenant, id)).toEqual([]);

    const off = await tenantWithCatalog({ learn_from_use: false });
    const quiet = await newSession(off.tenant, off.key);
    expect((await turn(off.tenant, off.key, quiet, { message: MESSAGE })).body.suggested).toHaveLength(1);
    expect(await records(off.tenant, quiet)).toEqual([]);
    expect((await resolve(off.tenant, off.key, quiet, MERGE)).status).toBe(200);
    expect((await learned(off.tenant, off.key, MERGE)).credits).toBe(0);
  });
});
