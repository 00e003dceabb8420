import { describe, expect, it } from "vitest";
import { call, mcpTool } from "../helpers.ts";
import { newSession, resolve, sessionPath, sessionSearch, tenantWithCatalog } from "./session-helpers.ts";

describe("resolve and the rescue message", () => {
  it("answers a tool that is not active with 409 tool-not-active and the exact rescue message", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const id = await newSession(tenant, key);
    const r = await resolve(tenant, key, id, "send_email");
    expect(r.status).toBe(409);
    expect(r.body).toEqual({
      error: "tool-not-active",
      message:
        "Tool 'send_email' not in active set. Call tool_search(query='send_email') to discover " +
        "it, or use one of: core__ask_user",
      in_catalog: true,
    });
  });

  it("answers a tool that is not in the catalog at all with the same way out", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const id = await newSession(tenant, key);
    const r = await resolve(tenant, key, id, "startExport");
    expect(r.status).toBe(409);
    expect(r.body.message).toBe(
      "Tool 'startExport' not in active set. Call tool_search(query='startExport') to discover " +
        "it, or use one of: core__ask_user",
    );
    expect(r.body.in_catalog).toBe(false);
  });

  it(
    "lists every always-loaded and session tool name in the message, and ends plainly when " + "there are none",
    async () => {
      const { tenant, key } = await tenantWithCatalog({}, [{ server: "a", ...mcpTool("x", "X things") }]);
      const bare = await newSession(tenant, key);
      expect((await resolve(tenant, key, bare, "x")).body.message).toBe(
        "Tool 'x' not in active set. Call tool_search(query='x') to discover it.",
      );
      const withTools = await newSession(tenant, key, {
        tools: [mcpTool("page_search", "Search this page"), mcpTool("page_read", "Read this page")],
      });
      expect((await resolve(tenant, key, withTools, "x")).body.message).toBe(
        "Tool 'x' not in active set. Call tool_search(query='x') to discover it, or use one of: page_search, page_read",
      );
    },
  );

  it("accepts the model-facing name, the tool id or the bare name of an active tool", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const id = await newSession(tenant, key);
    await sessionSearch(tenant, key, id, { tool_id: "calendar::create_event" });
    for (const name of ["calendar__create_event", "calendar::create_event", "create_event"]) {
      const r = await resolve(tenant, key, id, name);
      expect(r.status, `${name}: ${r.text}`).toBe(200);
      expect(r.body.tool_id).toBe("calendar::create_event");
    }
    const anthropic = await resolve(tenant, key, id, "create_event", "anthropic");
    expect(anthropic.body.definition).toEqual({
      name: "calendar__create_event",
      description: "Create a calendar event with attendees",
      input_schema: expect.any(Object),
    });
  });

  it("asks which one when a bare name matches several active tools", async () => {
    const { tenant, key } = await tenantWithCatalog({ search_budget: 5 }, [
      { server: "gitlab", ...mcpTool("list_issues", "List GitLab issues") },
      { server: "github", ...mcpTool("list_issues", "List GitHub issues") },
    ]);
    const id = await newSession(tenant, key);
    await sessionSearch(tenant, key, id, { tool_id: "gitlab::list_issues" });
    await sessionSearch(tenant, key, id, { tool_id: "github::list_issues" });
    const r = await resolve(tenant, key, id, "list_issues");
    expect(r.status).toBe(409);
    expect(r.body.error).toBe("conflict");
    expect(r.body.tool_ids).toEqual(["gitlab::list_issues", "github::list_issues"]);
    expect((await resolve(tenant, key, id, "github::list_issues")).status).toBe(200);
  });

  it("resolves tool_search itself and the session's client tools", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const id = await newSession(tenant, key, { tools: [mcpTool("page_search", "Search this page")] });
    expect((await resolve(tenant, key, id, "tool_search")).body.source).toBe("tool_search");
    const own = await resolve(tenant, key, id, "page_search");
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ source: "session", tool_id: null, name: "page_search" });
  });

  it("gives an unknown session a 404 that names the way out", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const r = await resolve(tenant, key, "never-made", "fs__read_file");
    expect(r.status).toBe(404);
    expect(r.body.message).toContain("Create one with POST");
    expect(r.body.session_id).toBe("never-made");
  });
});

