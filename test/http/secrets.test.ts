/**
 * Keys and secrets: no key, token or tool body ever reaches a log line, and tokens are compared in
 * constant time (as SHA-256 digests of equal length, with the runtime's timingSafeEqual).
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { keyTag } from "../../src/tenancy/keys.ts";
import { call, createKey, createTenant, OPERATOR, uniqueTenant } from "../helpers.ts";

const LEVELS = ["log", "info", "warn", "error", "debug", "trace"] as const;

/** Everything written to the console while `work` runs, as text. */
async function captureConsole(work: () => Promise<void>): Promise<string> {
  const lines: string[] = [];
  const spies = LEVELS.map((level) =>
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(" "))),
  );
  try {
    await work();
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  return lines.join("\n");
}

afterEach(() => vi.restoreAllMocks());

describe("logs", () => {
  it("never contain a key, the operator token or a tool's body, whatever happens", async () => {
    const body = {
      description: "BODY-MARKER-descr Convert currencies",
      param: "BODY-MARKER-param",
      result: "BODY-MARKER-result",
    };
    const secrets: string[] = [OPERATOR];
    const tenant = uniqueTenant();
    const logs = await captureConsole(async () => {
      await createTenant(tenant);
      const key = await createKey(tenant, ["search", "write", "admin"]);
      secrets.push(key, key.split("_")[3]!);
      const h = { token: key };
      const tool = {
        server: "fx",
        name: "convert",
        description: body.description,
        inputSchema: { type: "object", properties: { amount: { type: "number", description: body.param } } },
      };
      await call("POST", `/v1/tenants/${tenant}/tools`, { ...h, body: { tools: [tool] } });
      await call("POST", `/v1/tenants/${tenant}/tools`, {
        ...h,
        body: { tools: [{ ...tool, inputSchema: "not an object" }] },
      });
      await call("POST", `/v1/tenants/${tenant}/search`, { ...h, body: { query: "convert currencies" } });
      const session = (await call("POST", `/v1/tenants/${tenant}/sessions`, { ...h, body: {} })).body.session_id;
      await call("POST", `/v1/tenants/${tenant}/search`, { ...h, body: { query: "convert", session_id: session } });
      await call("POST", `/v1/tenants/${tenant}/sessions/${session}/resolve`, { ...h, body: { name: "fx__convert" } });
      await call("POST", `/v1/tenants/${tenant}/tool-results`, {
        ...h,
        body: { content: [{ type: "text", text: body.result }] },
      });
      // Refusals of every kind: bad, tampered, revoked and foreign tokens, malformed bodies.
      await call("GET", `/v1/tenants/${tenant}/catalog`, { token: `${key.slice(0, -1)}x` });
      await call("GET", `/v1/tenants/${tenant}/catalog`, { token: `${OPERATOR}x` });
      await call("POST", "/v1/tenants", { token: key, body: { id: uniqueTenant() } });
      await call("POST", `/v1/tenants/${tenant}/search`, {
        ...h,
        raw: `{"query": "${body.description}"`,
        headers: { "content-type": "application/json" },
      });
      const doomed = await createKey(tenant, ["search"]);
      secrets.push(doomed);
      await call("DELETE", `/v1/tenants/${tenant}/keys/${doomed.split("_")[2]}`, h);
      await call("GET", `/v1/tenants/${tenant}/catalog`, { token: doomed });
      // An internal error (storage broken under the object) is logged: by its class only.
      const stub = env.TENANTS.get(env.TENANTS.idFromName(tenant));
      await runInDurableObject(
        stub,
        (_o, state) => void state.storage.sql.exec("ALTER TABLE tools RENAME TO tools_gone"),
      );
      const broken = await call("GET", `/v1/tenants/${tenant}/tools/fx::convert`, h);
      expect(broken.status).toBe(500);
      expect(broken.body).toEqual({ error: "internal", message: expect.any(String) });
    });
    expect(logs, "the internal error was logged (so the capture works)").toMatch(/internal error on GET/);
    for (const secret of secrets) expect(logs).not.toContain(secret);
    for (const text of Object.values(body)) expect(logs).not.toContain(text);
  });
});

