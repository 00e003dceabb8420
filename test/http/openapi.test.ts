/** /openapi.json documents every route the app serves, from the same zod schemas that validate them. */
import { describe, expect, it } from "vitest";
import { call } from "../helpers.ts";

const ROUTES = [
  ["post", "/v1/tenants"],
  ["post", "/v1/tenants/{tenant}/keys"],
  ["get", "/v1/tenants/{tenant}/keys"],
  ["delete", "/v1/tenants/{tenant}/keys/{keyId}"],
  ["get", "/v1/tenants/{tenant}/settings"],
  ["patch", "/v1/tenants/{tenant}/settings"],
  ["post", "/v1/tenants/{tenant}/tools"],
  ["put", "/v1/tenants/{tenant}/servers/{server}/tools"],
  ["delete", "/v1/tenants/{tenant}/servers/{server}"],
  ["get", "/v1/tenants/{tenant}/tools"],
  ["get", "/v1/tenants/{tenant}/tools/{tool_id}"],
  ["delete", "/v1/tenants/{tenant}/tools/{tool_id}"],
  ["get", "/v1/tenants/{tenant}/catalog"],
  ["post", "/v1/tenants/{tenant}/search"],
] as const;

describe("/openapi.json", () => {
  it("is an OpenAPI 3.1 document of every route, with request schemas and error responses", async () => {
    const r = await call("GET", "/openapi.json");
    expect(r.status).toBe(200);
    expect(r.body.openapi).toBe("3.1.0");
    for (const [method, path] of ROUTES) {
      const op = r.body.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op.responses["401"], `${method} ${path} documents 401`).toBeDefined();
    }
    const search = r.body.paths["/v1/tenants/{tenant}/search"].post;
    expect(search.requestBody.content["application/json"].schema.$ref).toBe("#/components/schemas/SearchRequest");
    expect(Object.keys(r.body.components.schemas.SearchRequest.properties)).toEqual(expect.arrayContaining(["tool_id", "query", "max_results"]));
    const tools = r.body.paths["/v1/tenants/{tenant}/tools"].post.requestBody.content;
    expect(Object.keys(tools)).toEqual(["application/json", "application/x-ndjson"]);
    expect(JSON.stringify(r.body.components.schemas)).toContain("McpToolInput");
  });
});
