/** Search semantics over HTTP: exact ids, exact names, namespaced tails, ties, threshold, no-match, limits. */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/env.ts";
import { call, mcpTool, search, tenantWithKey, upsert } from "../helpers.ts";

const ids = (r: { body: { results: { tool_id: string }[] } }) => r.body.results.map((x) => x.tool_id);

describe("search", () => {
  let tenant: string;
  let key: string;
  beforeAll(async () => {
    ({ tenant, key } = await tenantWithKey());
    const up = await upsert(tenant, key, [
      {
        server: "fs",
        ...mcpTool("read_file", "Read the complete contents of a file", {
          path: { type: "string", description: "File path" },
        }),
      },
      { server: "fs", ...mcpTool("read_multiple_files", "Read several files at once") },
      { server: "fs", ...mcpTool("write_file", "Write a file, replacing its content") },
      {
        server: "weather",
        ...mcpTool("getWeather", "Current weather conditions for a city", {
          city: { type: "string", description: "City name" },
        }),
      },
      { server: "http", ...mcpTool("HTTPRequest", "Send a request to a URL and return the response") },
      { server: "gh", ...mcpTool("list-issues", "List the issues of a repository") },
      { server: "cal", ...mcpTool("calendar.events.list", "List calendar events in a time range") },
      { server: "plugin", ...mcpTool("mcp__plugin_x__ask_codex", "Ask the coding agent a question") },
      // Two tools that score exactly alike for "translate": the order must come from their ids.
      { server: "zz", ...mcpTool("translate", "Translate text between languages") },
      { server: "aa", ...mcpTool("translate", "Translate text between languages") },
      ...Array.from({ length: 20 }, (_, i) => ({
        server: "misc",
        ...mcpTool(`misc_${i}`, `Miscellaneous helper number ${i} for spreadsheets`),
      })),
    ]);
    expect(up.status, up.text).toBe(200);
  });

  it("finds a tool by its exact id, unranked, with score null", async () => {
    const r = await search(tenant, key, { tool_id: "fs::write_file" });
    expect(r.status).toBe(200);
    expect(r.body.results).toEqual([
      expect.objectContaining({
        tool_id: "fs::write_file",
        server: "fs",
        name: "write_file",
        score: null,
        match: "tool-id",
      }),
    ]);
  });

  it("answers an unknown tool_id with 404 and near-miss suggestions", async () => {
    const r = await search(tenant, key, { tool_id: "fs::read_fil" });
    expect(r.status).toBe(404);
    expect(r.body.error).toBe("not-found");
    expect(r.body.suggestions).toContain("fs::read_file");
    expect(r.body.message).toContain("Did you mean");
    const otherServer = await search(tenant, key, { tool_id: "files::getWeather" });
    expect(otherServer.body.suggestions[0]).toBe("weather::getWeather");
  });

  it("requires exactly one of tool_id and query", async () => {
    for (const body of [{}, { tool_id: "fs::read_file", query: "read" }]) {
      const r = await search(tenant, key, body);
      expect(r.status).toBe(400);
      expect(r.body.message).toContain("exactly one of tool_id");
    }
  });

  it("ranks with BM25 over split names and descriptions", async () => {
    expect(ids(await search(tenant, key, { query: "read file contents" }))[0]).toBe("fs::read_file");
    expect(ids(await search(tenant, key, { query: "weather in a city" }))[0]).toBe("weather::getWeather");
    expect(ids(await search(tenant, key, { query: "http request" }))[0]).toBe("http::HTTPRequest");
  });

  it.each([
    ["read_file", "fs::read_file", "exact-name"],
    ["READ_FILE", "fs::read_file", "exact-name"],
    ["getWeather", "weather::getWeather", "exact-name"],
    ["list-issues", "gh::list-issues", "exact-name"],
    ["calendar.events.list", "cal::calendar.events.list", "exact-name"],
    ["fs::write_file", "fs::write_file", "exact-name"],
    ["mcp__weather__getWeather", "weather::getWeather", "exact-name"],
    ["weather__getWeather", "weather::getWeather", "exact-name"],
    ["ask_codex", "plugin::mcp__plugin_x__ask_codex", "name-tail"],
    ["events.list", "cal::calendar.events.list", "name-tail"],
  ])("a query that is a tool's name (%s) returns that tool first", async (query, expected, match) => {
    const r = await search(tenant, key, { query });
    expect(r.body.results[0]).toMatchObject({ tool_id: expected, match });
  });

  it("breaks ties by tool_id, so the same query always gives the same order", async () => {
    const first = await search(tenant, key, { query: "translate text" });
    expect(ids(first).slice(0, 2)).toEqual(["aa::translate", "zz::translate"]);
    expect(first.body.results[0].score).toBe(first.body.results[1].score);
    for (let i = 0; i < 3; i++) expect(ids(await search(tenant, key, { query: "translate text" }))).toEqual(ids(first));
  });

  it("returns max_results results, 5 by default, and refuses out-of-range values", async () => {
    // Threshold 0: these words are in two thirds of the catalog, too common to pass the default.
    expect(ids(await search(tenant, key, { query: "miscellaneous helper spreadsheets", threshold: 0 }))).toHaveLength(
      5,
    );
    expect(
      ids(await search(tenant, key, { query: "miscellaneous helper spreadsheets", threshold: 0, max_results: 12 })),
    ).toHaveLength(12);
    expect((await search(tenant, key, { query: "x", max_results: 0 })).status).toBe(400);
    expect((await search(tenant, key, { query: "x", max_results: 51 })).status).toBe(400);
  });

  it("applies the threshold after ranking, and says plainly when nothing passes", async () => {
    const weak = await search(tenant, key, { query: "spreadsheets", threshold: 0 });
    expect(weak.body.results.length).toBeGreaterThan(0);
    const top = weak.body.results[0].score as number;
    const cut = await search(tenant, key, { query: "spreadsheets", threshold: top + 0.01 });
    expect(cut.status).toBe(200);
    expect(cut.body.results).toEqual([]);
    expect(cut.body.threshold).toBe(top + 0.01);
    expect(cut.body.message).toMatch(/^No tool matched "spreadsheets"/);
    // A near miss is named, with what to do about it.
    expect(cut.body.message).toContain(`Closest: ${weak.body.results[0].tool_id} (${top})`);
    expect(cut.body.message).toContain("more words about the task");

    const none = await search(tenant, key, { query: "zebra migration patterns" });
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject({ results: [], threshold: 1.5, activated: [] });
    expect(none.body.message).toContain("No tool matched");
    expect(none.body.message).toContain("unlikely to help");
  });

  it("keeps exact-name matches above any threshold", async () => {
    const r = await search(tenant, key, { query: "write_file", threshold: 99 });
    expect(ids(r)).toEqual(["fs::write_file"]);
  });

  it("takes the threshold from the request, else the tenant setting, else MATCHING_THRESHOLD", async () => {
    expect((await search(tenant, key, { query: "spreadsheets" })).body.threshold).toBe(1.5);
    const patched = await call("PATCH", `/v1/tenants/${tenant}/settings`, {
      token: key,
      body: { matching_threshold: 50 },
    });
    expect(patched.status, patched.text).toBe(200);
    const tenantLevel = await search(tenant, key, { query: "spreadsheets" });
    expect(tenantLevel.body).toMatchObject({ threshold: 50, results: [] });
    expect((await search(tenant, key, { query: "spreadsheets", threshold: 0.5 })).body.threshold).toBe(0.5);
    await call("PATCH", `/v1/tenants/${tenant}/settings`, { token: key, body: { matching_threshold: null } });
    expect((await search(tenant, key, { query: "spreadsheets" })).body.threshold).toBe(1.5);
  });

  it("includes full definitions in the requested format", async () => {
    const r = await search(tenant, key, { query: "read_file", format: "openai", max_results: 1 });
    expect(r.body.results[0].definition).toEqual({
      type: "function",
      function: {
        name: "fs__read_file",
        description: "Read the complete contents of a file",
        parameters: { type: "object", properties: { path: { type: "string", description: "File path" } } },
      },
    });
    expect((await search(tenant, key, { query: "read_file" })).body.results[0].definition).toBeUndefined();
  });

  it("explains a score when asked: matched terms per field and each term's part", async () => {
    const r = await search(tenant, key, { query: "read file path", explain: true, max_results: 1 });
    const [hit] = r.body.results;
    expect(hit.tool_id).toBe("fs::read_file");
    expect(hit.explain.fields.name).toEqual(expect.arrayContaining(["read", "file"]));
    expect(hit.explain.fields.params).toContain("path");
    const { terms, coverage = 1, naming = 1, verb = 1, context } = hit.explain;
    expect(naming).toBeGreaterThan(1); // a short query, and the tool's name holds two of its three words
    expect(verb).toBeGreaterThan(1); // "read ..." asks a read, and read_file does one
    const sum = terms.reduce((s: number, t: { score: number }) => s + t.score, 0) * coverage * naming * verb;
    expect(sum + (context?.score ?? 0)).toBeCloseTo(hit.score, 3);
  });

  it("refuses queries over the length limit and unknown fields", async () => {
    const limit = loadConfig(env).limits.max_query_chars;
    expect((await search(tenant, key, { query: "x".repeat(limit) })).status).toBe(200);
    const over = await search(tenant, key, { query: "x".repeat(limit + 1) });
    expect(over.status).toBe(400);
    expect(over.body.message).toContain(String(limit));
    const extra = await search(tenant, key, { query: "read", surprise: 1 });
    expect(extra.status).toBe(400);
    expect(extra.body.message).toContain("surprise");
  });
});