describe("token comparison", () => {
  it(
    "compares the operator token and tenant keys as equal-length digests with the runtime's " +
      "constant-time equality",
    async () => {
      const tenant = await createTenant();
      const key = await createKey(tenant, ["search"]);
      const compare = vi.spyOn(crypto.subtle, "timingSafeEqual");
      const lengths = () =>
        compare.mock.calls.map(([a, b]) => [(a as ArrayBufferView).byteLength, (b as ArrayBufferView).byteLength]);

      // Wrong operator tokens of any length, right or wrong prefix: each a 32-byte against 32-byte comparison.
      for (const token of ["x", OPERATOR.slice(0, 5), `${OPERATOR}-and-more`, "y".repeat(500)]) {
        compare.mockClear();
        expect((await call("POST", "/v1/tenants", { token, body: { id: uniqueTenant() } })).status).toBe(401);
        expect(lengths()).toEqual([[32, 32]]);
      }
      compare.mockClear();
      expect((await call("GET", `/v1/tenants/${tenant}/catalog`, { token: OPERATOR })).status).toBe(200);
      expect(lengths()).toEqual([[32, 32]]);

      // A tenant key: the operator check, then the key's secret against its stored digest in the
      // object: once by the check before the body is read, once by the call that does the work.
      compare.mockClear();
      expect((await call("GET", `/v1/tenants/${tenant}/catalog`, { token: key })).status).toBe(200);
      expect(lengths()).toEqual([
        [32, 32],
        [32, 32],
        [32, 32],
      ]);
      // Seen valid a moment ago: the Worker skips the check before the body; the object still compares.
      compare.mockClear();
      expect((await call("GET", `/v1/tenants/${tenant}/catalog`, { token: key })).status).toBe(200);
      expect(lengths()).toEqual([
        [32, 32],
        [32, 32],
      ]);
      // A mistyped key fails its checksum in the Worker: no comparison against a stored digest at all.
      compare.mockClear();
      const tampered = key.slice(0, -1) + (key.endsWith("A") ? "B" : "A");
      expect((await call("GET", `/v1/tenants/${tenant}/catalog`, { token: tampered })).status).toBe(401);
      expect(lengths()).toEqual([[32, 32]]);
      // A wrong secret with a valid checksum (anyone can compute one) reaches the object's comparison.
      compare.mockClear();
      const [, , keyId] = key.split("_");
      const body = `tsk_${tenant}_${keyId}_${"Q".repeat(40)}`;
      const forged = `${body}${await keyTag(body, "tool-search key checksum v1")}`;
      expect((await call("GET", `/v1/tenants/${tenant}/catalog`, { token: forged })).status).toBe(401);
      expect(lengths()).toEqual([
        [32, 32],
        [32, 32],
      ]);
    },
  );
});

describe("forged keys", () => {
  it("cost the tenant's object no memory: key ids that do not exist are looked up, never cached", async () => {
    const tenant = await createTenant();
    const key = await createKey(tenant, ["search"]);
    expect((await call("GET", `/v1/tenants/${tenant}/catalog`, { token: key })).status).toBe(200);
    for (let i = 0; i < 200; i++) {
      const forged = `tsk_${tenant}_${i.toString(36).padStart(12, "0")}_${"A".repeat(40)}`;
      expect((await call("GET", `/v1/tenants/${tenant}/catalog`, { token: forged })).status).toBe(401);
    }
    const stub = env.TENANTS.get(env.TENANTS.idFromName(tenant));
    const cached = await runInDurableObject(
      stub,
      (instance) => (instance as unknown as { keys: Map<string, unknown> }).keys.size,
    );
    expect(cached).toBe(1);
  });
});
