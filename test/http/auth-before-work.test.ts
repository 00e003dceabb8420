/**
 * Authentication before any work: no body is read until the caller is known valid for the route,
 * a forged key is refused in the Worker when its tag shows it, and a tenant that does not exist
 * is left without any storage, whatever is sent to it.
 */
import { env } from "cloudflare:workers";
import { createExecutionContext, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { handle } from "../../src/http/app.ts";
import { generateKey, hashSecret, keyTag } from "../../src/tenancy/keys.ts";
import { call, createKey, OPERATOR, tenantWithKey, uniqueTenant } from "../helpers.ts";
import { documentedRoutes } from "../routes.ts";

/** A request body that records whether anyone read it: 2 MB of junk NDJSON lines, produced on demand. */
function trackedBody(bytes = 2 * 1024 * 1024): { stream: ReadableStream<Uint8Array>; pulled: () => boolean } {
  let pulls = 0;
  let sent = 0;
  const chunk = new TextEncoder().encode("x\n".repeat(32 * 1024));
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        pulls += 1;
        if (sent >= bytes) return controller.close();
        controller.enqueue(chunk);
        sent += chunk.byteLength;
      },
    },
    { highWaterMark: 0 }, // nothing is produced until someone reads
  );
  return { stream, pulled: () => pulls > 0 };
}

async function sendTracked(
  method: string,
  path: string,
  token: string | null,
  contentType = "application/x-ndjson",
): Promise<{ status: number; body: any; text: string; pulled: boolean }> {
  const body = trackedBody();
  const headers: Record<string, string> = { "content-type": contentType };
  if (token) headers.authorization = `Bearer ${token}`;
  // The app itself, in this isolate: the stream it is given is the one that records reads (a fetch
  // through the runtime would pump the body across before the app saw it).
  const request = new Request(`http://tool-search.test${path}`, {
    method,
    headers,
    body: body.stream,
    duplex: "half",
  } as RequestInit);
  const res = await handle(request, env as Env, createExecutionContext());
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, text, pulled: body.pulled() };
}

/** Every table and the size of an object's database: an object that was never written has none. */
async function storageOf(tenant: string): Promise<{ tables: string[]; bytes: number }> {
  const stub = env.TENANTS.get(env.TENANTS.idFromName(tenant));
  return runInDurableObject(stub, (_o, state) => ({
    tables: state.storage.sql
      .exec<{ name: string }>(`SELECT name FROM sqlite_master WHERE name NOT LIKE '\\_cf\\_%' ESCAPE '\\'`)
      .toArray()
      .map((r) => r.name),
    bytes: state.storage.sql.databaseSize,
  }));
}

const checksum = (body: string) => keyTag(body, "tool-search key checksum v1");

describe("a tenant that does not exist", () => {
  it("answers 401 to any key and 404 to the operator, and is left with no storage at all", async () => {
    const tenant = uniqueTenant("ghost");
    const body = `tsk_${tenant}_${"k".repeat(12)}_${"S".repeat(40)}`;
    const keys = {
      badTag: `${body}${"A".repeat(9)}`,
      goodChecksum: `${body}${await checksum(body)}`,
      untagged: body, // the form of keys made before tags: only the tenant's object can say it is wrong
    };
    for (const [kind, token] of Object.entries(keys)) {
      for (const [method, path] of [
        ["GET", "/catalog"],
        ["POST", "/search"],
        ["POST", "/sessions"],
        ["POST", "/mcp"],
      ] as const) {
        const r = await call(method, `/v1/tenants/${tenant}${path}`, {
          token,
          ...(method === "POST" ? { body: { query: "x" } } : {}),
        });
        expect(r.status, `${kind} ${method} ${path}`).toBe(401);
        expect(r.body.error).toBe("unauthorized");
      }
      const upload = await sendTracked("POST", `/v1/tenants/${tenant}/tools`, token);
      expect(upload.status, kind).toBe(401);
      expect(upload.pulled, `${kind}: the body was read`).toBe(false);
    }
    expect((await call("GET", `/v1/tenants/${tenant}/catalog`, { token: OPERATOR })).status).toBe(404);
    expect((await call("GET", `/v1/tenants/${tenant}/sessions/s1`, { token: OPERATOR })).status).toBe(404);
    expect(await storageOf(tenant)).toEqual({ tables: [], bytes: expect.any(Number) });
    // Creating it afterwards works as ever, and only then does it have a schema.
    expect((await call("POST", "/v1/tenants", { token: OPERATOR, body: { id: tenant } })).status).toBe(201);
    expect((await storageOf(tenant)).tables).toContain("tools");
  });
});

