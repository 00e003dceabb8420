/**
 * The scripted vendor stand-ins hold the examples to the vendors' rules: a harness that skipped a
 * step (no tool_reference, no tool_search_output, an unanswered call) or a script that calls a
 * tool it never loaded fails, instead of passing silently.
 */
import { describe, expect, it } from "vitest";
import { ScriptedMessagesApi, text, toolUse, type AnthropicTool } from "../../examples/lib/anthropic-standin.ts";
import {
  functionCall,
  ScriptedResponsesApi,
  say,
  toolSearchCall,
  type Tool,
} from "../../examples/lib/openai-standin.ts";

const schema = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
const anthropicTools: AnthropicTool[] = [
  { name: "tool_search", input_schema: { type: "object" } },
  { name: "weather__get", input_schema: schema, defer_loading: true },
  { name: "core__ask", input_schema: schema },
];

describe("Anthropic Messages stand-in", () => {
  it("lets the model call a deferred tool only after a tool_reference loaded it", async () => {
    const early = new ScriptedMessagesApi([() => [toolUse("weather__get", { city: "Oslo" })]]);
    await expect(
      early.create({ model: "m", max_tokens: 1, tools: anthropicTools, messages: [{ role: "user", content: "hi" }] }),
    ).rejects.toThrow(/not loaded/);

    const api = new ScriptedMessagesApi([() => [toolUse("weather__get", { city: "Oslo" })]]);
    const call = toolUse("tool_search", { query: "weather" });
    const messages = [
      { role: "user" as const, content: "hi" },
      { role: "assistant" as const, content: [call] },
      {
        role: "user" as const,
        content: [
          {
            type: "tool_result" as const,
            tool_use_id: call.id,
            content: [{ type: "tool_reference" as const, tool_name: "weather__get" }],
          },
        ],
      },
    ];
    expect((await api.create({ model: "m", max_tokens: 1, tools: anthropicTools, messages })).stop_reason).toBe(
      "tool_use",
    );
  });

  it(
    "rejects references to tools not sent deferred, unanswered tool_use, and arguments the " + "schema refuses",
    async () => {
      const call = toolUse("tool_search", { query: "x" });
      const refTo = (name: string) => [
        { role: "user" as const, content: "hi" },
        { role: "assistant" as const, content: [call] },
        {
          role: "user" as const,
          content: [
            {
              type: "tool_result" as const,
              tool_use_id: call.id,
              content: [{ type: "tool_reference" as const, tool_name: name }],
            },
          ],
        },
      ];
      await expect(
        new ScriptedMessagesApi([() => [text("ok")]]).create({
          model: "m",
          max_tokens: 1,
          tools: anthropicTools,
          messages: refTo("core__ask"),
        }),
      ).rejects.toThrow(/defer_loading/);
      const unanswered = [
        { role: "user" as const, content: "hi" },
        { role: "assistant" as const, content: [call] },
      ];
      await expect(
        new ScriptedMessagesApi([() => [text("ok")]]).create({
          model: "m",
          max_tokens: 1,
          tools: anthropicTools,
          messages: unanswered,
        }),
      ).rejects.toThrow(/no tool_result/);
      const bad = new ScriptedMessagesApi([() => [toolUse("core__ask", { town: "Oslo" })]]);
      await expect(
        bad.create({ model: "m", max_tokens: 1, tools: anthropicTools, messages: [{ role: "user", content: "hi" }] }),
      ).rejects.toThrow(/input schema/);
    },
  );
});

const openaiTools: Tool[] = [
  { type: "tool_search", execution: "client" },
  {
    type: "namespace",
    name: "weather",
    description: "Weather",
    tools: [{ type: "function", name: "weather__get", parameters: schema, defer_loading: true }],
  },
];

describe("OpenAI Responses stand-in", () => {
  it("loads a deferred function only through a tool_search_output for the call", async () => {
    const early = new ScriptedResponsesApi([() => [functionCall("weather", "weather__get", { city: "Oslo" })]]);
    await expect(
      early.create({ model: "m", tools: openaiTools, input: [{ type: "message", role: "user", content: "hi" }] }),
    ).rejects.toThrow(/not loaded/);

    const search = toolSearchCall({ query: "weather" });
    const output = {
      type: "tool_search_output" as const,
      call_id: search.call_id,
      execution: "client" as const,
      status: "completed" as const,
      tools: [openaiTools[1]!],
    };
    const api = new ScriptedResponsesApi([() => [functionCall("weather", "weather__get", { city: "Oslo" })]]);
    const response = await api.create({
      model: "m",
      tools: openaiTools,
      input: [{ type: "message", role: "user", content: "hi" }, search, output],
    });
    expect(response.output[0]!.type).toBe("function_call");
  });

  it("rejects an unanswered call and an output for an unknown call", async () => {
    const search = toolSearchCall({ query: "weather" });
    await expect(
      new ScriptedResponsesApi([() => [say("ok")]]).create({ model: "m", tools: openaiTools, input: [search] }),
    ).rejects.toThrow(/has no tool_search_output/);
    const stray = {
      type: "tool_search_output" as const,
      call_id: "call_nope",
      execution: "client" as const,
      status: "completed" as const,
      tools: [],
    };
    await expect(
      new ScriptedResponsesApi([() => [say("ok")]]).create({ model: "m", tools: openaiTools, input: [stray] }),
    ).rejects.toThrow(/unknown call_id/);
  });
});
