/**
 * Persistence across a full restart of the local runtime: everything acknowledged before wrangler
 * (and its workerd) is stopped is there, searchable, after a new process starts on the same storage.
 */
import { describe, expect, it } from "vitest";
import { api, localWorkers } from "./support.ts";

describe("a full restart of the local runtime", () => {
  const start = localWorkers();

  it("keeps tenants, keys, tools and search", async () => {
    const first = await start();
    const op = first.adminToken;
    const tenant = await api(first, op, "POST", "/v1/tenants", { id: "restart" });
    expect(tenant.status, JSON.stringify(tenant.json)).toBe(201);
    const key = (await api(first, op, "POST", "/v1/tenants/restart/keys", { scopes: ["search", "write"] })).json
      .key as string;
    const tools = Array.from({ length: 50 }, (_, i) => ({
      server: i % 2 ? "alpha" : "beta",
      name: `tool_${i}`,
      description: i === 17 ? "Translate a document between languages" : `Does thing number ${i}`,
      inputSchema: { type: "object", properties: {} },
    }));
    const up = await api(first, key, "POST", "/v1/tenants/restart/tools", { tools });
    expect(up.status, JSON.stringify(up.json)).toBe(200);
    await first.stop();

    const second = await start({ persistTo: first.persistTo, adminToken: op });
    const catalog = await api(second, key, "GET", "/v1/tenants/restart/catalog");
    expect(catalog.status, JSON.stringify(catalog.json)).toBe(200);
    expect(catalog.json).toMatchObject({ revision: up.json.revision, tools: 50 });
    const found = await api(second, key, "POST", "/v1/tenants/restart/search", { query: "translate document" });
    expect(found.json.results?.[0]?.tool_id, JSON.stringify(found.json)).toBe("alpha::tool_17");
  });
});
