/**
 * Any valid catalog uploads: two tools whose names map to one model-facing name (`solve.quadratic_equation` and
 * `solve_quadratic_equation` on one server, both valid MCP names) both upload; the later one gets a short suffix,
 * stored with it, so the names stay the same across evictions, snapshot restores, re-uploads in another order and
 * new tools arriving. Search, resolve and every output format use them.
 */
import { evictDurableObject, runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { assignModelNames, modelName } from "../../src/catalog/tool.ts";
import { call, mcpTool, search, tenantWithKey, upsert } from "../helpers.ts";
import { newSession, sessionPath } from "./session-helpers.ts";

const stubOf = (tenant: string) => env.TENANTS.get(env.TENANTS.idFromName(tenant));

const DOTTED = { server: "solve", ...mcpTool("solve.quadratic_equation", "Solve a quadratic equation ax^2+bx+c=0") };
const PLAIN = { server: "solve", ...mcpTool("solve_quadratic_equation", "Find the roots of a quadratic polynomial") };
const USUAL = "solve__solve_quadratic_equation";

async function modelNames(tenant: string, key: string): Promise<Record<string, string>> {
  const page = await call("GET", `/v1/tenants/${tenant}/tools?server=solve`, { token: key });
  expect(page.status, page.text).toBe(200);
  return Object.fromEntries(
    page.body.tools.map((t: { tool_id: string; model_name: string }) => [t.tool_id, t.model_name]),
  );
}

describe("tools whose model-facing names would be the same", () => {
  it("uploads both; the later one gets a suffix, listed in the answer", async () => {
    const { tenant, key } = await tenantWithKey();
    const r = await upsert(tenant, key, [DOTTED, PLAIN]);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ added: 2 });
    // In one batch, the tool whose name is already model-safe keeps the usual name, whatever the order.
    const suffixed = r.body.renamed[0].model_name as string;
    expect(r.body.renamed).toEqual([{ tool_id: "solve::solve.quadratic_equation", model_name: suffixed }]);
    expect(suffixed).toMatch(/^solve__solve_quadratic_equation_[0-9a-f]{6}$/);
    expect(await modelNames(tenant, key)).toEqual({
      "solve::solve.quadratic_equation": suffixed,
      "solve::solve_quadratic_equation": USUAL,
    });

    // The reverse order in a fresh tenant gives the same names.
    const other = await tenantWithKey();
    const reversed = await upsert(other.tenant, other.key, [PLAIN, DOTTED]);
    expect(reversed.body.renamed).toEqual(r.body.renamed);
  });

  it("finds both by tool_id, by query and by resolve, in every format, before and after a restart", async () => {
    const { tenant, key } = await tenantWithKey();
    const others = ["read_file", "send_email", "create_event", "list_issues", "get_forecast", "convert_currency"].map(
      (name) => ({ server: "misc", ...mcpTool(name, `A tool to ${name.replace("_", " ")}`) }),
    );
    expect((await upsert(tenant, key, [DOTTED, PLAIN, ...others])).status).toBe(200);
    const names = await modelNames(tenant, key);
    const session = await newSession(tenant, key);

    const check = async () => {
      for (const [id, name] of Object.entries(names)) {
        const byId = await search(tenant, key, { tool_id: id, format: "anthropic" });
        expect(byId.body.results[0]).toMatchObject({ tool_id: id, model_name: name, definition: { name } });
        // The model searches for the name it was shown: that tool comes first.
        const byName = await search(tenant, key, { query: name });
        expect(byName.body.results[0]).toMatchObject({ tool_id: id, model_name: name, match: "exact-name" });
        for (const format of ["mcp", "anthropic", "openai", "openai-responses"]) {
          const tool = await call("GET", `/v1/tenants/${tenant}/tools/${id}?format=${format}`, { token: key });
          const definition = tool.body.definition;
          expect(definition.name ?? definition.function.name).toBe(name);
        }
      }
      const byQuery = await search(tenant, key, { query: "quadratic equation", session_id: session });
      expect(byQuery.body.results.map((r: { tool_id: string }) => r.tool_id).sort()).toEqual(Object.keys(names).sort());
      for (const [id, name] of Object.entries(names)) {
        const resolved = await call("POST", sessionPath(tenant, session, "/resolve"), {
          token: key,
          body: { name, format: "openai" },
        });
        expect(resolved.status, resolved.text).toBe(200);
        expect(resolved.body).toMatchObject({ name, tool_id: id, definition: { function: { name } } });
      }
      const list = await call("GET", sessionPath(tenant, session, "/tools?format=anthropic"), { token: key });
      const listed = list.body.tools.map((t: { name: string }) => t.name);
      expect(listed).toEqual(expect.arrayContaining(Object.values(names)));
      const exported = await call("GET", `/v1/tenants/${tenant}/catalog/export?format=anthropic`, { token: key });
      expect(exported.body.tools.map((t: { name: string }) => t.name)).toEqual(
        expect.arrayContaining(Object.values(names)),
      );
      const references = await search(tenant, key, {
        query: "quadratic equation",
        format: "anthropic-tool-reference",
        call_id: "toolu_1",
      });
      expect(references.body.tool_result.content.map((c: { tool_name: string }) => c.tool_name).sort()).toEqual(
        Object.values(names).sort(),
      );
    };

    await check();
    // Cold start from the snapshot the alarm writes, then a cold start that rebuilds from the rows.
    expect(await runDurableObjectAlarm(stubOf(tenant))).toBe(true);
    await evictDurableObject(stubOf(tenant));
    await check();
    expect((await call("GET", `/v1/tenants/${tenant}/catalog`, { token: key })).body.index.source).toBe("snapshot");
    await evictDurableObject(stubOf(tenant));
    expect(await modelNames(tenant, key)).toEqual(names);
    await check();
  }, 20_000);

  it("keeps each tool's name when the catalog is uploaded again in another order or another tool arrives", async () => {
    const { tenant, key } = await tenantWithKey();
    // Separate batches: the first tool to arrive keeps the usual name, even the one that needed replacing.
    expect((await upsert(tenant, key, [DOTTED])).body.renamed).toBeUndefined();
    const later = await upsert(tenant, key, [PLAIN]);
    const suffixed = later.body.renamed[0].model_name as string;
    expect(later.body.renamed).toEqual([{ tool_id: "solve::solve_quadratic_equation", model_name: suffixed }]);
    const names = { "solve::solve.quadratic_equation": USUAL, "solve::solve_quadratic_equation": suffixed };
    expect(await modelNames(tenant, key)).toEqual(names);

    // Re-uploads in either order, a changed description, a replacement of the server: nothing flips.
    const again = await upsert(tenant, key, [PLAIN, DOTTED]);
    expect(again.body).toMatchObject({ unchanged: 2, renamed: [{ tool_id: "solve::solve_quadratic_equation" }] });
    expect((await upsert(tenant, key, [{ ...DOTTED, description: "Solve ax^2+bx+c=0 for x" }])).status).toBe(200);
    const replaced = await call("PUT", `/v1/tenants/${tenant}/servers/solve/tools`, {
      token: key,
      body: { tools: [PLAIN, DOTTED].map(({ server: _s, ...t }) => t) },
    });
    expect(replaced.status, replaced.text).toBe(200);
    expect(await modelNames(tenant, key)).toEqual(names);
    await evictDurableObject(stubOf(tenant));
    expect(await modelNames(tenant, key)).toEqual(names);

    // A third tool with the same usual name gets a suffix of its own.
    const third = await upsert(tenant, key, [{ server: "solve", ...mcpTool("solve.quadratic.equation", "Third") }]);
    const thirdName = third.body.renamed[0].model_name as string;
    expect(new Set([USUAL, suffixed, thirdName]).size).toBe(3);

    // When the holder of the usual name leaves, the others keep theirs; a tool arriving later may take it.
    expect(
      (await call("DELETE", `/v1/tenants/${tenant}/tools/solve::solve.quadratic_equation`, { token: key })).status,
    ).toBe(200);
    expect((await modelNames(tenant, key))["solve::solve_quadratic_equation"]).toBe(suffixed);
    expect((await upsert(tenant, key, [DOTTED])).body.renamed).toBeUndefined();
    expect((await modelNames(tenant, key))["solve::solve.quadratic_equation"]).toBe(USUAL);
  }, 20_000);

  it("frees a name in the same replacement that removes its holder", async () => {
    const { tenant, key } = await tenantWithKey();
    expect((await upsert(tenant, key, [DOTTED])).status).toBe(200);
    const replaced = await call("PUT", `/v1/tenants/${tenant}/servers/solve/tools`, {
      token: key,
      body: { tools: [mcpTool("solve_quadratic_equation", "Now the only one")] },
    });
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body.renamed).toBeUndefined();
    expect(await modelNames(tenant, key)).toEqual({ "solve::solve_quadratic_equation": USUAL });
  });
});