describe("no body is read before the caller is known valid for the route", () => {
  it("a forged key with 2 MB of junk NDJSON: 401, a small answer, and the body never read", async () => {
    const { tenant, key } = await tenantWithKey();
    const [, , keyId] = key.split("_");
    const body = `tsk_${tenant}_${keyId}_${"Z".repeat(40)}`;
    for (const forged of [`${key.slice(0, -1)}${key.endsWith("A") ? "B" : "A"}`, `${body}${await checksum(body)}`]) {
      const r = await sendTracked("POST", `/v1/tenants/${tenant}/tools`, forged);
      expect(r.status).toBe(401);
      expect(r.pulled).toBe(false);
      expect(r.text.length).toBeLessThan(1024);
    }
  });

  it("a valid key without the route's scope: 403 without reading the body", async () => {
    const { tenant } = await tenantWithKey();
    const searchOnly = await createKey(tenant, ["search"]);
    for (let round = 0; round < 2; round++) {
      // The first time the object says so; the second time the Worker remembers the key's scopes.
      const r = await sendTracked("POST", `/v1/tenants/${tenant}/tools`, searchOnly);
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ error: "forbidden", required_scope: "write" });
      expect(r.pulled).toBe(false);
    }
  });

  it("no token, a wrong operator token, garbage, another tenant's key: refused without reading the body", async () => {
    const { tenant } = await tenantWithKey();
    const other = await tenantWithKey();
    for (const [token, status] of [
      [null, 401],
      ["not-a-token", 401],
      [`${OPERATOR}x`, 401],
      [other.key, 403],
    ] as const) {
      const r = await sendTracked("POST", `/v1/tenants/${tenant}/tools`, token);
      expect(r.status, String(token)).toBe(status);
      expect(r.pulled).toBe(false);
    }
    const create = await sendTracked("POST", "/v1/tenants", "not-the-operator", "application/json");
    expect(create.status).toBe(401);
    expect(create.pulled).toBe(false);
  });

  it("public routes and routes that do not exist read no body", async () => {
    for (const [method, path] of [
      ["POST", "/healthz"],
      ["PUT", "/openapi.json"],
      ["POST", "/docs"],
      ["POST", "/nowhere"],
      ["POST", "/v1/nothing/here"],
    ] as const) {
      const r = await sendTracked(method, path, null, "application/json");
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.pulled, `${method} ${path}`).toBe(false);
    }
  });

  it("every documented route with a body: a forged key (401) or one without the scope (403) reads none", async () => {
    const { tenant, key } = await tenantWithKey();
    const keys = { search: await createKey(tenant, ["search"]), write: await createKey(tenant, ["write"]) };
    // For each scope, a valid key of the tenant that lacks it (the operator's routes: a key with every scope).
    const lacking = { search: keys.write, write: keys.search, admin: keys.search, operator: key } as const;
    const forged = `${key.slice(0, -1)}${key.endsWith("A") ? "B" : "A"}`;
    const routes = (await documentedRoutes()).filter((r) => r.method !== "GET" && r.access !== "none");
    // New routes (the learned routes among them) are in this list as soon as they are documented.
    expect(routes.map((r) => r.id)).toContain("DELETE /v1/tenants/{tenant}/learned");
    expect(routes.length).toBeGreaterThan(15);
    for (const route of routes) {
      const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => (name === "tenant" ? tenant : "x"));
      // Any tenant key, forged or not, is not the operator (the access matrix's rule).
      for (const [token, status] of [
        [forged, route.access === "operator" ? 403 : 401],
        [lacking[route.access as keyof typeof lacking], 403],
      ] as const) {
        const r = await sendTracked(route.method, path, token, "application/json");
        expect(r.status, `${route.id}: ${r.text}`).toBe(status);
        expect(r.pulled, `${route.id} read the body of a ${status}`).toBe(false);
      }
    }
  });

  it("a valid key with the scope: the body is read and the request served", async () => {
    const { tenant, key } = await tenantWithKey();
    const r = await call("POST", `/v1/tenants/${tenant}/tools`, {
      token: key,
      raw: `${JSON.stringify({ server: "s", name: "t", description: "A tool", inputSchema: { type: "object" } })}\n`,
      headers: { "content-type": "application/x-ndjson" },
    });
    expect(r.status, r.text).toBe(200);
  });
});

