/**
 * One agent conversation with the Anthropic Messages API's client-side tool search, tool-search
 * doing the finding. Run it against `npm start`:
 *
 *   npm run example:anthropic
 *
 * The model's side is scripted (lib/anthropic-standin.ts), so it runs offline with no API key;
 * swap `model` for `new Anthropic().messages` and the harness below stays as it is.
 *
 *   0. plan: is tool search worth it for this catalog and context window?
 *   1. a session for the conversation (budget, activated tools)
 *   2. the tools for every request: the catalog export, tool_search plus every tool deferred
 *   3. turn 1: the model calls tool_search -> POST /search with format anthropic-tool-reference
 *      answers with tool_reference blocks; the chosen tool is resolved in the session and run;
 *      the model keeps searching for something the catalog lacks until the budget says stop
 *   4. turn 2: a new turn (the budget resets), search, resolve, run
 */
import { ToolSearchClient, ToolSearchError, type SessionClient, type TenantClient } from "../src/client/index.ts";
import {
  ScriptedMessagesApi,
  references,
  text,
  toolUse,
  type AnthropicTool,
  type Message,
  type ModelStep,
  type ToolResultBlock,
  type ToolUseBlock,
} from "./lib/anthropic-standin.ts";
import type { ExampleTarget } from "./lib/connect.ts";
import {
  planAndOpenSession,
  playConversation,
  resolveAndRun,
  runIfMain,
  type ToolCallRecord,
} from "./lib/conversation.ts";
import { brief, consoleLog, heading, type Log } from "./lib/log.ts";

/** What happened, for the tests that run this example. */
export interface Transcript {
  sessionId: string;
  tools: { total: number; deferred: number };
  searches: {
    turn: number;
    query: string;
    outcome: "found" | "nothing" | "refused";
    references: string[];
    error?: Record<string, unknown>;
  }[];
  calls: ToolCallRecord[];
  replies: string[];
}

const CALENDAR = "calendar__calendar_events_create";
const EMAIL = "email__sendEmail";

/** The model's side of the conversation, step by step: what a model would plausibly do. */
function script(): ModelStep[] {
  const expectReference = (name: string) => (results: ToolResultBlock[]) => {
    if (!references(results[0]).includes(name))
      throw new Error(`script diverged: expected a tool_reference to ${name}, got ${brief(results[0])}`);
  };
  return [
    // Turn 1
    () => [
      text("I'll find a calendar tool."),
      toolUse("tool_search", { query: "create calendar event", max_results: 3 }),
    ],
    ({ results }) => {
      expectReference(CALENDAR)(results);
      return [
        toolUse(CALENDAR, {
          summary: "Design review",
          start: "2026-12-04T10:00:00Z",
          end: "2026-12-04T10:30:00Z",
          attendees: ["dana@example.com"],
        }),
      ];
    },
    () => [text("Now a room."), toolUse("tool_search", { query: "reserve a room" })],
    () => [toolUse("tool_search", { query: "conference room booking" })],
    () => [toolUse("tool_search", { query: "meeting space" })],
    ({ results }) => {
      if (!results[0]?.is_error) throw new Error("script diverged: expected the budget error");
      return [
        text(
          "The design review is on your calendar for Friday 10:00 with Dana. I found no tool to " +
            "book a room, so please book one yourself.",
        ),
      ];
    },
    // Turn 2
    () => [toolUse("tool_search", { query: "send email", max_results: 2 })],
    ({ results }) => {
      expectReference(EMAIL)(results);
      return [
        toolUse(EMAIL, {
          to: ["dana@example.com"],
          subject: "Design review agenda",
          body: "1. Goals\n2. Open questions\n3. Next steps",
        }),
      ];
    },
    () => [text("I've emailed Dana the agenda.")],
  ];
}

/**
 * POST /search inside the session, answered the way the Messages API expects: a tool_result of tool_reference blocks.
 */
