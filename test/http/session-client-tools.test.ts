import { describe, expect, it } from "vitest";
import { call, mcpTool } from "../helpers.ts";
import { newSession, sessionPath, tenantStub, tenantWithCatalog, toolList } from "./session-helpers.ts";

function setTools(tenant: string, key: string, id: string, tools: unknown[]) {
  return call("PUT", sessionPath(tenant, id, "/tools"), { token: key, body: { tools } });
}

describe("session client tools (setTools)", () => {
  it("replaces the whole set in one step; an empty list removes them", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const id = await newSession(tenant, key);
    const first = await setTools(tenant, key, id, [
      mcpTool("page_search", "Search this page"),
      { name: "page_read", description: "Read", input_schema: { type: "object" } },
    ]);
    expect(first.status, first.text).toBe(200);
    expect(first.body).toEqual({ session_id: id, tools_version: 1, tools: ["page_search", "page_read"] });
    const second = await setTools(tenant, key, id, [
      { type: "function", function: { name: "cart_add", description: "Add to cart", parameters: { type: "object" } } },
    ]);
    expect(second.body).toEqual({ session_id: id, tools_version: 2, tools: ["cart_add"] });
    const list = await toolList(tenant, key, id, "openai-responses");
    expect(
      list.body.entries.filter((e: { source: string }) => e.source === "session").map((e: { name: string }) => e.name),
    ).toEqual(["cart_add"]);
    const empty = await setTools(tenant, key, id, []);
    expect(empty.body.tools).toEqual([]);
    expect((await call("GET", sessionPath(tenant, id), { token: key })).body.session_tools).toEqual([]);
  });

  it("rejects invalid names and keeps the previous set", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const id = await newSession(tenant, key, { tools: [mcpTool("keep_me", "Stay")] });
    const bad = [
      [mcpTool("has.dot", "dots are not model-safe")],
      [mcpTool("srv__tool", "double underscore reads as a catalog name")],
      [mcpTool("tool_search", "reserved")],
      [mcpTool("x".repeat(65), "too long")],
      [mcpTool("dup", "one"), mcpTool("dup", "two")],
      [{ ...mcpTool("with_server", "catalog field"), server: "fs" }],
    ];
    for (const tools of bad) {
      const r = await setTools(tenant, key, id, tools);
      expect(r.status, `${JSON.stringify(tools).slice(0, 80)}: ${r.text}`).toBe(400);
      expect(r.body.error).toBe("invalid-request");
      expect(r.body.items[0].reasons.length).toBeGreaterThan(0);
    }
    const state = await call("GET", sessionPath(tenant, id), { token: key });
    expect(state.body.session_tools).toEqual(["keep_me"]);
    expect(state.body.tools_version).toBe(1);
  });

  it("rejects a name that is a catalog tool's model-facing name and keeps the previous set", async () => {
    // A server name of 54+ characters gives shortened catalog names without '__': the only way to clash.
    const server = "a".repeat(60);
    const { tenant, key } = await tenantWithCatalog({}, [{ server, ...mcpTool("tool", "A tool") }]);
    const catalogName = (await call("GET", `/v1/tenants/${tenant}/tools/${server}::tool`, { token: key })).body
      .model_name as string;
    expect(catalogName).not.toContain("__");
    const id = await newSession(tenant, key, { tools: [mcpTool("keep_me", "Stay")] });
    const r = await setTools(tenant, key, id, [mcpTool("fine", "ok"), mcpTool(catalogName, "clash")]);
    expect(r.status, r.text).toBe(409);
    expect(r.body.clashes).toEqual([catalogName]);
    expect((await call("GET", sessionPath(tenant, id), { token: key })).body.session_tools).toEqual(["keep_me"]);
    const create = await call("POST", sessionPath(tenant), {
      token: key,
      body: { tools: [mcpTool(catalogName, "clash")] },
    });
    expect(create.status).toBe(409);
  });

  it("applies concurrent replacements one at a time, each with its own version, the last one winning", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const id = await newSession(tenant, key);
    const replies = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        setTools(tenant, key, id, [mcpTool(`tool_${i}`, `set ${i}`), mcpTool(`extra_${i}`, "x")]),
      ),
    );
    for (const r of replies) expect(r.status, r.text).toBe(200);
    const versions = replies.map((r) => r.body.tools_version).sort((a, b) => a - b);
    expect(versions).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const last = replies.find((r) => r.body.tools_version === 8)!;
    const state = await call("GET", sessionPath(tenant, id), { token: key });
    expect(state.body.session_tools).toEqual(last.body.tools);
    expect(state.body.tools_version).toBe(8);
  });
});

describe("setTools ordering at the object", () => {
  it("applies replacements in the order they reach the session's object", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const id = await newSession(tenant, key);
    const stub = tenantStub(tenant) as unknown as {
      setSessionTools(
        caller: unknown,
        id: string,
        tools: unknown[],
      ): Promise<{ ok: boolean; value: { tools_version: number; tools: string[] } }>;
    };
    const tool = (name: string) => ({
      name,
      title: null,
      description: name,
      inputSchema: { type: "object" },
      outputSchema: null,
      annotations: null,
    });
    // Sent one after the other on one stub without waiting: they arrive in this order.
    const pending = ["first", "second", "third", "fourth"].map((name) =>
      stub.setSessionTools({ kind: "operator" }, id, [tool(name)]),
    );
    const results = await Promise.all(pending);
    expect(results.map((r) => [r.value.tools_version, r.value.tools[0]])).toEqual([
      [1, "first"],
      [2, "second"],
      [3, "third"],
      [4, "fourth"],
    ]);
    expect((await call("GET", sessionPath(tenant, id), { token: key })).body.session_tools).toEqual(["fourth"]);
  });
});