describe("key tags", () => {
  it("keys made before tags (no tag) keep working; the tenant's object checks them", async () => {
    const { tenant } = await tenantWithKey();
    const legacy = { keyId: "legacy000001", secret: "L".repeat(40) };
    const stub = env.TENANTS.get(env.TENANTS.idFromName(tenant));
    const hash = await hashSecret(legacy.secret);
    await runInDurableObject(stub, (_o, state) => {
      state.storage.sql.exec(
        `INSERT INTO keys (id, hash, scopes, label, created_at) VALUES (?, ?, '["search"]', 'legacy', ?)`,
        legacy.keyId,
        hash,
        Date.now(),
      );
    });
    const token = `tsk_${tenant}_${legacy.keyId}_${legacy.secret}`;
    expect((await call("GET", `/v1/tenants/${tenant}/catalog`, { token })).status).toBe(200);
    expect((await call("GET", `/v1/tenants/${tenant}/catalog`, { token: `${token.slice(0, -1)}M` })).status).toBe(401);
  });

  it("with KEY_SIGNING_SECRET and REQUIRE_SIGNED_KEYS, only keys signed with it pass the Worker", async () => {
    const { tenant } = await tenantWithKey();
    const secret = "s".repeat(32);
    const signingEnv = { ...env, KEY_SIGNING_SECRET: `${"n".repeat(32)},${secret}`, REQUIRE_SIGNED_KEYS: "true" };
    const fetchSigned = async (token: string) => {
      const request = new Request(`http://tool-search.test/v1/tenants/${tenant}/catalog`, {
        headers: { authorization: `Bearer ${token}` },
      });
      return (await handle(request, signingEnv as Env, createExecutionContext())).status;
    };
    // A key signed with the second (older) secret: still valid, as during a rotation.
    const signed = await generateKey(tenant, secret);
    const stub = env.TENANTS.get(env.TENANTS.idFromName(tenant));
    const hash = await hashSecret(signed.secret);
    await runInDurableObject(stub, (_o, state) => {
      state.storage.sql.exec(
        `INSERT INTO keys (id, hash, scopes, label, created_at) VALUES (?, ?, '["search"]', 'signed', ?)`,
        signed.keyId,
        hash,
        Date.now(),
      );
    });
    expect(await fetchSigned(signed.key)).toBe(200);
    // This pool's object has no signing secret, so its keys carry the public checksum: refused when
    // signing is required, without a call to the object.
    const checksumKey = await createKey(tenant, ["search"]);
    expect(await fetchSigned(checksumKey)).toBe(401);
    expect(await fetchSigned(`tsk_${tenant}_${signed.keyId}_${signed.secret}`)).toBe(401);
    // A forger who knows the checksum but not the secret.
    const body = `tsk_${tenant}_${signed.keyId}_${signed.secret}`;
    expect(await fetchSigned(`${body}${await checksum(body)}`)).toBe(401);
  });
});