describe("queries that name tools", () => {
  let tenant: string;
  let key: string;
  beforeAll(async () => {
    ({ tenant, key } = await tenantWithKey());
    // Five weather tools and six mail tools in a catalog of 50: a single word shared by several
    // tools scores below the threshold on its own, but it is what those tools are called.
    const up = await upsert(tenant, key, [
      ...["getWeather", "getWeatherAlerts", "getHistoricalWeather", "getWeatherRadar", "getWeatherMap"].map((n) => ({
        server: "meteo",
        ...mcpTool(n, `Meteorological data: ${n}`),
      })),
      ...["send", "reply", "archive", "label", "search", "draft"].map((n) => ({
        server: "mail",
        ...mcpTool(`${n}_message`, `Handle a message: ${n}`),
      })),
      ...["alpha", "beta", "gamma", "delta"].map((n) => ({
        server: "versions",
        ...mcpTool(`${n}_v2`, `Second edition of ${n}`),
      })),
      ...Array.from({ length: 35 }, (_, i) => ({
        server: `misc${i % 3}`,
        ...mcpTool(`misc_tool_${i}`, `General purpose helper number ${i}`),
      })),
    ]);
    expect(up.status, up.text).toBe(200);
  });

  it("lists the tools whose name holds every word of the query, below the threshold", async () => {
    const weak = await search(tenant, key, { query: "weather", threshold: 0, explain: true });
    const best = weak.body.results[0];
    // Too common to pass on its own: the no-match decision weighs the score without the naming factor (its gate).
    expect(best.explain.gate ?? best.score).toBeLessThan(1.5);
    const r = await search(tenant, key, { query: "weather" });
    expect(r.body.results.map((x: { match: string }) => x.match)).toEqual(Array(5).fill("name-words"));
    expect(
      ids(r).every((id) => id.startsWith("meteo::getWeather") || id.startsWith("meteo::getHistoricalWeather")),
    ).toBe(true);
    expect(r.body.message).toBeUndefined();
  });

  it("lists a server's tools for a query that is the server's name", async () => {
    const r = await search(tenant, key, { query: "mail", max_results: 10 });
    expect(ids(r).sort()).toEqual(
      ["archive", "draft", "label", "reply", "search", "send"].map((n) => `mail::${n}_message`),
    );
    expect(r.body.results.every((x: { match: string }) => x.match === "server-name")).toBe(true);
  });

  it("does not let words found only in descriptions, numbers or single letters name a tool", async () => {
    expect((await search(tenant, key, { query: "meteorological" })).body.results).toEqual([]);
    // "2" is in four names (alpha_v2...), but a number names nothing; the same for a single letter.
    expect(
      (await search(tenant, key, { query: "2", threshold: 0 })).body.results.map((x: { match: string }) => x.match),
    ).toContain("terms");
    expect((await search(tenant, key, { query: "2" })).body.results).toEqual([]);
    expect((await search(tenant, key, { query: "v" })).body.results).toEqual([]);
    // A word in 35 of 54 names is too common even to name a tool.
    expect((await search(tenant, key, { query: "misc" })).body.results).toEqual([]);
  });
});

