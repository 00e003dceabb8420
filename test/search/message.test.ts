/** How a message of several lines is read: pasted lines and asides weigh less than the sentences that ask. */
import { describe, expect, it } from "vitest";
import { askingSentences, ownLines, readMessage, REPLY_SHARE } from "../../src/search/message.ts";
import { ASIDE_WEIGHT, analyseQuery, VALUE_WEIGHT } from "../../src/search/query.ts";
import { stem } from "../../src/search/tokenizer.ts";
import { passing, ToolIndex } from "../../src/search/tool-index.ts";
import { tool } from "./fixtures.ts";

const CI_LOG = [
  "the nightly build broke again, here's the runner output:",
  "2026-11-30T02:15:41Z ERROR redis connection refused",
  "    at RedisClient.connect (node_modules/redis/dist/client.js:212:11)",
  "[02:15:52] WARN upload of the coverage report failed",
  "can you open an issue for this?",
].join("\n");

describe("ownLines", () => {
  it("keeps the lines the user wrote and leaves out log lines, stack frames and timestamps", () => {
    expect(ownLines(CI_LOG)).toBe(
      "the nightly build broke again, here's the runner output:\ncan you open an issue for this?",
    );
  });

  it("leaves out fenced blocks, indented code, quoted mail, code lines and lines of data", () => {
    const message = [
      "why does this fail? please file a bug",
      "```",
      "SELECT name FROM users WHERE id = 4",
      "```",
      "> Hi team, the deploy is moved to Friday",
      "const total = items.reduce((a, b) => a + b, 0);",
      "} catch (err) {",
      '{"id": 4411, "status": 502, "ms": 30012}',
      '  File "/app/main.py", line 12, in handler',
      "\tindented with a tab",
      "thanks",
    ].join("\n");
    expect(ownLines(message)).toBe("why does this fail? please file a bug\nthanks");
  });

  it("keeps prose with punctuation and numbers, and list items, indented or not", () => {
    const message =
      "Notes from today:\n- ship v2.3 on Monday, 10am\n  - ask Dana about the Q3 budget (again)\nput these in Notion";
    expect(ownLines(message)).toBe(message);
  });

  it("reads a message of one or two lines, or one all pasted, as the user's words throughout (null)", () => {
    expect(ownLines("open an issue for the failing build")).toBeNull();
    expect(ownLines("open an issue\n2026-11-30 ERROR redis")).toBeNull();
    expect(ownLines("2026-11-30 ERROR a\n2026-11-30 ERROR b\n2026-11-30 ERROR c")).toBeNull();
  });

  it("reads a message of 32 K characters, almost all of it log", () => {
    const message = `${"2026-11-30T02:15:41Z ERROR x\n".repeat(1_120)}please open an issue`;
    expect(message.length).toBeGreaterThan(32_000);
    expect(ownLines(message)).toBe("please open an issue");
  });
});

describe("askingSentences", () => {
  it("finds the sentences that ask: a request form, or a verb that opens the sentence", () => {
    const text = "Our CI broke after the fixture moved to a leap day. Could you open an issue for it? Thanks!";
    expect(askingSentences(text)).toBe("Could you open an issue for it?");
    expect(askingSentences("The deploy failed twice.\nRoll back... no wait. Send the log to #ops, then")).toBe(
      "Send the log to #ops, then",
    );
  });

  it("is null when no sentence asks, or every one does: then they all weigh alike", () => {
    expect(askingSentences("The deploy failed twice. It was fine yesterday.")).toBeNull();
    expect(askingSentences("Please open an issue. Assign it to me.")).toBeNull();
  });

  it("does not take an opening verb without an object for an imperative ('UPDATE;' in notes)", () => {
    expect(askingSentences("UPDATE; the migration ran.\nWe shipped it.")).toBeNull();
  });
});

