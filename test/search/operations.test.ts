/** Operations the catalog lacks: a short query's operation, held by no tool, makes no match (operations.ts). */
import { describe, expect, it } from "vitest";
import { OPERATION_SHARE, OPERATION_WORDS, unasked } from "../../src/search/operations.ts";
import { analyze } from "../../src/search/tokenizer.ts";
import { DEFAULT_TUNING, ToolIndex } from "../../src/search/tool-index.ts";
import { tool } from "./fixtures.ts";

const THRESHOLD = 1.5;
const pages = [
  tool("confluence", "get_page", "Get a Confluence page by its id"),
  tool("confluence", "create_page", "Create a Confluence page in a space"),
  tool("confluence", "update_page", "Update the title or body of a Confluence page"),
  tool("confluence", "search", "Search Confluence content with CQL"),
  tool("github", "create_issue", "Create an issue in a GitHub repository"),
  tool("github", "list_issues", "List the issues of a GitHub repository"),
  tool("slack", "post_message", "Post a message to a Slack channel"),
  tool("files", "read_file", "Read a file from disk"),
];
// The operation rule alone: a tool's naming and verb factors (naming.ts, verbs.ts) change ranks and put the score
// without them in `gate`, never a decision (test/search/naming.test.ts, verbs.test.ts), so they are off here to read
// each gate as score x OPERATION_SHARE.
const alone = { ...DEFAULT_TUNING, nameCoverage: 0, nameExtra: 0, verbBoost: 1, serviceBoost: 1 };
const open = { limit: 5, threshold: THRESHOLD, explain: true, tuning: alone } as const;

