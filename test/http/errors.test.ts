/** Bad input gets a 4xx with the {error, message} shape and a stable code: never a 5xx, never a stack trace. */
import { describe, expect, it } from "vitest";
import { ERROR_CODES } from "../../src/errors.ts";
import { call, mcpTool, tenantWithKey } from "../helpers.ts";

function expectErrorShape(r: { status: number; body: any; text: string }, status: number, code: string) {
  expect(r.status, r.text).toBe(status);
  expect(r.body.error).toBe(code);
  expect(ERROR_CODES).toContain(r.body.error);
  expect(typeof r.body.message).toBe("string");
  expect(r.text).not.toMatch(/at \S+ \(|\.ts:\d+|stack/i);
}

describe("error responses", () => {
  it("malformed JSON is 400 invalid-request", async () => {
    const { tenant, key } = await tenantWithKey();
    const json = { "content-type": "application/json" };
    expectErrorShape(
      await call("POST", `/v1/tenants/${tenant}/search`, { token: key, raw: "{not json", headers: json }),
      400,
      "invalid-request",
    );
    expectErrorShape(
      await call("POST", `/v1/tenants/${tenant}/tools`, { token: key, raw: "{not json", headers: json }),
      400,
      "invalid-request",
    );
    expectErrorShape(await call("POST", "/v1/tenants", { token: "x", raw: "[", headers: json }), 401, "unauthorized");
  });

  it("wrong types, missing and unknown fields are 400 with the field named", async () => {
    const { tenant, key } = await tenantWithKey();
    const wrongType = await call("POST", `/v1/tenants/${tenant}/search`, { token: key, body: { query: 42 } });
    expectErrorShape(wrongType, 400, "invalid-request");
    expect(wrongType.body.message).toContain("query");
    const unknown = await call("PATCH", `/v1/tenants/${tenant}/settings`, { token: key, body: { colour: "blue" } });
    expectErrorShape(unknown, 400, "invalid-request");
    expect(unknown.body.message).toContain("colour");
    expectErrorShape(
      await call("POST", `/v1/tenants/${tenant}/tools`, { token: key, body: { tool: [] } }),
      400,
      "invalid-request",
    );
    expectErrorShape(
      await call("POST", `/v1/tenants/${tenant}/tools`, { token: key, body: { tools: [], extra: 1 } }),
      400,
      "invalid-request",
    );
    expectErrorShape(
      await call("PATCH", `/v1/tenants/${tenant}/settings`, { token: key, body: { default_max_results: -3 } }),
      400,
      "invalid-request",
    );
  });

  it("a wrong content type is refused with a 4xx that says what to send", async () => {
    const { tenant, key } = await tenantWithKey();
    const r = await call("POST", `/v1/tenants/${tenant}/search`, {
      token: key,
      raw: "query=x",
      headers: { "content-type": "text/plain" },
    });
    expectErrorShape(r, 415, "invalid-request");
    expect(r.body.message).toContain("application/json");
    const tools = await call("POST", `/v1/tenants/${tenant}/tools`, {
      token: key,
      raw: "x",
      headers: { "content-type": "text/csv" },
    });
    expectErrorShape(tools, 400, "invalid-request");
    expect(tools.body.message).toContain("application/x-ndjson");
  });

  it("an oversized body is 413 payload-too-large and writes nothing", async () => {
    const { tenant, key } = await tenantWithKey();
    const huge = { tools: [{ server: "s", ...mcpTool("big", "x".repeat(17 * 1024 * 1024)) }] };
    expectErrorShape(
      await call("POST", `/v1/tenants/${tenant}/tools`, { token: key, body: huge }),
      413,
      "payload-too-large",
    );
    expect((await call("GET", `/v1/tenants/${tenant}/catalog`, { token: key })).body.tools).toBe(0);
  });

  it("unknown routes are 404 not-found", async () => {
    expectErrorShape(await call("GET", "/nope"), 404, "not-found");
    expectErrorShape(await call("PUT", "/healthz"), 404, "not-found");
  });
});