describe("readMessage", () => {
  it("reads a paragraph of six sentences or more for its asides, and a shorter one as it is", () => {
    const story =
      "We moved to a new office last month. The wifi there is flaky. Half the team works from home now. " +
      "Nobody knows who owns the router. IT says it's not theirs. Can you open an issue in acme/office for it?";
    expect(readMessage(story)?.asking).toBe("Can you open an issue in acme/office for it?");
    expect(readMessage("I'm flying to Paris on Friday. Can you check the weather there?")).toBeNull();
  });

  const withPaste = (ask: string) =>
    `${ask}\n\`\`\`\nTypeError: x is undefined\n    at main (app.js:3:9)\n\`\`\`\nThanks.`;

  it("marks a message that asks only for an explanation, a summary or a rewrite of what it holds", () => {
    expect(readMessage(withPaste("Can you explain what this stack trace means?"))?.replyOnly).toBe(true);
    expect(readMessage(withPaste("Please rewrite this so a customer understands it."))?.replyOnly).toBe(true);
    expect(readMessage(withPaste("Can you tell me why this fails and point out the bug?"))?.replyOnly).toBe(true);
  });

  it("does not when an asking sentence asks for an action too, or for nothing a reply gives", () => {
    expect(readMessage(withPaste("Can you post a summary of this in the #ops channel?"))?.replyOnly).toBe(false);
    expect(readMessage(withPaste("Please open an issue for this."))?.replyOnly).toBe(false);
  });
});

describe("searching with a long message", () => {
  const weight = (query: string, word: string) => analyseQuery(query).terms.find((t) => t.term === stem(word))?.weight;

  it("weighs a word only in pasted lines as a value, an aside's at ASIDE_WEIGHT, the request's at 1", () => {
    expect(weight(CI_LOG, "coverage")).toBe(VALUE_WEIGHT);
    expect(weight(CI_LOG, "nightly")).toBe(ASIDE_WEIGHT);
    expect(weight(CI_LOG, "issue")).toBe(1);
  });

  it("counts a word as often as the user wrote it, not as often as the log repeats it", () => {
    const repeated = `${CI_LOG}\n2026-11-30T02:16:00Z ERROR issue 1 failed\n2026-11-30T02:17:00Z ERROR issue 2 failed`;
    expect(weight(repeated, "issue")).toBe(1);
  });

  it("ranks the tool the user asks for above the tools the log and the asides describe", () => {
    const index = ToolIndex.fromTools([
      tool("github", "create_issue", "Open a new issue in a GitHub repository"),
      tool("redis", "get_connection_info", "Get redis connection info and refused connection errors"),
      tool("ci", "get_status", "Get the status of a nightly build on a runner, and its coverage upload"),
    ]);
    const first = (tuning: { valueWeight?: number; asideWeight?: number }) =>
      index.search(CI_LOG, { limit: 3, threshold: 0, tuning })[0]?.id;
    expect(first({})).toBe("github::create_issue");
    expect(first({ valueWeight: 1, asideWeight: 1 })).not.toBe("github::create_issue");
  });

  it("keeps the request's words among the scored terms when the log holds many rarer ones", () => {
    const word = (i: number) =>
      `zz${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`;
    const log = Array.from({ length: 200 }, (_, i) => `2026-11-30T02:15:41Z ERROR ${word(i)} failed`).join("\n");
    const { terms } = analyseQuery(`the build is red.\n${log}\nplease open an issue about it`, {
      maxTerms: 8,
      df: (term) => (term.startsWith("zz") ? 1 : 50),
    });
    expect(terms.filter((t) => t.word).map((t) => t.term)).toEqual([stem("open"), stem("issue"), stem("build"), "red"]);
  });

  it("answers 'no match' to a message that asks only for a reply, however well its words match", () => {
    const index = ToolIndex.fromTools([
      tool("sentry", "get_stack_trace", "Get the stack trace of an error event: TypeError, exceptions"),
    ]);
    const message = "Can you explain what this stack trace means?\n```\nTypeError: x is undefined\n```\nThanks.";
    const hits = index.search(message, { limit: 3, threshold: 0 });
    expect(hits[0]?.id).toBe("sentry::get_stack_trace");
    expect(hits[0]?.gate).toBeCloseTo(hits[0]!.score * REPLY_SHARE);
    expect(passing(hits, hits[0]!.score)).toEqual([]);
    const asking = "Can you get the stack trace of the last TypeError?\n```\nTypeError: x is undefined\n```\nThanks.";
    expect(passing(index.search(asking, { limit: 3, threshold: 0 }), 0.5)[0]?.id).toBe("sentry::get_stack_trace");
  });
});
