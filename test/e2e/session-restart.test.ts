/**
 * Sessions across a full restart of the local runtime: the activated set, the turn's budget and the
 * tool list a client rebuilds after context compaction are all there after a new process starts.
 */
import { describe, expect, it } from "vitest";
import { api, localWorkers } from "./support.ts";

describe("sessions across a restart of the local runtime", () => {
  const start = localWorkers();

  it("keeps the activated tools, the budget and the tool list", async () => {
    const first = await start();
    const op = first.adminToken;
    expect((await api(first, op, "POST", "/v1/tenants", { id: "sessions" })).status).toBe(201);
    const key = (await api(first, op, "POST", "/v1/tenants/sessions/keys", { scopes: ["search", "write"] })).json
      .key as string;
    const tools = ["translate_document", "detect_language", "summarize_text"].map((name) => ({
      server: "lang",
      name,
      description: name.replace(/_/g, " "),
      inputSchema: { type: "object", properties: {} },
    }));
    expect((await api(first, key, "POST", "/v1/tenants/sessions/tools", { tools })).status).toBe(200);
    expect((await api(first, key, "POST", "/v1/tenants/sessions/sessions", { session_id: "s1" })).status).toBe(201);
    const found = await api(first, key, "POST", "/v1/tenants/sessions/search", {
      query: "translate document",
      max_results: 1,
      session_id: "s1",
    });
    expect(found.json.activated).toEqual(["lang::translate_document"]);
    const before = await api(first, key, "GET", "/v1/tenants/sessions/sessions/s1/tools?format=anthropic");
    await first.stop();

    const second = await start({ persistTo: first.persistTo, adminToken: op });
    const state = await api(second, key, "GET", "/v1/tenants/sessions/sessions/s1");
    expect(state.status).toBe(200);
    expect(state.json).toMatchObject({
      activated: ["lang::translate_document"],
      budget: { used: 1, cap: 3, remaining: 2 },
    });
    const after = await api(second, key, "GET", "/v1/tenants/sessions/sessions/s1/tools?format=anthropic");
    expect(after.json.tools).toEqual(before.json.tools);
    const resolved = await api(second, key, "POST", "/v1/tenants/sessions/sessions/s1/resolve", {
      name: "lang__translate_document",
    });
    expect(resolved.status).toBe(200);
  });
});
