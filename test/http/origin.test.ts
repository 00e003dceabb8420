/**
 * The Origin rule (src/http/origin.ts) on the API and the MCP endpoint: no Origin passes; the service's own origin
 * passes when it is trustworthy (HTTPS, or a loopback host as under wrangler dev); an origin in the tenant's
 * allowed_origins passes; anything else is 403 before the route does any work, and changes nothing.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { isOwnOrigin } from "../../src/http/origin.ts";
import { call, OPERATOR, tenantWithKey, upsert, uniqueTenant } from "../helpers.ts";

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "origin-test", version: "1" } },
};

/** A request to the Worker at `base` (its URL's origin is what the Worker calls its own), with an Origin header. */
async function from(
  base: string,
  origin: string | null,
  method: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${token}`,
    ...(origin ? { origin } : {}),
    ...(body === undefined
      ? {}
      : { "content-type": "application/json", accept: "application/json, text/event-stream" }),
  };
  const res = await exports.default.fetch(
    new Request(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }),
  );
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const EDGE = "https://tool-search.example.workers.dev";

describe("the Origin header", () => {
  it("lets requests without Origin through, and refuses a foreign one with 403 on the API and on MCP", async () => {
    const { tenant, key } = await tenantWithKey();
    expect((await from(EDGE, null, "GET", `/v1/tenants/${tenant}/tools`, key)).status).toBe(200);
    for (const origin of ["https://evil.example", "http://localhost:3000", "null"]) {
      const api = await from(EDGE, origin, "GET", `/v1/tenants/${tenant}/tools`, key);
      expect(api.status, origin).toBe(403);
      expect(api.body).toMatchObject({ error: "forbidden", origin });
      expect(api.body.message).toContain("allowed_origins");
      const mcp = await from(EDGE, origin, "POST", `/v1/tenants/${tenant}/mcp`, key, INITIALIZE);
      expect(mcp.status, origin).toBe(403);
    }
    const create = await from(EDGE, "https://evil.example", "POST", "/v1/tenants", OPERATOR, { id: uniqueTenant() });
    expect(create.status).toBe(403);
  });

  it("refuses before any work: an invalid body is not even read, and a write changes nothing", async () => {
    const { tenant, key } = await tenantWithKey();
    const bad = await from(EDGE, "https://evil.example", "POST", `/v1/tenants/${tenant}/search`, key, { nope: 1 });
    expect(bad.status).toBe(403);
    const tools = [{ server: "s", name: "t", description: "T", inputSchema: { type: "object" } }];
    const write = await from(EDGE, "https://evil.example", "POST", `/v1/tenants/${tenant}/tools`, key, { tools });
    expect(write.status).toBe(403);
    expect((await call("GET", `/v1/tenants/${tenant}/tools`, { token: key })).body.tools).toEqual([]);
  });

  it("lets the service's own pages through: same origin over HTTPS, or on a loopback host", async () => {
    const { tenant, key } = await tenantWithKey();
    for (const base of [EDGE, "http://localhost:8787", "http://127.0.0.1:8787", "http://[::1]:8787"]) {
      expect((await from(base, base, "GET", `/v1/tenants/${tenant}/tools`, key)).status, base).toBe(200);
      expect((await from(base, base, "POST", `/v1/tenants/${tenant}/mcp`, key, INITIALIZE)).status, base).toBe(200);
    }
    const created = await from(EDGE, EDGE, "POST", "/v1/tenants", OPERATOR, { id: uniqueTenant() });
    expect(created.status).toBe(201);
    // DNS rebinding: a page of http://evil.example whose name resolves to the service's address sends both Host and
    // Origin evil.example. Over plain HTTP to a name that is not loopback, the Host proves nothing.
    const rebound = "http://evil.example";
    expect((await from(rebound, rebound, "POST", `/v1/tenants/${tenant}/mcp`, key, INITIALIZE)).status).toBe(403);
    expect((await from(rebound, rebound, "GET", `/v1/tenants/${tenant}/tools`, key)).status).toBe(403);
  });

  it("lets the origins of the tenant's allowed_origins through, and only them", async () => {
    const { tenant, key } = await tenantWithKey();
    const app = "https://app.example.com";
    const patch = await call("PATCH", `/v1/tenants/${tenant}/settings`, {
      token: key,
      body: { allowed_origins: [app, "http://localhost:3000"] },
    });
    expect(patch.status, patch.text).toBe(200);
    expect(patch.body.allowed_origins).toEqual([app, "http://localhost:3000"]);
    expect((await from(EDGE, app, "GET", `/v1/tenants/${tenant}/tools`, key)).status).toBe(200);
    expect((await from(EDGE, app, "POST", `/v1/tenants/${tenant}/mcp`, key, INITIALIZE)).status).toBe(200);
    expect((await from(EDGE, "http://localhost:3000", "GET", `/v1/tenants/${tenant}/tools`, key)).status).toBe(200);
    expect((await from(EDGE, "https://other.example.com", "GET", `/v1/tenants/${tenant}/tools`, key)).status).toBe(403);
    // Another tenant's list does not open this one.
    const other = await tenantWithKey();
    expect((await from(EDGE, app, "GET", `/v1/tenants/${other.tenant}/tools`, other.key)).status).toBe(403);
    // The key is checked first: a wrong key is 401 whatever the origin.
    expect((await from(EDGE, "https://evil.example", "GET", `/v1/tenants/${tenant}/tools`, `${key}x`)).status).toBe(
      401,
    );
  });

  it("takes only origins as browsers send them, and changes nothing when one is not", async () => {
    const { tenant, key } = await tenantWithKey();
    for (const bad of ["https://app.example.com/", "https://App.example.com", "https://app.example.com:443", "*"]) {
      const r = await call("PATCH", `/v1/tenants/${tenant}/settings`, { token: key, body: { allowed_origins: [bad] } });
      expect(r.status, bad).toBe(400);
      expect(r.body.error).toBe("invalid-request");
    }
    expect((await call("GET", `/v1/tenants/${tenant}/settings`, { token: key })).body.allowed_origins).toEqual([]);
    expect((await upsert(tenant, key, [])).status).toBe(200);
  });
});

describe("isOwnOrigin", () => {
  it("trusts the request's origin over HTTPS or on loopback, never a different origin", () => {
    expect(isOwnOrigin("https://a.example", "https://a.example/v1/x")).toBe(true);
    expect(isOwnOrigin("http://localhost:8787", "http://localhost:8787/v1/x")).toBe(true);
    expect(isOwnOrigin("http://a.example", "http://a.example/v1/x")).toBe(false);
    expect(isOwnOrigin("https://b.example", "https://a.example/v1/x")).toBe(false);
    expect(isOwnOrigin("http://localhost:3000", "http://localhost:8787/v1/x")).toBe(false);
    expect(isOwnOrigin("null", "https://a.example/v1/x")).toBe(false);
  });
});
