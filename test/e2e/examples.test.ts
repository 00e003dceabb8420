/**
 * The runnable examples (examples/), run as a user runs them after `npm start`: against a real
 * local worker with the demo catalog, the model's side scripted. So they never rot: a change that
 * breaks the flow they show fails here.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run as runAnthropic } from "../../examples/anthropic-messages.ts";
import { run as runOpenAI } from "../../examples/openai-responses.ts";
import type { ExampleTarget } from "../../examples/lib/connect.ts";
import { DEMO_TENANT, uploadDemoCatalog } from "../../scripts/demo.ts";
import { startLocalWorker, type LocalWorker } from "../../scripts/local-worker.ts";
import { ToolSearchClient } from "../../src/client/index.ts";

describe("the examples, against wrangler dev with the demo catalog", () => {
  let worker: LocalWorker;
  let target: ExampleTarget;
  const lines: string[] = [];
  const log = (line: string) => lines.push(line);

  beforeAll(async () => {
    worker = await startLocalWorker();
    const operator = new ToolSearchClient({ url: worker.url, token: worker.adminToken });
    await operator.createTenant({ id: DEMO_TENANT });
    const { key } = await operator.tenant(DEMO_TENANT).keys.create({ scopes: ["search", "write", "admin"] });
    await uploadDemoCatalog(new ToolSearchClient({ url: worker.url, token: key }).tenant(DEMO_TENANT));
    target = { url: worker.url, key, tenant: DEMO_TENANT };
  });
  afterAll(async () => {
    await worker?.stop();
  });

  const turnOne = ["found", "nothing", "nothing", "refused"];
  const budgetError = { error: "search-budget-exhausted", budgetCap: 3 };

  it("Anthropic Messages: tool_reference answers, resolve, the budget error, the next turn", async () => {
    const t = await runAnthropic(target, log);
    expect(t.tools).toEqual({ total: 76, deferred: 65 });
    expect(t.searches.filter((s) => s.turn === 1).map((s) => s.outcome)).toEqual(turnOne);
    expect(t.searches[0]!.references).toContain("calendar__calendar_events_create");
    expect(t.searches[3]!.error).toEqual(budgetError);
    expect(t.searches.filter((s) => s.turn === 2).map((s) => s.outcome)).toEqual(["found"]);
    expect(t.calls.map((c) => [c.turn, c.toolId])).toEqual([
      [1, "calendar::calendar.events.create"],
      [2, "email::sendEmail"],
    ]);
    expect(t.replies).toHaveLength(2);
    expect(lines.join("\n")).toContain("POST .../sessions/");
  });

  it("OpenAI Responses: tool_search_output answers, resolve, the budget error, the next turn", async () => {
    const t = await runOpenAI(target, log);
    expect(t.tools).toEqual({ namespaces: 12, deferred: 65 });
    expect(t.searches.filter((s) => s.turn === 1).map((s) => s.outcome)).toEqual(turnOne);
    expect(t.searches[0]!.loaded).toContain("calendar.calendar__calendar_events_create");
    expect(t.searches[3]!.error).toEqual(budgetError);
    expect(t.searches.filter((s) => s.turn === 2).map((s) => s.outcome)).toEqual(["found"]);
    expect(t.calls.map((c) => [c.turn, c.toolId])).toEqual([
      [1, "calendar::calendar.events.create"],
      [2, "email::sendEmail"],
    ]);
    expect(t.replies).toHaveLength(2);
  });
});
