/**
 * The examples' harness where it does not depend on the model API: the plan and the session
 * before the conversation, the two user turns it plays, and running a tool the model called.
 * Each example keeps what is vendor-specific: its tools, its search answers, its agent loop.
 */
import { ToolSearchError, type SessionClient, type TenantClient } from "../../src/client/index.ts";
import { isMain, targetFromEnv, type ExampleTarget } from "./connect.ts";
import { brief, heading, type Log } from "./log.ts";
import { runOnMcpServer } from "./mcp-servers.ts";

/** Steps 0 and 1: whether tool search pays off for this context window, then a session for the conversation. */
export async function planAndOpenSession(api: TenantClient, log: Log, contextWindow: number, sessionPrefix: string) {
  heading(log, "0. plan");
  const plan = await api.plan({ context_window: contextWindow });
  log(`  enabled: ${plan.enabled} (${plan.reason}): ${plan.message}`);
  log("  (this example goes on with tool search either way, to show the flow)");

  heading(log, "1. session");
  const created = await api.sessions.create({ session_id: `${sessionPrefix}-${Date.now().toString(36)}` });
  const session = api.session(created.session_id);
  log(
    `  ${created.session_id}: turn ${created.turn}, ${created.budget.cap} searches per turn, ` +
      `always loaded: ${created.always_loaded.length} tools`,
  );
  return { created, session };
}

/** One turn of the agent: the user's message in, model steps until the model answers. */
export type AgentTurn = (turn: number, userText: string) => Promise<void>;

/**
 * The conversation both examples play: two user messages, each starting a turn. Afterwards the
 * model's script must be used up (a step left over means the harness skipped one) and the session ends.
 */
export async function playConversation(
  session: SessionClient,
  model: { remainingSteps: number },
  agentTurn: AgentTurn,
  log: Log,
): Promise<void> {
  await agentTurn(
    1,
    "Put a 30-minute design review with dana@example.com on my calendar for Friday at 10:00, and book us a room.",
  );

  // The user's next message starts the next turn: the search budget starts again, activated tools stay.
  const next = await session.startTurn({ turn: 2 });
  log("");
  log(`POST .../sessions/${next.session_id}/turns -> turn ${next.turn}, budget ${next.budget.used}/${next.budget.cap}`);
  await agentTurn(2, "Thanks. Please email Dana the agenda.");

  if (model.remainingSteps !== 0) throw new Error(`script error: ${model.remainingSteps} model steps were never used`);
  await session.end();
}

export interface ToolCallRecord {
  turn: number;
  name: string;
  toolId: string;
  result: string;
}

/**
 * A tool the model called: resolved in the session (is it active? which server runs it?), run
 * there, its result converted. A tool that is not active answers with the 409's message, which
 * tells the model how to find it.
 */
export async function resolveAndRun(
  api: TenantClient,
  session: SessionClient,
  call: { name: string; args: Record<string, unknown> },
  turn: number,
  calls: ToolCallRecord[],
  log: Log,
): Promise<{ text: string; isError: boolean }> {
  try {
    const resolved = await session.resolve({ name: call.name });
    const result = await api.convertToolResult(runOnMcpServer(resolved.tool_id!, call.args));
    calls.push({ turn, name: call.name, toolId: resolved.tool_id!, result: result.textResultForLlm });
    log(
      `    resolve: ${resolved.tool_id} (${resolved.source}) -> run on server ` +
        `'${resolved.tool_id!.split("::")[0]}': ${brief(result.textResultForLlm, 100)}`,
    );
    return { text: result.textResultForLlm, isError: result.resultType === "failure" };
  } catch (e) {
    if (!(e instanceof ToolSearchError) || e.code !== "tool-not-active") throw e;
    log(`    resolve: 409 ${brief(e.body.message, 120)}`);
    return { text: e.body.message, isError: true };
  }
}

/**
 * Runs an example when Node was started with it (not when a test imports it); a failure prints its message and exits 1.
 */
export function runIfMain(moduleUrl: string, run: (target: ExampleTarget) => Promise<unknown>): void {
  if (!isMain(moduleUrl)) return;
  run(targetFromEnv()).catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
