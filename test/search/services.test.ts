/**
 * Services a query names: one the catalog lacks is judged per tool (a name's words spread over tools are not it); the
 * tools of one it has rank first.
 */
import { describe, expect, it } from "vitest";
import { SERVICE_BOOST, serviceFactor } from "../../src/search/services.ts";
import { DEFAULT_TUNING, ToolIndex } from "../../src/search/tool-index.ts";
import { mcpCatalog, mcpQueries, tool } from "./fixtures.ts";

const crypto = tool("crypto", "generate_key", "Generate an EC (elliptic curve) key pair");
const retry = tool("http", "fetch_url", "Fetch a URL, retrying up to 2 times");
const ec2 = tool("aws", "start_instances", "Start stopped Amazon EC2 instances");
const absent = (tools: ReturnType<typeof tool>[], query: string) =>
  ToolIndex.fromTools(tools).answer(query, { limit: 5, threshold: 0 }).absent;

describe("absent services", () => {
  it("counts a service of several terms as present only when one tool holds them all", () => {
    // "ec2" analyses to ec + 2: one tool says EC, another 2, none EC2.
    expect(absent([crypto, retry], "start an ec2 instance")).toEqual(["ec2"]);
    expect(absent([crypto, retry, ec2], "start an ec2 instance")).toEqual([]);
  });

  it("counts a one-word service as present when any tool mentions it", () => {
    const slack = tool("chat", "post_message", "Post a message to a Slack channel");
    expect(absent([slack, retry], "post to slack")).toEqual([]);
    expect(absent([retry], "post to slack")).toEqual(["slack"]);
  });

  it("stays right after a tool leaves the catalog", () => {
    const index = ToolIndex.fromTools([crypto, retry, ec2]);
    index.remove([ec2.id]);
    expect(index.answer("start an ec2 instance", { limit: 5, threshold: 0 }).absent).toEqual(["ec2"]);
  });
});

