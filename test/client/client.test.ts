/**
 * The typed client against the real Worker (inside the Workers runtime, through the Worker's own
 * fetch handler): every route it wraps, errors as ToolSearchError, retries of overload and failures.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  ToolSearchClient,
  ToolSearchError,
  type ClientOptions,
  type RetryEvent,
  type Suggestion,
  type ToolInput,
} from "../../src/client/index.ts";
import { OPERATOR, uniqueTenant } from "../helpers.ts";

const worker = (request: Request) => exports.default.fetch(request);

function client(token: string, options: Partial<ClientOptions> = {}): ToolSearchClient {
  return new ToolSearchClient({ url: "http://tool-search.test", token, fetch: worker, ...options });
}

const weather: ToolInput = {
  name: "get_weather",
  description: "Current weather for a city",
  inputSchema: { type: "object", properties: { city: { type: "string", description: "City name" } } },
};

async function freshTenant() {
  const operator = client(OPERATOR);
  const id = uniqueTenant("client");
  const tenant = await operator.createTenant({ id, settings: { default_max_results: 4 } });
  const created = await operator.tenant(id).keys.create({ scopes: ["search", "write", "admin"], label: "client test" });
  return { id, tenant, created, api: client(created.key).tenant(id) };
}

describe("ToolSearchClient", () => {
  it("creates tenants and keys, reads and changes settings", async () => {
    const { id, tenant, created, api } = await freshTenant();
    expect(tenant).toMatchObject({ id, settings: { default_max_results: 4 } });
    expect(created.key).toMatch(new RegExp(`^tsk_${id}_`));
    expect(await api.settings.get()).toMatchObject({ default_max_results: 4, search_budget: 3 });
    expect(await api.settings.patch({ matching_threshold: 2 })).toMatchObject({
      matching_threshold: 2,
      default_max_results: 4,
    });

    const second = await api.keys.create({ scopes: ["search"] });
    expect((await api.keys.list()).map((k) => k.id)).toEqual([created.id, second.id]);
    await client(second.key).tenant(id).sessions.create({});
    expect(await api.keys.purgeSessions(second.id)).toEqual({ key_id: second.id, ended: 1 });
    await api.keys.revoke(second.id);
    expect((await api.keys.list()).find((k) => k.id === second.id)?.revoked_at).not.toBeNull();
    const revoked = await client(second.key)
      .tenant(id)
      .catalog()
      .catch((e: unknown) => e);
    expect(revoked).toBeInstanceOf(ToolSearchError);
    expect((revoked as ToolSearchError).status).toBe(401);
  });

  it("uploads (JSON, NDJSON, replace), lists, reads, searches and deletes tools", async () => {
    const { api } = await freshTenant();
    expect(await api.tools.upsert([{ server: "weather", ...weather }])).toMatchObject({ added: 1, revision: 1 });
    expect(await api.tools.upsert([{ server: "weather", ...weather }])).toMatchObject({
      added: 0,
      unchanged: 1,
      revision: 1,
    });
    const fs = ["read_file", "write_file", "list_directory"].map((name) => ({
      server: "fs",
      name,
      description: `${name.replace("_", " ")} on disk`,
      inputSchema: { type: "object" },
    }));
    expect(await api.tools.upsertNdjson(fs)).toMatchObject({ added: 3 });
    expect(
      await api.servers.replaceTools("fs", {
        tools: fs.slice(0, 2).map(({ server: _, ...t }) => t),
        defer_tools: "never",
      }),
    ).toMatchObject({
      added: 0,
      unchanged: 2,
      removed: 1,
    });

    const page = await api.tools.list({ limit: 2 });
    expect(page.tools.map((t) => t.tool_id)).toEqual(["fs::read_file", "fs::write_file"]);
    expect(page.next_cursor).toEqual(expect.any(String));
    const all: string[] = [];
    for await (const tool of api.tools.all({ limit: 1 })) all.push(tool.tool_id);
    expect(all).toEqual(["fs::read_file", "fs::write_file", "weather::get_weather"]);

    const detail = await api.tools.get("weather::get_weather", { format: "anthropic" });
    expect(detail.definition).toEqual({
      name: "weather__get_weather",
      description: weather.description,
      input_schema: (weather as { inputSchema: unknown }).inputSchema,
    });

    const catalog = await api.catalog();
    expect(catalog.servers).toEqual([
      expect.objectContaining({ name: "fs", defer_tools: "never", tools: 2, always_loaded: 2 }),
      expect.objectContaining({ name: "weather", defer_tools: "auto", tools: 1, always_loaded: 0 }),
    ]);
    // Per server, token figures add up to the catalog's.
    const sum = (key: "definitions" | "always_loaded") => catalog.servers.reduce((n, s) => n + s.tokens[key], 0);
    expect(sum("definitions")).toBe(catalog.tokens.catalog);
    expect(sum("always_loaded")).toBe(catalog.tokens.always_loaded);

    const found = await api.search({ query: "weather in a city", format: "openai" });
    expect(found.results[0]).toMatchObject({ tool_id: "weather::get_weather", definition: { type: "function" } });
    expect((await api.search({ tool_id: "fs::read_file" })).results[0]?.match).toBe("tool-id");

    expect(await api.tools.delete("fs::write_file")).toMatchObject({ removed: 1 });
    expect(await api.servers.delete("weather")).toMatchObject({ removed: 1 });
    expect((await api.catalog()).tools).toBe(1);
  });

  it(
    "runs an agent session: search activates, the tool list and resolve follow, the spent " +
      "budget is a 429 not retried",
    async () => {
      const { id, created } = await freshTenant();
      const requests: string[] = [];
      const counting = (r: Request) => {
        requests.push(`${r.method} ${new URL(r.url).pathname}`);
        return worker(r);
      };
      const api = client(created.key, { fetch: counting, retry: { retries: 3, baseDelayMs: 1 } }).tenant(id);
      await api.servers.replaceTools("fs", {
        tools: [{ name: "read_file", description: "Read a file", inputSchema: { type: "object" } }],
        defer_tools: "never",
      });
      await api.tools.upsert([{ server: "weather", ...weather }]);

      const created_ = await api.sessions.create({ session_id: "chat-1", budget_cap: 1 });
      expect(created_).toMatchObject({
        session_id: "chat-1",
        created: true,
        turn: 1,
        budget: { cap: 1, used: 0 },
        always_loaded: ["fs::read_file"],
      });
      const session = api.session("chat-1");

      const inactive = (await session
        .resolve({ name: "weather__get_weather" })
        .catch((e: unknown) => e)) as ToolSearchError;
      expect(inactive.code).toBe("tool-not-active");
      expect(inactive.status).toBe(409);
      expect(inactive.body.message).toContain("tool_search(query='weather__get_weather')");

      const found = await session.search({ query: "weather for a city" });
      expect(found).toMatchObject({ activated: ["weather::get_weather"], budget: { used: 1, cap: 1, remaining: 0 } });
      expect((await session.resolve({ name: "weather__get_weather", format: "openai" })).definition).toMatchObject({
        type: "function",
      });
      const list = await session.toolList({ format: "anthropic" });
      expect(list.entries.map((e) => e.name)).toEqual(["tool_search", "fs__read_file", "weather__get_weather"]);

      requests.length = 0;
      const spent = (await session.search({ query: "read a file" }).catch((e: unknown) => e)) as ToolSearchError;
      expect(spent.status).toBe(429);
      expect(spent.body).toMatchObject({ error: "search-budget-exhausted", budgetCap: 1 });
      expect(requests).toEqual([`POST /v1/tenants/${id}/search`]);

      expect(await session.startTurn({ turn: 2 })).toMatchObject({
        turn: 2,
        budget: { used: 0 },
        activated: ["weather::get_weather"],
      });
      expect(
        await session.setTools([{ name: "ask_user", description: "Ask the user", inputSchema: { type: "object" } }]),
      ).toMatchObject({ tools: ["ask_user"], tools_version: 1 });
      expect((await session.get()).session_tools).toEqual(["ask_user"]);
      await session.end();
      await expect(session.get()).rejects.toMatchObject({ status: 404 });
    },
  );

  it("reads what tools learned from use, and forgets it", async () => {
    const { api } = await freshTenant();
    await api.tools.upsert([{ server: "weather", ...weather }]);
    await api.sessions.create({ session_id: "learner" });
    const session = api.session("learner");
    await session.search({ query: "forecast for Paris" });
    await session.search({ tool_id: "weather::get_weather" });
    await session.resolve({ name: "weather__get_weather" });
    const tool = await api.learned.tool("weather::get_weather");
    expect(tool).toMatchObject({ tool_id: "weather::get_weather", credits: 1 });
    expect(tool.terms.map((t) => t.term).sort()).toEqual(["forecast", "pari"]);
    expect((await api.learned.list({ limit: 5 })).tools).toMatchObject([{ tool_id: "weather::get_weather" }]);
    expect(await api.learned.forget()).toEqual({ tools: 1, terms: 2 });
    expect((await api.learned.list()).tools).toEqual([]);
  });

  it("passes the user's message on a create and a turn, typed, and reads the suggested tools", async () => {
    const { api } = await freshTenant();
    await api.tools.upsert([
      { server: "weather", ...weather },
      {
        server: "mail",
        name: "send_email",
        description: "Send an email message",
        inputSchema: { type: "object", properties: { to: { type: "string" } } },
      },
    ]);
    await api.settings.patch({ suggest_max: 2, suggest_threshold: 1 });
    const created = await api.sessions.create({
      session_id: "talker",
      message: "What is the current weather in Oslo?",
    });
    const first: Suggestion[] | undefined = created.suggested;
    expect(first).toEqual([
      {
        tool_id: "weather::get_weather",
        model_name: "weather__get_weather",
        score: expect.any(Number),
        match: "terms",
      },
    ]);
    const session = api.session("talker");
    const next = await session.startTurn({ turn: 2, message: "send an email to Kim", suggest: { max: 1 } });
    expect(next.suggested?.map((s) => s.tool_id)).toEqual(["mail::send_email"]);
    expect(next.activated).toEqual(["weather::get_weather", "mail::send_email"]);
    expect((await session.toolList()).entries.map((e) => e.name)).toEqual([
      "tool_search",
      "weather__get_weather",
      "mail__send_email",
    ]);
    expect((await session.startTurn({ turn: 3, message: "thanks!" })).suggested).toEqual([]);
    expect((await session.startTurn()).suggested).toBeUndefined();
    await expect(session.startTurn({ message: "x", suggest: { max: 11 } })).rejects.toMatchObject({
      status: 400,
      body: { error: "invalid-request", limit: "max_suggestions" },
    });
  });

  it("reads the deferred list and the plan, and converts tool results", async () => {
    const { api } = await freshTenant();
    await api.tools.upsert([{ server: "weather", ...weather }]);
    const deferred = await api.deferredList({ limit: 10 });
    expect(deferred.tools).toEqual([
      { tool_id: "weather::get_weather", line: "weather::get_weather: Current weather for a city", truncated: false },
    ]);
    const plan = await api.plan({ context_window: 200_000 });
    expect(plan).toMatchObject({ enabled: false, reason: "below-min-tools", tools: { total: 1, deferred: 1 } });
    expect(
      await api.convertToolResult({ content: [{ type: "text", text: "12 degrees" }], isError: false }),
    ).toMatchObject({ textResultForLlm: "12 degrees", resultType: "success" });
  });

  it("throws ToolSearchError carrying the service's {error, message} body and status", async () => {
    const { api } = await freshTenant();
    await api.tools.upsert([{ server: "gh", ...weather, name: "list_issues", description: "List issues" }]);
    const missing = await api.tools.get("gh::lst_issues").catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ToolSearchError);
    const err = missing as ToolSearchError;
    expect(err.status).toBe(404);
    expect(err.code).toBe("not-found");
    expect(err.body.suggestions).toEqual(["gh::list_issues"]);
    expect(err.message).toContain("gh::list_issues");

    const invalid = (await api.tools
      .upsert([{ server: "gh", name: "bad name", inputSchema: { type: "object" } }])
      .catch((e: unknown) => e)) as ToolSearchError;
    expect(invalid.status).toBe(400);
    expect(invalid.body).toMatchObject({ error: "invalid-request", items: [{ index: 0, name: "bad name" }] });

    const both = (await api
      .search({ query: "x", tool_id: "gh::list_issues" })
      .catch((e: unknown) => e)) as ToolSearchError;
    expect(both.code).toBe("invalid-request");
  });

  it("retries 5xx and rate limiting, honouring Retry-After, but not a client error", async () => {
    const { id, created } = await freshTenant();
    const script = [503, 429];
    const seen: number[] = [];
    const flaky = async (request: Request) => {
      const status = script.shift();
      seen.push(status ?? 200);
      if (status === 429)
        return Response.json(
          { error: "rate-limited", message: "slow down" },
          { status, headers: { "retry-after": "0" } },
        );
      if (status) return new Response("upstream unavailable", { status });
      return worker(request);
    };
    const retries: RetryEvent[] = [];
    const api = client(created.key, {
      fetch: flaky,
      retry: { retries: 3, baseDelayMs: 1 },
      onRetry: (e) => retries.push(e),
    }).tenant(id);
    expect(await api.catalog()).toMatchObject({ tools: 0 });
    expect(seen).toEqual([503, 429, 200]);
    expect(retries.map((r) => [r.attempt, r.reason, r.delayMs])).toEqual([
      [1, "503 internal", expect.any(Number)],
      [2, "429 rate-limited", 0],
    ]);

    const calls: string[] = [];
    const counting = client(created.key, {
      fetch: (r) => {
        calls.push(r.url);
        return worker(r);
      },
      retry: { retries: 3, baseDelayMs: 1 },
    }).tenant(id);
    await expect(counting.tools.get("x::y")).rejects.toThrow(ToolSearchError);
    expect(calls).toHaveLength(1);
  });

  it("gives up after the configured retries with the last error", async () => {
    const { id, created } = await freshTenant();
    let calls = 0;
    const down = async () => {
      calls++;
      return new Response("bad gateway", { status: 502 });
    };
    const err = (await client(created.key, { fetch: down, retry: { retries: 2, baseDelayMs: 1 } })
      .tenant(id)
      .catalog()
      .catch((e: unknown) => e)) as ToolSearchError;
    expect(calls).toBe(3);
    expect(err.status).toBe(502);
    expect(err.body).toEqual({ error: "internal", message: "HTTP 502: bad gateway" });
  });
});