async function searchCall(
  session: SessionClient,
  block: ToolUseBlock,
  turn: number,
  transcript: Transcript,
  log: Log,
): Promise<ToolResultBlock> {
  const input = block.input as { query?: string; tool_id?: string; max_results?: number };
  const query = input.query ?? input.tool_id ?? "";
  try {
    const found = await session.search({ ...input, format: "anthropic-tool-reference", call_id: block.id });
    const result = found.tool_result as ToolResultBlock;
    const names = references(result);
    transcript.searches.push({ turn, query, outcome: names.length ? "found" : "nothing", references: names });
    log(
      `    tool-search: ` +
        `${names.length ? `tool_reference ${names.join(", ")}` : `nothing matched: ${brief(found.message, 110)}`}`,
    );
    log(
      `                 activated ` +
        `${found.activated.length ? found.activated.join(", ") : "nothing new"}; budget ` +
        `${found.budget!.used}/${found.budget!.cap}`,
    );
    return result;
  } catch (e) {
    // A spent budget (429) or an unknown tool_id (404): the answer carries the tool_result to give the model.
    if (!(e instanceof ToolSearchError) || !e.body.tool_result) throw e;
    transcript.searches.push({
      turn,
      query,
      outcome: "refused",
      references: [],
      error: { error: e.body.error, budgetCap: e.body.budgetCap },
    });
    const refusal = (e.body.tool_result as ToolResultBlock & { content: { text: string }[] }).content[0]!.text;
    log(`    tool-search: ${e.status} ${brief(JSON.parse(refusal), 120)}`);
    return e.body.tool_result as ToolResultBlock;
  }
}

/** Any other tool: resolved in the session and run (lib/conversation.ts), its answer a tool_result. */
async function toolCall(
  api: TenantClient,
  session: SessionClient,
  block: ToolUseBlock,
  turn: number,
  transcript: Transcript,
  log: Log,
): Promise<ToolResultBlock> {
  const answer = await resolveAndRun(
    api,
    session,
    { name: block.name, args: block.input },
    turn,
    transcript.calls,
    log,
  );
  return {
    type: "tool_result",
    tool_use_id: block.id,
    content: answer.text,
    ...(answer.isError ? { is_error: true } : {}),
  };
}

export async function run(target: ExampleTarget, log: Log = consoleLog): Promise<Transcript> {
  const api = new ToolSearchClient({ url: target.url, token: target.key }).tenant(target.tenant);
  const model = new ScriptedMessagesApi(script());
  const { created, session } = await planAndOpenSession(api, log, 200_000, "example-anthropic");

  heading(log, "2. tools for every request: GET .../catalog/export?format=anthropic");
  const tools = (await api.catalogExportAll({ format: "anthropic" })) as unknown as AnthropicTool[];
  const deferred = tools.filter((t) => t.defer_loading).length;
  log(
    `  ${tools.length} definitions: tool_search, ${tools.length - 1 - deferred} always ` +
      `loaded, ${deferred} with defer_loading: true`,
  );

  const transcript: Transcript = {
    sessionId: created.session_id,
    tools: { total: tools.length, deferred },
    searches: [],
    calls: [],
    replies: [],
  };
  const messages: Message[] = [];

  async function agentTurn(turn: number, userText: string): Promise<void> {
    heading(log, `turn ${turn}`);
    log(`  user: ${userText}`);
    messages.push({ role: "user", content: userText });
    for (;;) {
      const response = await model.create({ model: "claude-sonnet-4-5", max_tokens: 1024, tools, messages });
      messages.push({ role: "assistant", content: response.content });
      for (const block of response.content)
        log(block.type === "text" ? `  model: ${block.text}` : `  model -> ${block.name} ${brief(block.input, 110)}`);
      if (response.stop_reason !== "tool_use") {
        transcript.replies.push(response.content.map((b) => (b.type === "text" ? b.text : "")).join(""));
        return;
      }
      const results: ToolResultBlock[] = [];
      for (const block of response.content) {
        if (block.type !== "tool_use") continue;
        results.push(
          block.name === "tool_search"
            ? await searchCall(session, block, turn, transcript, log)
            : await toolCall(api, session, block, turn, transcript, log),
        );
      }
      messages.push({ role: "user", content: results });
    }
  }

  await playConversation(session, model, agentTurn, log);
  return transcript;
}

runIfMain(import.meta.url, run);