describe("operations the catalog lacks", () => {
  it("answers no match when no tool holds the operation a short query asks for, and says why", () => {
    const index = ToolIndex.fromTools(pages);
    const answer = index.answer("delete a confluence page", open);
    expect(answer.hits).toEqual([]);
    const closest = answer.closest[0]!;
    expect(closest.id).toMatch(/^confluence::/);
    expect(closest.score).toBeGreaterThanOrEqual(THRESHOLD); // the service and the noun alone would have passed
    expect(closest.gate).toBeCloseTo(closest.score * OPERATION_SHARE, 12);
    expect(closest.explain?.gate).toBe(closest.gate);
  });

  it("answers as before when a tool holds the operation, itself or through a synonym", () => {
    const withDelete = [...pages, tool("confluence", "delete_page", "Delete a Confluence page")];
    expect(ToolIndex.fromTools(withDelete).answer("delete a confluence page", open).hits[0]?.id).toBe(
      "confluence::delete_page",
    );
    // "remove" is a synonym of delete: the tool that deletes holds it.
    expect(ToolIndex.fromTools(withDelete).answer("remove a confluence page", open).hits[0]?.id).toBe(
      "confluence::delete_page",
    );
    // The operation is there: the gate does not apply to the tool that has it.
    const found = ToolIndex.fromTools(pages).answer("create a confluence page", open);
    expect(found.hits[0]).toMatchObject({ id: "confluence::create_page" });
    expect(found.hits[0]?.gate).toBeUndefined();
  });

  it("leaves queries without an operation, and longer requests, to the threshold alone", () => {
    const index = ToolIndex.fromTools(pages);
    // Reading is not an operation word: every catalog reads.
    expect(OPERATION_WORDS.has(analyze("get")[0]!)).toBe(false);
    expect(index.answer("confluence page", open).hits[0]?.id).toMatch(/^confluence::/);
    const long = "please delete the confluence page about the old onboarding process we wrote last year";
    const hits = index.answer(long, { limit: 5, threshold: 0, tuning: alone }).hits;
    expect(hits[0]?.id).toMatch(/^confluence::/);
    expect(hits.every((h) => h.gate === undefined)).toBe(true);
    // The same operation in four words is judged: the tools that hold no `delete` carry a gate.
    expect(
      index.answer("delete confluence onboarding page", { limit: 5, threshold: 0, tuning: alone }).hits[0]?.gate,
    ).toBeDefined();
  });

  it("ranks exactly as without the gate: only the no-match decision changes", () => {
    const index = ToolIndex.fromTools(pages);
    for (const query of ["delete a confluence page", "archive a slack channel", "close a github issue"]) {
      const gated = index.answer(query, { limit: 5, threshold: 0, tuning: alone }).hits.map((h) => [h.id, h.score]);
      const ungated = index
        .answer(query, { limit: 5, threshold: 0, tuning: { ...alone, operationShare: 1 } })
        .hits.map((h) => [h.id, h.score]);
      expect(gated).toEqual(ungated);
      const unscoped = index
        .answer(query, { limit: 5, threshold: 0, tuning: { ...alone, operationService: false } })
        .hits.map((h) => [h.id, h.score]);
      expect(gated).toEqual(unscoped);
    }
  });

  describe("on a named service", () => {
    // Slack posts and reads; Discord and Gmail delete messages.
    const chat = [
      tool("slack", "post_message", "Post a message to a Slack channel"),
      tool("slack", "get_channel_history", "Get the recent messages of a Slack channel"),
      tool("discord", "delete_message", "Delete a message from a Discord channel"),
      tool("gmail", "delete_email", "Delete an email message"),
      tool("files", "read_file", "Read a file from disk"),
      tool("files", "write_file", "Write a file to disk"),
      tool("github", "create_issue", "Create an issue in a GitHub repository"),
      tool("github", "list_issues", "List the issues of a GitHub repository"),
    ];

    it("answers no match when only other services' tools hold the operation", () => {
      const index = ToolIndex.fromTools(chat);
      const answer = index.answer("delete a slack message", open);
      expect(answer.hits).toEqual([]);
      const discord = answer.closest.find((h) => h.id === "discord::delete_message")!;
      expect(discord.score).toBeGreaterThanOrEqual(THRESHOLD); // it holds the operation and the noun
      expect(discord.gate).toBeCloseTo(discord.score * OPERATION_SHARE, 12);
      expect(discord.explain?.gate).toBe(discord.gate);
      // Without the rule, Discord's tool would have answered a request for Slack.
      const off = { ...open, tuning: { ...alone, operationService: false } };
      expect(index.answer("delete a slack message", off).hits.map((h) => h.id)).toContain("discord::delete_message");
    });

    it("answers with the service's own tool when it holds the operation, and leaves other requests alone", () => {
      const withDelete = [...chat, tool("slack", "delete_message", "Delete a message from a Slack channel")];
      const answer = ToolIndex.fromTools(withDelete).answer("delete a slack message", open);
      expect(answer.hits[0]).toMatchObject({ id: "slack::delete_message" });
      expect(answer.hits[0]?.gate).toBeUndefined();
      const index = ToolIndex.fromTools(chat);
      // A service the query does not name scopes nothing; neither does a query without an operation.
      expect(index.answer("delete a discord message", open).hits[0]?.id).toBe("discord::delete_message");
      expect(index.answer("delete a chat message", open).hits[0]?.id).toBe("discord::delete_message");
      const reading = index.answer("slack message history", { limit: 5, threshold: 0, tuning: alone }).hits;
      expect(reading.every((h) => h.gate === undefined)).toBe(true);
    });

    it("counts a tool as the service's when any of its fields names the service", () => {
      // A bridge that posts to Slack, from another server: it holds the name in its description.
      const bridge = [...chat, tool("zapier", "delete_chat_message", "Delete a message in Slack or Microsoft Teams")];
      const answer = ToolIndex.fromTools(bridge).answer("delete a slack message", open);
      expect(answer.hits[0]?.id).toBe("zapier::delete_chat_message");
      expect(answer.hits[0]?.gate).toBeUndefined();
    });
  });

  describe("operation words used as nouns or states", () => {
    // A read-only shop, a weather service, a chat service that posts.
    const shop = [
      tool("shop", "get_order", "Get an order of the shop by its id"),
      tool("shop", "list_orders", "List the orders of the shop"),
      tool("weather", "air_quality", "Air quality forecast: pollen, ozone and particulates"),
      tool("ci", "run_pipeline", "Run a CI pipeline"),
      tool("chat", "send_message", "Send a message to a channel"),
    ];

    it("reads an operation word right after a determiner or a possessive as a noun, unless a verb elsewhere", () => {
      const nouns = (query: string) => [...unasked(query, analyze)];
      expect(nouns("air quality before my run")).toEqual(analyze("run"));
      expect(nouns("refund an order in the shop")).toEqual(analyze("order"));
      expect(nouns("Announce THE launch")).toEqual(analyze("launch"));
      expect(nouns("run the pipeline")).toEqual([]);
      expect(nouns("order the pizza my friend ordered")).toEqual([]); // a verb once is an operation
      expect(nouns("order a new order")).toEqual([]);
    });

    it("reads an operation word that ends a two-word noun phrase as a noun, not after a clause's subject", () => {
      const nouns = (query: string) => [...unasked(query, analyze)];
      expect(nouns("find a gif of a rocket launch")).toEqual(analyze("launch"));
      expect(nouns("cancel my flight booking")).toEqual(analyze("booking"));
      expect(nouns("the file that you delete")).toEqual([]); // "that" opens a clause, not a noun phrase
      expect(nouns("a way to run")).toEqual([]);
      expect(nouns("the pipeline run")).toEqual(analyze("run"));
    });

    it("reads an operation word after a form of 'be', or as a participle, as a state: a filter, not a request", () => {
      const states = (query: string) => [...unasked(query, analyze)];
      expect(states("which campaigns are running")).toEqual(analyze("run"));
      expect(states("merged pull requests")).toEqual(analyze("merge"));
      expect(states("restore deleted files")).toEqual(analyze("delete")); // restore is asked for, delete is not
      expect(states("merge the approved pull request")).toEqual(analyze("approve"));
      expect(states("run the pipeline")).toEqual([]);
    });

    it("answers a short query for tools in a state on the words that name them, as if it had no operation", () => {
      const prs = [
        tool("code", "list_pull_requests", "List the pull requests of a repository, open, closed or merged"),
        tool("code", "get_pull_request", "Get one pull request of a repository"),
        tool("files", "read_file", "Read a file from disk"),
      ];
      const index = ToolIndex.fromTools(prs);
      const answer = index.answer("merged pull requests", open);
      expect(answer.hits[0]).toMatchObject({ id: "code::list_pull_requests" });
      expect(answer.hits.every((h) => h.gate === undefined)).toBe(true);
      // Read as the operation, "merged" would gate every tool that cannot merge.
      const asVerb = index.answer("merged pull requests", { ...open, tuning: { ...alone, operationNouns: false } });
      expect(asVerb.hits.find((h) => h.id === "code::get_pull_request")?.gate).toBeDefined();
    });

    it("answers a short query whose only operation word is a noun on its words, as if it had none", () => {
      const index = ToolIndex.fromTools(shop);
      const answer = index.answer("air quality before my run", open);
      expect(answer.hits[0]).toMatchObject({ id: "weather::air_quality" });
      expect(answer.hits[0]?.gate).toBeUndefined();
      // Read as an operation, `run` would leave the forecast to a gate and the query without a match.
      const asVerb = index.answer("air quality before my run", {
        ...open,
        tuning: { ...alone, operationNouns: false },
      });
      expect(asVerb.hits).toEqual([]);
      expect(asVerb.closest[0]?.id).toBe("weather::air_quality");
      expect(asVerb.closest[0]?.gate).toBeCloseTo(asVerb.closest[0]!.score * OPERATION_SHARE, 12);
    });

    it("asks for the verb's operation only: a noun that happens to be an operation word does not answer it", () => {
      const index = ToolIndex.fromTools(shop);
      // The shop holds orders but refunds nothing: `order` names the thing, `refund` the operation.
      const refund = index.answer("refund an order in the shop", open);
      expect(refund.hits).toEqual([]);
      expect(refund.closest[0]?.id).toMatch(/^shop::/);
      const asVerb = { ...open, tuning: { ...alone, operationNouns: false } };
      expect(index.answer("refund an order in the shop", asVerb).hits[0]?.id).toMatch(/^shop::/);
    });

    it("does not let a noun phrase's last word stand for the operation a short query asks for", () => {
      const travel = [
        tool("travel", "book_flight", "Book a flight between two airports"),
        tool("travel", "search_flights", "Search flights by date and route"),
        tool("files", "read_file", "Read a file from disk"),
      ];
      const index = ToolIndex.fromTools(travel);
      // Nothing cancels: "booking" names what to cancel, so booking a flight is not an answer.
      const cancel = index.answer("cancel my flight booking", open);
      expect(cancel.hits).toEqual([]);
      expect(cancel.closest[0]?.id).toBe("travel::book_flight");
      const asVerb = { ...open, tuning: { ...alone, operationNouns: false } };
      expect(index.answer("cancel my flight booking", asVerb).hits[0]?.id).toBe("travel::book_flight");
    });
  });
});
