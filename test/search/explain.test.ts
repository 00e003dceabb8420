/** The score's definition, the threshold rule and explanations, on the search core itself. */
import { describe, expect, it } from "vitest";
import { DEFAULT_BM25F } from "../../src/search/ranker.ts";
import { CONTEXT_WEIGHT, serverContext } from "../../src/search/server-context.ts";
import { DEFAULT_TUNING, passing, ToolIndex, type Hit } from "../../src/search/tool-index.ts";
import { stem } from "../../src/search/tokenizer.ts";

const tool = (server: string, name: string, description: string, properties: Record<string, unknown> = {}) => ({
  id: `${server}::${name}`,
  server,
  name,
  description,
  inputSchema: { type: "object", properties },
});

const catalog = [
  tool("news", "latest_crypto_news", "Latest cryptocurrency news articles"),
  tool("news", "supported_currencies", "List the currencies this service supports"),
  tool("fx", "convert", "Convert an amount between two currencies", {
    amount: { type: "number", description: "How much" },
  }),
  tool("fx", "rates", "Exchange rates of every currency"),
  tool("movies", "find_movies", "Find movies by genre", { genre: { type: "string", enum: ["Comedy", "Drama"] } }),
  tool("weather", "forecast", "Weather forecast for a city"),
];

describe("explain", () => {
  const index = ToolIndex.fromTools(catalog);

  it("adds up: the score is the sum of the terms' parts, times the factors shown, plus the server context", () => {
    const hits = index.search("latest cryptocurrency news and the supported currencies", {
      limit: 6,
      threshold: 0,
      explain: true,
    });
    expect(hits.length).toBeGreaterThan(2);
    // The query names the news server (a name only its tools hold), so its tools carry a service factor.
    expect(hits.some((h) => h.explain!.service !== undefined)).toBe(true);
    for (const hit of hits) {
      const e = hit.explain!;
      const factors = (e.coverage ?? 1) * (e.naming ?? 1) * (e.verb ?? 1) * (e.service ?? 1);
      const sum = e.terms.reduce((s, t) => s + t.score, 0) * factors + (e.context?.score ?? 0);
      expect(sum).toBeCloseTo(hit.score, 12);
      expect(e.unit).toBeCloseTo(Math.log(1 + catalog.length), 12);
      expect(e.match).toBe("terms");
    }
  });

  it("lists each matched term under every field that holds it, phrases included", () => {
    const [hit] = index.search("weather forecast", { limit: 1, threshold: 0, explain: true });
    expect(hit!.id).toBe("weather::forecast");
    expect(hit!.explain!.fields.name).toEqual([stem("forecast")]);
    expect(hit!.explain!.fields.description).toEqual(["weather", stem("forecast"), `weather ${stem("forecast")}`]);
    const phrase = hit!.explain!.terms.find((t) => t.term.includes(" "))!;
    expect(phrase.weight).toBe(0.4);
    expect(phrase.tf).toEqual({ description: 1 });
  });

  it("searches enumerated parameter values", () => {
    const [hit] = index.search("a comedy", { limit: 1, threshold: 0, explain: true });
    expect(hit!.id).toBe("movies::find_movies");
    expect(hit!.explain!.fields.params).toEqual([stem("comedy")]);
  });

  it("shows the server context: which sibling lifted the tool, by how much", () => {
    // Without the boost of the server the query names ("news"): the context is a share of the sibling's own score.
    const hits = index.search("latest cryptocurrency news and the supported currencies", {
      limit: 6,
      threshold: 0,
      explain: true,
      tuning: { ...DEFAULT_TUNING, serviceBoost: 1 },
    });
    const news = hits.filter((h) => h.id.startsWith("news::"));
    expect(news).toHaveLength(2);
    for (const hit of news) {
      const sibling = news.find((h) => h.id !== hit.id)!;
      const own = hit.score - hit.explain!.context!.score;
      const siblingOwn = sibling.score - (sibling.explain!.context?.score ?? 0);
      expect(hit.explain!.context!.from).toBe(sibling.id);
      // CONTEXT_WEIGHT * (1 - share of the candidates on this server) * the sibling's own score
      expect(hit.explain!.context!.score).toBeCloseTo(CONTEXT_WEIGHT * (1 - 2 / hits.length) * siblingOwn, 12);
      expect(own).toBeGreaterThan(0);
    }
  });

  it("marks synonym terms with the key that added them", () => {
    const synonyms = new Map([
      ["crypto", [{ key: ["crypto"], source: "crypto", expansions: [[stem("cryptocurrency")]] }]],
    ]);
    const [hit] = index.search("crypto", { limit: 1, threshold: 0, synonyms, explain: true });
    expect(hit!.id).toBe("news::latest_crypto_news");
    expect(hit!.explain!.terms.find((t) => t.term === stem("cryptocurrency"))!.via).toBe("crypto");
  });

  it("uses BM25+ parts: one occurrence in an average-length field of weight 1 is worth (1 + delta) idf", () => {
    // Every description has three words, so each is of average length.
    const same = ToolIndex.fromTools([
      tool("a", "x", "alpha beta gamma"),
      tool("a", "y", "delta beta gamma"),
      tool("a", "z", "epsilon beta gamma"),
    ]);
    // Without the naming factor's cost of a name word the query lacks (naming.ts): the BM25+ part alone.
    const tuning = { ...DEFAULT_TUNING, nameExtra: 0 };
    const [hit] = same.search("alpha", { limit: 1, threshold: 0, explain: true, tuning });
    const idf = Math.log(1 + (3 - 1 + 0.5) / (1 + 0.5));
    expect(hit!.explain!.terms[0]!.idf).toBeCloseTo(idf, 12);
    expect(hit!.score).toBeCloseTo(((1 + DEFAULT_BM25F.delta) * idf) / Math.log(1 + 3), 12);
  });
});