describe("assignModelNames", () => {
  it("depends only on the tool ids, not on their order, and falls back when a suffix is taken", () => {
    const tools = ["a.b", "a_b", "a-b"].map((name) => ({ id: `s::${name}`, server: "s", name }));
    const forward = assignModelNames(tools, () => false);
    const backward = assignModelNames([...tools].reverse(), () => false);
    expect(forward).toEqual(backward);
    expect(forward.get("s::a_b")).toBe("s__a_b");
    expect(new Set(forward.values()).size).toBe(3);
    for (const name of forward.values()) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);

    // Every name a tool would try is taken except a later attempt: it still gets a unique, valid one.
    const first = assignModelNames([tools[0]!], (name) => name === "s__a_b")!.get("s::a.b")!;
    const fallback = assignModelNames([tools[0]!], (name) => name === "s__a_b" || name === first).get("s::a.b")!;
    expect(fallback).not.toBe(first);
    expect(fallback).toMatch(/^s__a_b_[0-9a-f]{6}$/);
  });

  it("keeps suffixed long names within 64 characters", () => {
    const tool = { id: `${"x".repeat(40)}::${"a_".repeat(20)}`, server: "x".repeat(40), name: "a_".repeat(20) };
    const usual = modelName(tool);
    expect(usual).toHaveLength(64);
    const name = assignModelNames([tool], (n) => n === usual).get(tool.id)!;
    expect(name).not.toBe(usual);
    expect(name).toMatch(/^[A-Za-z0-9_-]{64}$/);
  });
});