describe("always-loaded tools, derived from the rows", () => {
  it("loads a tool whose own defer is never, and every tool of a server whose defer_tools is never", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const put = await call("PUT", `/v1/tenants/${tenant}/servers/fs/tools`, {
      token: key,
      body: {
        defer_tools: "never",
        tools: [mcpTool("read_file", "Read a file"), mcpTool("write_file", "Write a file", {}, { defer: "auto" })],
      },
    });
    expect(put.status, put.text).toBe(200);
    const id = await newSession(tenant, key);
    const state = await call("GET", sessionPath(tenant, id), { token: key });
    expect(state.body.always_loaded).toEqual(["core::ask_user", "fs::read_file", "fs::write_file"]);
    expect((await resolve(tenant, key, id, "fs__write_file")).body.source).toBe("always-loaded");
    // The server's declaration is kept by later replaces that do not mention it...
    await call("PUT", `/v1/tenants/${tenant}/servers/fs/tools`, {
      token: key,
      body: { tools: [mcpTool("read_file", "Read a file")] },
    });
    expect((await call("GET", sessionPath(tenant, id), { token: key })).body.always_loaded).toEqual([
      "core::ask_user",
      "fs::read_file",
    ]);
    // ...and changed by one that does.
    await call("PUT", `/v1/tenants/${tenant}/servers/fs/tools`, {
      token: key,
      body: { defer_tools: "auto", tools: [mcpTool("read_file", "Read a file")] },
    });
    expect((await call("GET", sessionPath(tenant, id), { token: key })).body.always_loaded).toEqual(["core::ask_user"]);
  });

  it("follows the tenant's default_defer for tools that say nothing, not for tools that say auto", async () => {
    const { tenant, key } = await tenantWithCatalog({}, [
      { server: "a", ...mcpTool("silent", "says nothing") },
      { server: "a", ...mcpTool("auto", "says auto", {}, { defer: "auto" }) },
    ]);
    const id = await newSession(tenant, key);
    expect((await call("GET", sessionPath(tenant, id), { token: key })).body.always_loaded).toEqual([]);
    const patch = await call("PATCH", `/v1/tenants/${tenant}/settings`, {
      token: key,
      body: { default_defer: "never" },
    });
    expect(patch.status, patch.text).toBe(200);
    expect((await call("GET", sessionPath(tenant, id), { token: key })).body.always_loaded).toEqual(["a::silent"]);
  });

  it("loads the tools a custom agent names inline, unless it opts into deferred_tool_loading", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const inline = ["fs::read_file", "weather__get_forecast", "send_email", "no_such_tool"];
    const named = await newSession(tenant, key, { inline });
    const state = await call("GET", sessionPath(tenant, named), { token: key });
    expect(state.body.always_loaded).toEqual([
      "core::ask_user",
      "fs::read_file",
      "weather::get_forecast",
      "mail::send_email",
    ]);
    expect(state.body.inline_unresolved).toEqual(["no_such_tool"]);
    expect((await resolve(tenant, key, named, "send_email")).status).toBe(200);

    const deferred = await newSession(tenant, key, { inline, deferred_tool_loading: true });
    const dstate = await call("GET", sessionPath(tenant, deferred), { token: key });
    expect(dstate.body.always_loaded).toEqual(["core::ask_user"]);
    const r = await resolve(tenant, key, deferred, "send_email");
    expect(r.status).toBe(409);
    expect((await sessionSearch(tenant, key, deferred, { query: "send email" })).body.activated).toContain(
      "mail::send_email",
    );
    expect((await resolve(tenant, key, deferred, "send_email")).status).toBe(200);
  });
});
