/**
 * The demo catalog (demo/catalog, what `npm start` loads) asked what a new user asks first, in the words people use
 * rather than the tools' own: each question is answered by the tool that does it, and capabilities the catalog
 * lacks are answered "no match", at the service's default threshold.
 */
import { describe, expect, it } from "vitest";
import { parseToolBatch } from "../../src/catalog/batch.ts";
import { searchable } from "../../src/catalog/render.ts";
import { DEFAULT_LIMITS } from "../../src/config/limits.ts";
import { loadConfig } from "../../src/config/env.ts";
import { ToolIndex } from "../../src/search/tool-index.ts";

const DEFAULT_THRESHOLD = loadConfig({}).matchingThreshold;
const files = import.meta.glob<{ tools: object[] }>("../../demo/catalog/*.json", { import: "default", eager: true });
const tools = Object.entries(files).flatMap(([path, list]) => {
  const server = path.replace(/^.*\//, "").replace(/\.json$/, "");
  return list.tools.map((tool) => ({ server, ...tool }));
});

async function demoIndex(): Promise<ToolIndex> {
  const parsed = await parseToolBatch(tools, { ...DEFAULT_LIMITS });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors.slice(0, 2)));
  return ToolIndex.fromTools(parsed.rows.map(searchable));
}

describe("the demo catalog, asked in other words", async () => {
  const index = await demoIndex();
  const top = (query: string, n: number) =>
    index
      .answer(query, { limit: 10, threshold: DEFAULT_THRESHOLD })
      .hits.slice(0, n)
      .map((h) => h.id);

  it.each([
    ["what's the weather tomorrow in Paris", "weather::getForecast", 1],
    ["sql", "postgres::query", 1],
    ["schedule a meeting with bob next tuesday", "calendar::calendar.events.create", 1],
    ["open a PR", "github::create-pull-request", 1],
    ["list my jira tickets", "jira::searchJQL", 1],
    // Slack posts what other APIs send (chat.postMessage): sending on Slack is its post_message.
    ["send a slack message", "slack::slack_post_message", 1],
    ["notify the team in slack", "slack::slack_post_message", 1],
    // "repos" abbreviates repositories, "find" is a search: both through the thesaurus, above the threshold.
    ["find repos", "github::search-repositories", 1],
    // New mail is the mailbox's: in a catalog with Slack, "recent messages" alone would mean chat.
    ["any new emails", "email::searchInbox", 1],
    ["unread mail", "email::searchInbox", 1],
    // Questions (the thesaurus's eighth round): what is asked names the capability.
    ["when does the sun set", "weather::getSunriseSunset", 1],
    ["how high is Mount Everest", "maps::maps_elevation", 1],
    ["is it cold outside", "weather::getWeather", 1],
    ["who is in the workspace", "slack::slack_get_users", 1],
    ["how much money do we have", "billing::get_balance", 1],
    ["what IP does example.com resolve to", "http::DNSLookup", 1],
    // "money back" is a refund: the catalog holds neither word, and the tools holding "customer" do not refund.
    ["give the customer their money back", "billing::refund_payment", 1],
  ])("%s -> %s (within the first %i)", (query, tool, within) => {
    expect(top(query, within)).toContain(tool);
  });

  it.each(["open a zendesk ticket", "send an SMS with twilio"])(
    "%s -> no match, naming the absent service",
    (query) => {
      const answer = index.answer(query, { limit: 10, threshold: DEFAULT_THRESHOLD });
      expect(answer.hits).toEqual([]);
      expect(answer.absent.length).toBeGreaterThan(0);
    },
  );
});