describe("score scale", () => {
  it("means the same on a small and a large catalog: a word only one tool has scores alike", async () => {
    const build = async (size: number) => {
      const { tenant, key } = await tenantWithKey();
      // One tool mentions "invoice"; every tool has a description of the same length.
      const tools = Array.from({ length: size }, (_, i) => ({
        server: "s",
        ...mcpTool(`t${i}`, i === 0 ? "handles invoice records" : "handles ledger records"),
      }));
      expect((await upsert(tenant, key, tools)).status).toBe(200);
      return (await search(tenant, key, { query: "invoice", threshold: 0, max_results: 1, explain: true })).body
        .results[0];
    };
    // One occurrence in an average-length field of weight 1 is worth (1 + delta) * idf nats, and a
    // score is nats over ln(1 + N): 1.5 * ln(1 + (N - 0.5) / 1.5) / ln(1 + N), about 1.35 to 1.43 here,
    // where the evidence alone (3.5 and 8.1 nats) would differ by a factor of 2.3.
    for (const size of [50, 5_000]) {
      const hit = await build(size);
      expect(hit.score).toBeCloseTo((1.5 * Math.log(1 + (size - 0.5) / 1.5)) / Math.log(1 + size), 3);
      expect(hit.explain.unit).toBeCloseTo(Math.log(1 + size), 3);
      expect(hit.score).toBeGreaterThan(1.3);
      expect(hit.score).toBeLessThan(1.5);
    }
  });
});
