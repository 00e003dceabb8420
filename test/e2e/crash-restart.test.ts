/**
 * A crash of the local runtime (SIGKILL of wrangler and workerd, nothing flushed or cleaned up)
 * keeps every acknowledged write: keys (and revocations), settings, tools, sessions and the audit
 * trail. A 10,000-tool upload in flight when the process dies is there whole or not at all.
 */
import { describe, expect, it } from "vitest";
import { api, localWorkers } from "./support.ts";

const tool = (server: string, name: string, description: string) => ({
  server,
  name,
  description,
  inputSchema: { type: "object", properties: {} },
});

describe("a crash of the local runtime", () => {
  const start = localWorkers();

  it("keeps every acknowledged write, and a write in flight is all there or not at all", async () => {
    const first = await start();
    const op = first.adminToken;
    const t = "/v1/tenants/crash";
    expect((await api(first, op, "POST", "/v1/tenants", { id: "crash" })).status).toBe(201);
    const admin = (await api(first, op, "POST", `${t}/keys`, { scopes: ["search", "write", "admin"] })).json
      .key as string;
    const kept = (await api(first, admin, "POST", `${t}/keys`, { scopes: ["search"], label: "kept" })).json
      .key as string;
    const revoked = (await api(first, admin, "POST", `${t}/keys`, { scopes: ["search"], label: "revoked" })).json;
    expect((await api(first, admin, "DELETE", `${t}/keys/${revoked.id}`)).status).toBe(204);
    expect(
      (await api(first, admin, "PATCH", `${t}/settings`, { default_max_results: 7, search_budget: 4 })).status,
    ).toBe(200);

    // Forty small writes at once: each one acknowledged must survive.
    const small = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        api(first, admin, "POST", `${t}/tools`, { tools: [tool(`srv${i % 4}`, `tool_${i}`, `Does task number ${i}`)] }),
      ),
    );
    const acknowledged = small.flatMap((r, i) => (r.status === 200 ? [`srv${i % 4}::tool_${i}`] : []));
    expect(acknowledged.length).toBe(40);
    expect((await api(first, admin, "POST", `${t}/sessions`, { session_id: "chat" })).status).toBe(201);
    const found = await api(first, admin, "POST", `${t}/search`, {
      query: "task number 17",
      max_results: 1,
      session_id: "chat",
    });
    expect(found.json.activated).toEqual(["srv1::tool_17"]);

    // A 10,000-tool upload, and the process killed while it is in flight.
    const big = Array.from({ length: 10_000 }, (_, i) => tool("bulk", `bulk_${i}`, `Bulk tool ${i}`));
    const upload = api(first, admin, "POST", `${t}/tools`, { tools: big }).then(
      (r) => r.status,
      () => "no answer",
    );
    await new Promise((r) => setTimeout(r, 400));
    await first.kill();
    const answer = await upload;

    const second = await start({ persistTo: first.persistTo, adminToken: op });
    // Keys: the revoked one stays revoked, the others work.
    expect((await api(second, kept, "GET", `${t}/catalog`)).status).toBe(200);
    expect((await api(second, revoked.key, "GET", `${t}/catalog`)).status).toBe(401);
    expect((await api(second, admin, "GET", `${t}/settings`)).json).toMatchObject({
      default_max_results: 7,
      search_budget: 4,
    });
    for (const id of acknowledged) expect((await api(second, admin, "GET", `${t}/tools/${id}`)).status, id).toBe(200);
    expect((await api(second, admin, "GET", `${t}/sessions/chat`)).json).toMatchObject({
      activated: ["srv1::tool_17"],
      budget: { used: 1, cap: 4 },
    });

    // The upload in flight: all of it or none of it (and all of it if it was acknowledged).
    const catalog = (await api(second, admin, "GET", `${t}/catalog`)).json;
    const bulk = catalog.servers.find((s: { name: string }) => s.name === "bulk")?.tools ?? 0;
    expect([0, 10_000]).toContain(bulk);
    if (answer === 200) expect(bulk).toBe(10_000);
    expect(catalog.tools).toBe(acknowledged.length + bulk);

    // The audit trail has every acknowledged change, in order.
    const audit = (await api(second, admin, "GET", `${t}/audit?limit=500`)).json.entries as {
      action: string;
      actor: string;
    }[];
    const actions = audit.map((e) => e.action).reverse();
    expect(actions.slice(0, 5)).toEqual(["tenant.create", "key.create", "key.create", "key.create", "key.revoke"]);
    expect(actions.filter((a) => a === "tools.upsert")).toHaveLength(acknowledged.length + (bulk ? 1 : 0));
    expect(actions).toContain("settings.update");
    expect(audit.at(-1)!.actor).toBe("operator");
  });
});
