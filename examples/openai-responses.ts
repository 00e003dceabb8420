/**
 * One agent conversation with the OpenAI Responses API's client-executed tool search, tool-search
 * doing the finding. Run it against `npm start`:
 *
 *   npm run example:openai
 *
 * The model's side is scripted (lib/openai-standin.ts), so it runs offline with no API key; swap
 * `model` for `new OpenAI().responses` and the harness below stays as it is.
 *
 *   0. plan: is tool search worth it for this catalog and context window?
 *   1. a session for the conversation (budget, activated tools)
 *   2. the tools for every request: the catalog export, a client-executed tool_search and one
 *      namespace per server with deferred functions
 *   3. turn 1: the model emits a tool_search_call -> POST /search with format
 *      openai-tool-search-output answers with the tool_search_output item for its call_id; the
 *      chosen function is resolved in the session and run; the model keeps searching for
 *      something the catalog lacks until the budget says stop
 *   4. turn 2: a new turn (the budget resets), search, resolve, run
 */
import { ToolSearchClient, ToolSearchError, type SessionClient, type TenantClient } from "../src/client/index.ts";
import type { ExampleTarget } from "./lib/connect.ts";
import {
  planAndOpenSession,
  playConversation,
  resolveAndRun,
  runIfMain,
  type ToolCallRecord,
} from "./lib/conversation.ts";
import { brief, consoleLog, heading, type Log } from "./lib/log.ts";
import {
  functionCall,
  loadedBy,
  say,
  ScriptedResponsesApi,
  toolSearchCall,
  type FunctionCallItem,
  type FunctionCallOutputItem,
  type Item,
  type MessageItem,
  type ModelStep,
  type Tool,
  type ToolSearchCallItem,
  type ToolSearchOutputItem,
} from "./lib/openai-standin.ts";

/** What happened, for the tests that run this example. */
export interface Transcript {
  sessionId: string;
  tools: { namespaces: number; deferred: number };
  searches: {
    turn: number;
    query: string;
    outcome: "found" | "nothing" | "refused";
    loaded: string[];
    error?: Record<string, unknown>;
  }[];
  calls: ToolCallRecord[];
  replies: string[];
}

/** The tool_search_output among the items since the model's last output. */
const searchOutput = (since: Item[]) => since.find((i): i is ToolSearchOutputItem => i.type === "tool_search_output");

/** The model's side of the conversation, step by step: what a model would plausibly do. */
function script(): ModelStep[] {
  const expectLoaded = (key: string) => (since: Item[]) => {
    if (!loadedBy(searchOutput(since)).includes(key))
      throw new Error(`script diverged: expected ${key} in the tool_search_output, got ${brief(searchOutput(since))}`);
  };
  return [
    // Turn 1
    () => [toolSearchCall({ query: "create calendar event", max_results: 3 })],
    ({ since }) => {
      expectLoaded("calendar.calendar__calendar_events_create")(since);
      return [
        functionCall("calendar", "calendar__calendar_events_create", {
          summary: "Design review",
          start: "2026-12-04T10:00:00Z",
          end: "2026-12-04T10:30:00Z",
          attendees: ["dana@example.com"],
        }),
      ];
    },
    () => [toolSearchCall({ query: "reserve a room" })],
    () => [toolSearchCall({ query: "conference room booking" })],
    () => [toolSearchCall({ query: "meeting space" })],
    ({ since }) => {
      const refusal = since.find((i): i is MessageItem => i.type === "message" && i.role === "developer");
      if (!refusal || !String(refusal.content).includes("search-budget-exhausted"))
        throw new Error("script diverged: expected the budget error");
      return [
        say(
          "The design review is on your calendar for Friday 10:00 with Dana. I found no tool to " +
            "book a room, so please book one yourself.",
        ),
      ];
    },
    // Turn 2
    () => [toolSearchCall({ query: "send email", max_results: 2 })],
    ({ since }) => {
      expectLoaded("email.email__sendEmail")(since);
      return [
        functionCall("email", "email__sendEmail", {
          to: ["dana@example.com"],
          subject: "Design review agenda",
          body: "1. Goals\n2. Open questions\n3. Next steps",
        }),
      ];
    },
    () => [say("I've emailed Dana the agenda.")],
  ];
}

/**
 * POST /search inside the session, answered the way the Responses API expects: the tool_search_output item for the
 * call.
 */