describe("the threshold rule", () => {
  const ranked = (score: number, id = `s::t${score}`): Hit => ({ id, score, match: "terms" });

  it("answers nothing when the best ranked hit is below the threshold, but keeps exact names", () => {
    const named: Hit = { id: "s::exact", score: 0.2, match: "exact-name" };
    expect(passing([named, ranked(1.4), ranked(1.0)], 1.5)).toEqual([named]);
    expect(passing([ranked(1.4)], 1.5)).toEqual([]);
  });

  it("once the best reaches it, lists the others down to half the threshold", () => {
    expect(passing([ranked(2.0), ranked(1.2), ranked(0.75), ranked(0.74)], 1.5).map((h) => h.score)).toEqual([
      2.0, 1.2, 0.75,
    ]);
    expect(passing([ranked(0.3), ranked(0.1)], 0).map((h) => h.score)).toEqual([0.3, 0.1]);
  });

  it("is what search applies", () => {
    const index = ToolIndex.fromTools(catalog);
    const all = index.search("convert currencies exchange rates", { limit: 6, threshold: 0 });
    for (const t of [0.5, 1, 1.5, 2, 3, 10])
      expect(index.search("convert currencies exchange rates", { limit: 6, threshold: t })).toEqual(passing(all, t));
  });
});

describe("serverContext", () => {
  it("gives nothing when every candidate is on one server", () => {
    expect(
      serverContext([
        { id: "a::x", score: 3 },
        { id: "a::y", score: 2 },
      ]).size,
    ).toBe(0);
  });

  it("gives each tool a share of its best sibling's score, scaled by how much the server narrows the field", () => {
    const ctx = serverContext([
      { id: "a::x", score: 4 },
      { id: "a::y", score: 1 },
      { id: "b::z", score: 3 },
      { id: "c::w", score: 2 },
    ]);
    expect(ctx.get("a::x")).toEqual({ from: "a::y", score: CONTEXT_WEIGHT * 0.5 * 1 });
    expect(ctx.get("a::y")).toEqual({ from: "a::x", score: CONTEXT_WEIGHT * 0.5 * 4 });
    expect(ctx.has("b::z")).toBe(false);
  });
});