describe("a named service's tools first", () => {
  const catalog = [
    tool("paddle", "create_product", "Create a product"),
    tool("pinecone", "upsert_records", "Add records to an index"),
    tool("pinecone", "search_records", "Search the records of an index"),
    tool("slack", "post_message", "Post a message to a channel"),
  ];
  const index = ToolIndex.fromTools(catalog);
  const everyone = { ...DEFAULT_TUNING, serviceBoost: 1 };
  const hits = (query: string, tuning = DEFAULT_TUNING) =>
    index.answer(query, { limit: 4, threshold: 0, explain: true, tuning }).hits;
  const query = "add these product descriptions to the catalog index in pinecone";

  it("ranks the tools of a service the query names above another service's that matched more words", () => {
    expect(hits(query, everyone)[0]?.id).toBe("paddle::create_product");
    const ranked = hits(query);
    expect(ranked[0]?.id).toBe("pinecone::upsert_records");
    const insider = ranked.find((h) => h.id === "pinecone::upsert_records")!;
    const before = hits(query, everyone).find((h) => h.id === "pinecone::upsert_records")!;
    expect(insider.explain!.service).toBe(SERVICE_BOOST);
    // Its own part is boosted; the part its siblings lend it (server context) is not.
    const context = insider.explain!.context?.score ?? 0;
    expect(insider.score).toBeCloseTo((before.score - context) * SERVICE_BOOST + context, 12);
    // Ranking only: it counts in the no-match decision for what it counted before.
    expect(insider.gate).toBeCloseTo(before.gate ?? before.score, 12);
    expect(ranked.find((h) => h.id === "paddle::create_product")!.explain!.service).toBeUndefined();
  });

  it("counts every named service's tools as its own, and changes nothing when none is named", () => {
    const both = hits("add these product descriptions to the index in pinecone and post them in slack");
    expect(both.find((h) => h.id === "slack::post_message")!.explain!.service).toBe(SERVICE_BOOST);
    expect(both.find((h) => h.id === "pinecone::upsert_records")!.explain!.service).toBe(SERVICE_BOOST);
    expect(both.find((h) => h.id === "paddle::create_product")!.explain!.service).toBeUndefined();
    const unnamed = "add these product descriptions to the catalog index";
    const scores = (tuning = DEFAULT_TUNING) => hits(unnamed, tuning).map((h) => [h.id, h.score]);
    expect(scores()).toEqual(scores(everyone));
  });

  it("changes no no-match decision: every query of our keyword set matches or not as without it", () => {
    const real = ToolIndex.fromTools(mcpCatalog);
    let reordered = 0;
    for (const q of mcpQueries) {
      const matched = (tuning = DEFAULT_TUNING) =>
        real.answer(q, { limit: 10, threshold: 1.5, tuning }).hits.length > 0;
      expect(matched()).toBe(matched(everyone));
      const top = (tuning = DEFAULT_TUNING) => real.answer(q, { limit: 1, threshold: 0, tuning }).hits[0]?.id;
      if (top() !== top(everyone)) reordered++;
    }
    expect(reordered).toBeGreaterThan(0); // it does change rankings
  });

  it("reads a name from the words a tool holds, and looks up once a name whose words have no bit", () => {
    const named = [{ name: "google drive", names: [["googl", "drive"], ["gdrive"]] }];
    const bits: Record<string, number> = { googl: 1, drive: 2 };
    let lookups = 0;
    const holders = () => {
      lookups++;
      return new Set([7]);
    };
    const factor = serviceFactor(named, 1.5, (term) => bits[term] ?? 0, holders);
    expect(factor(1, 1 | 2 | 4)).toBe(1.5); // holds both words of "google drive"
    expect(factor(2, 1)).toBe(1); // only "google"
    expect(factor(7, 0)).toBe(1.5); // holds "gdrive", not a scored word: found in the postings
    expect(factor(8, 0)).toBe(1);
    expect(lookups).toBe(1);
    expect(serviceFactor([], 1.5, () => 1, holders)(3, 0)).toBe(1); // no service named
  });

  it("counts a catalog's server named by a name of its own as a named service, and not one other tools use", () => {
    // "zorblax" is on no list, but only its own tools hold it; "time" is also in two calendar tools' text.
    const servers = ToolIndex.fromTools([
      tool("zorblax", "sync_application", "Sync an application to the state in git"),
      tool("zorblax", "get_application", "Get an application"),
      tool("deployer", "create_application", "Create an application and deploy it"),
      tool("time", "get_current_time", "Get the current time in a time zone"),
      tool("calendar", "create_event", "Create an event at a time"),
      tool("calendar", "list_events", "List the events in a time range"),
    ]);
    const boosts = (query: string, tuning = DEFAULT_TUNING) =>
      new Map(
        servers
          .answer(query, { limit: 6, threshold: 0, explain: true, tuning })
          .hits.map((h) => [h.id, h.explain!.service ?? 1]),
      );
    const zorblax = boosts("deploy an application with zorblax");
    expect(zorblax.get("zorblax::get_application")).toBe(SERVICE_BOOST);
    expect(zorblax.get("zorblax::sync_application")).toBe(SERVICE_BOOST);
    expect(zorblax.get("deployer::create_application")).toBe(1);
    // Off when no share of holders is enough (above 1), and for a name other tools hold.
    const off = boosts("deploy an application with zorblax", { ...DEFAULT_TUNING, ownNameShare: 2 });
    expect([...off.values()].every((b) => b === 1)).toBe(true);
    expect([...boosts("what time is it in tokyo").values()].every((b) => b === 1)).toBe(true);
    // A new server's name counts at once: the names are read again after the catalog changes.
    servers.upsert([tool("quuxly", "get_report", "Get a report")]);
    expect(boosts("get the report from quuxly").get("quuxly::get_report")).toBe(SERVICE_BOOST);
  });
});
