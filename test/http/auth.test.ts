/** Tenants, keys, scopes and isolation: a key reaches only its own tenant, and only with its scopes. */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  call,
  createKey,
  createTenant,
  mcpTool,
  OPERATOR,
  search,
  tenantWithKey,
  uniqueTenant,
  upsert,
} from "../helpers.ts";

describe("tenants", () => {
  it("only the operator creates tenants; a second create is 409", async () => {
    const id = uniqueTenant();
    expect((await call("POST", "/v1/tenants", { body: { id } })).status).toBe(401);
    expect((await call("POST", "/v1/tenants", { token: "wrong-token-wrong-token", body: { id } })).status).toBe(401);
    const tenant = await tenantWithKey();
    const withKey = await call("POST", "/v1/tenants", { token: tenant.key, body: { id } });
    expect(withKey.status).toBe(403);
    const created = await call("POST", "/v1/tenants", {
      token: OPERATOR,
      body: { id, settings: { default_max_results: 7 } },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id, settings: { default_max_results: 7, search_budget: 3 } });
    const again = await call("POST", "/v1/tenants", { token: OPERATOR, body: { id } });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe("conflict");
  });

  it("validates tenant ids", async () => {
    for (const id of ["", "UPPER", "under_score", "-lead", "x".repeat(64)]) {
      expect((await call("POST", "/v1/tenants", { token: OPERATOR, body: { id } })).status).toBe(400);
    }
    expect((await call("GET", "/v1/tenants/Bad_Id/catalog", { token: OPERATOR })).status).toBe(400);
  });

  it("an operator call on a tenant that does not exist is 404", async () => {
    const r = await call("GET", `/v1/tenants/${uniqueTenant("missing")}/catalog`, { token: OPERATOR });
    expect(r.status).toBe(404);
    expect(r.body.error).toBe("not-found");
  });
});

describe("keys", () => {
  it("are shown once, stored only as a hash, listed without secrets, and revocable at once", async () => {
    const tenant = await createTenant();
    const created = await call("POST", `/v1/tenants/${tenant}/keys`, {
      token: OPERATOR,
      body: { scopes: ["search", "admin"], label: "ci" },
    });
    expect(created.status).toBe(201);
    const { key, id } = created.body as { key: string; id: string };
    // 40 characters of secret, then a 9-character tag (the checksum, as no signing secret is set here).
    expect(key).toMatch(new RegExp(`^tsk_${tenant}_${id}_[A-Za-z0-9]{49}$`));

    const stub = env.TENANTS.get(env.TENANTS.idFromName(tenant));
    const stored = await runInDurableObject(stub, (_o, state) =>
      state.storage.sql.exec("SELECT * FROM keys").toArray(),
    );
    const dump = JSON.stringify(stored, (_k, v) => (v instanceof ArrayBuffer ? [...new Uint8Array(v)] : v));
    expect(dump).not.toContain(key.split("_").pop());

    const listed = await call("GET", `/v1/tenants/${tenant}/keys`, { token: key });
    expect(listed.status).toBe(200);
    expect(listed.text).not.toContain(key);
    expect(listed.body.keys).toEqual([
      expect.objectContaining({ id, scopes: ["search", "admin"], label: "ci", revoked_at: null }),
    ]);

    const other = await createKey(tenant, ["search"], key); // an admin key may create keys
    expect((await call("GET", `/v1/tenants/${tenant}/catalog`, { token: other })).status).toBe(200);
    const otherId = other.split("_")[2];
    expect((await call("DELETE", `/v1/tenants/${tenant}/keys/${otherId}`, { token: key })).status).toBe(204);
    const revoked = await call("GET", `/v1/tenants/${tenant}/catalog`, { token: other });
    expect(revoked.status).toBe(401);
    expect((await call("DELETE", `/v1/tenants/${tenant}/keys/nosuchkey000`, { token: key })).status).toBe(404);
  });

  it("rejects unknown scopes and empty scope lists", async () => {
    const tenant = await createTenant();
    expect((await call("POST", `/v1/tenants/${tenant}/keys`, { token: OPERATOR, body: { scopes: [] } })).status).toBe(
      400,
    );
    expect(
      (await call("POST", `/v1/tenants/${tenant}/keys`, { token: OPERATOR, body: { scopes: ["root"] } })).status,
    ).toBe(400);
  });
});