async function searchCall(
  session: SessionClient,
  call: ToolSearchCallItem,
  turn: number,
  transcript: Transcript,
  log: Log,
): Promise<Item[]> {
  const args = call.arguments as { query?: string; tool_id?: string; max_results?: number };
  const query = args.query ?? args.tool_id ?? "";
  try {
    const found = await session.search({ ...args, format: "openai-tool-search-output", call_id: call.call_id });
    const items = found.input_items as Item[];
    const loaded = loadedBy(searchOutput(items));
    transcript.searches.push({ turn, query, outcome: loaded.length ? "found" : "nothing", loaded });
    const answer = loaded.length
      ? `tool_search_output ${loaded.join(", ")}`
      : `nothing matched: ${brief(found.message, 110)}`;
    log(`    tool-search: ${answer}`);
    log(
      `                 activated ` +
        `${found.activated.length ? found.activated.join(", ") : "nothing new"}; budget ` +
        `${found.budget!.used}/${found.budget!.cap}`,
    );
    return items;
  } catch (e) {
    // A spent budget (429) or an unknown tool_id (404): the answer carries the items to give the model.
    if (!(e instanceof ToolSearchError) || !e.body.input_items) throw e;
    const items = e.body.input_items as Item[];
    transcript.searches.push({
      turn,
      query,
      outcome: "refused",
      loaded: [],
      error: { error: e.body.error, budgetCap: e.body.budgetCap },
    });
    log(
      `    tool-search: ${e.status} empty tool_search_output + developer message ` +
        `${brief(JSON.parse(String((items[1] as { content: string }).content)), 100)}`,
    );
    return items;
  }
}

/** A function call: resolved in the session and run (lib/conversation.ts), its answer a function_call_output. */
async function toolCall(
  api: TenantClient,
  session: SessionClient,
  call: FunctionCallItem,
  turn: number,
  transcript: Transcript,
  log: Log,
): Promise<FunctionCallOutputItem> {
  const answer = await resolveAndRun(
    api,
    session,
    { name: call.name, args: JSON.parse(call.arguments) as Record<string, unknown> },
    turn,
    transcript.calls,
    log,
  );
  return { type: "function_call_output", call_id: call.call_id, output: answer.text };
}

export async function run(target: ExampleTarget, log: Log = consoleLog): Promise<Transcript> {
  const api = new ToolSearchClient({ url: target.url, token: target.key }).tenant(target.tenant);
  const model = new ScriptedResponsesApi(script());
  const { created, session } = await planAndOpenSession(api, log, 400_000, "example-openai");

  heading(log, "2. tools for every request: GET .../catalog/export");
  const tools = (await api.catalogExportAll({ format: "openai-responses" })) as unknown as Tool[];
  const namespaces = tools.filter((t) => t.type === "namespace");
  const deferred = namespaces.flatMap((n) => n.tools).filter((f) => f.defer_loading).length;
  log(
    `  tool_search (execution: client) and ${namespaces.length} namespaces: ` +
      `${namespaces.map((n) => n.name).join(", ")}; ${deferred} functions deferred`,
  );

  const transcript: Transcript = {
    sessionId: created.session_id,
    tools: { namespaces: namespaces.length, deferred },
    searches: [],
    calls: [],
    replies: [],
  };
  const input: Item[] = [];

  async function agentTurn(turn: number, userText: string): Promise<void> {
    heading(log, `turn ${turn}`);
    log(`  user: ${userText}`);
    input.push({ type: "message", role: "user", content: userText });
    for (;;) {
      const response = await model.create({ model: "gpt-5.4", tools, input });
      input.push(...response.output);
      const answers: Item[] = [];
      for (const item of response.output) {
        if (item.type === "message") {
          const reply = typeof item.content === "string" ? item.content : item.content.map((c) => c.text).join("");
          log(`  model: ${reply}`);
          transcript.replies.push(reply);
        } else if (item.type === "tool_search_call") {
          log(`  model -> tool_search_call ${brief(item.arguments, 110)}`);
          answers.push(...(await searchCall(session, item, turn, transcript, log)));
        } else {
          log(`  model -> function_call ${item.namespace}.${item.name} ${brief(item.arguments, 100)}`);
          answers.push(await toolCall(api, session, item, turn, transcript, log));
        }
      }
      if (answers.length === 0) return;
      input.push(...answers);
    }
  }

  await playConversation(session, model, agentTurn, log);
  return transcript;
}

runIfMain(import.meta.url, run);
