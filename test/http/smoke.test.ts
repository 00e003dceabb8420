import { describe, expect, it } from "vitest";
import { call, mcpTool, search, tenantWithKey, upsert } from "../helpers.ts";

describe("smoke", () => {
  it("creates a tenant, uploads tools and finds them", async () => {
    const { tenant, key } = await tenantWithKey();
    const up = await upsert(tenant, key, [
      {
        server: "fs",
        ...mcpTool("read_file", "Read the contents of a file", { path: { type: "string", description: "File path" } }),
      },
      { server: "weather", ...mcpTool("getWeather", "Current weather for a city", { city: { type: "string" } }) },
    ]);
    expect(up.status, up.text).toBe(200);
    expect(up.body).toMatchObject({ added: 2, updated: 0, unchanged: 0, removed: 0, revision: 1 });
    const r = await search(tenant, key, { query: "read file" });
    expect(r.status, r.text).toBe(200);
    expect(r.body.results[0].tool_id).toBe("fs::read_file");
    const health = await call("GET", "/healthz");
    expect(health.status).toBe(200);
  });
});