describe("scopes", () => {
  it("a key may do what its scopes allow and gets 403 for the rest", async () => {
    const tenant = await createTenant();
    const searchKey = await createKey(tenant, ["search"]);
    const writeKey = await createKey(tenant, ["write"]);
    const adminKey = await createKey(tenant, ["admin"]);
    const tools = [{ server: "s", ...mcpTool("a", "Alpha") }];

    expect((await upsert(tenant, writeKey, tools)).status).toBe(200);
    const denied = await upsert(tenant, searchKey, tools);
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ error: "forbidden", required_scope: "write" });
    expect((await upsert(tenant, adminKey, tools)).status).toBe(403);

    expect((await search(tenant, searchKey, { query: "alpha" })).status).toBe(200);
    expect((await search(tenant, writeKey, { query: "alpha" })).status).toBe(403);

    expect((await call("GET", `/v1/tenants/${tenant}/settings`, { token: adminKey })).status).toBe(200);
    expect((await call("GET", `/v1/tenants/${tenant}/settings`, { token: searchKey })).status).toBe(403);
    expect(
      (await call("POST", `/v1/tenants/${tenant}/keys`, { token: writeKey, body: { scopes: ["admin"] } })).status,
    ).toBe(403);
  });

  it("missing or malformed tokens are 401", async () => {
    const { tenant, key } = await tenantWithKey();
    expect((await call("GET", `/v1/tenants/${tenant}/catalog`)).status).toBe(401);
    expect((await call("GET", `/v1/tenants/${tenant}/catalog`, { token: "nonsense" })).status).toBe(401);
    expect((await call("GET", `/v1/tenants/${tenant}/catalog`, { headers: { authorization: key } })).status).toBe(401);
    const tampered = key.slice(0, -1) + (key.endsWith("a") ? "b" : "a");
    expect((await call("GET", `/v1/tenants/${tenant}/catalog`, { token: tampered })).status).toBe(401);
  });
});

describe("isolation", () => {
  it("a key never reaches another tenant's data", async () => {
    const a = await tenantWithKey();
    const b = await tenantWithKey();
    await upsert(a.tenant, a.key, [{ server: "secret", ...mcpTool("a_only_tool", "Only tenant A has this") }]);

    for (const [method, path, body] of [
      ["GET", `/v1/tenants/${a.tenant}/catalog`],
      ["GET", `/v1/tenants/${a.tenant}/tools`],
      ["GET", `/v1/tenants/${a.tenant}/tools/secret::a_only_tool`],
      ["POST", `/v1/tenants/${a.tenant}/search`, { query: "only tenant" }],
      ["POST", `/v1/tenants/${a.tenant}/tools`, { tools: [{ server: "x", ...mcpTool("x", "x") }] }],
      ["DELETE", `/v1/tenants/${a.tenant}/servers/secret`],
      ["GET", `/v1/tenants/${a.tenant}/keys`],
      ["PATCH", `/v1/tenants/${a.tenant}/settings`, { default_max_results: 9 }],
    ] as const) {
      const r = await call(method, path, { token: b.key, ...(body ? { body } : {}) });
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.text).not.toContain("a_only_tool");
    }
    // Tenant B's own search does not see A's tools.
    const own = await search(b.tenant, b.key, { query: "only tenant A has this", threshold: 0 });
    expect(own.body.results).toEqual([]);
    // A's catalog is intact.
    expect((await call("GET", `/v1/tenants/${a.tenant}/catalog`, { token: a.key })).body.tools).toBe(1);
  });

  it("a key forged with another tenant's name but this tenant's format is refused", async () => {
    const a = await tenantWithKey();
    const b = await tenantWithKey();
    const [, , keyId, secret] = b.key.split("_");
    const forged = `tsk_${a.tenant}_${keyId}_${secret}`;
    expect((await call("GET", `/v1/tenants/${a.tenant}/catalog`, { token: forged })).status).toBe(401);
  });
});
