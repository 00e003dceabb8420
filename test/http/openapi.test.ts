/** /openapi.json documents every route the app serves, from the same zod schemas that validate them. */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { schemasFor } from "../../src/catalog/batch.ts";
import { DEFAULT_LIMITS } from "../../src/config/limits.ts";
import { SettingsPatchSchema, SettingsSchema } from "../../src/tenancy/settings.ts";
import * as schemas from "../../src/contract/schemas.ts";
import * as sessionSchemas from "../../src/contract/session-schemas.ts";
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
  ["get", "/v1/tenants/{tenant}/synonyms"],
  ["put", "/v1/tenants/{tenant}/synonyms"],
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
    expect(Object.keys(r.body.components.schemas.SearchRequest.properties)).toEqual(
      expect.arrayContaining(["tool_id", "query", "max_results"]),
    );
    const tools = r.body.paths["/v1/tenants/{tenant}/tools"].post.requestBody.content;
    expect(Object.keys(tools)).toEqual(["application/json", "application/x-ndjson"]);
    expect(JSON.stringify(r.body.components.schemas)).toContain("McpToolInput");
  });
});

describe("examples in /openapi.json", () => {
  const documented = [
    schemas.ErrorSchema,
    schemas.CreateTenantSchema,
    schemas.TenantSchema,
    schemas.CreateKeySchema,
    schemas.KeyInfoSchema,
    schemas.CreatedKeySchema,
    SettingsSchema,
    SettingsPatchSchema,
    schemas.toolBatchBodySchema(DEFAULT_LIMITS),
    schemas.serverToolsBodySchema(DEFAULT_LIMITS),
    schemasFor(DEFAULT_LIMITS).byFormat.mcp,
    schemas.ToolBatchResultSchema,
    schemas.ToolSummarySchema,
    schemas.ToolPageSchema,
    schemas.ToolDetailSchema,
    schemas.CatalogSchema,
    schemas.searchRequestSchema(DEFAULT_LIMITS),
    schemas.SearchResultSchema,
    schemas.SearchResponseSchema,
    sessionSchemas.createSessionBodySchema(DEFAULT_LIMITS),
    sessionSchemas.SessionSchema,
    sessionSchemas.setToolsBodySchema(DEFAULT_LIMITS),
    sessionSchemas.SetToolsResultSchema,
    sessionSchemas.ToolListSchema,
    sessionSchemas.ResolveRequestSchema,
    sessionSchemas.ResolveResponseSchema,
    sessionSchemas.DeferredListSchema,
    sessionSchemas.PlanRequestSchema,
    sessionSchemas.PlanResponseSchema,
    sessionSchemas.ToolResultObjectSchema,
  ];

  it("are valid by the schema they illustrate, and reach the document", async () => {
    const doc = (await call("GET", "/openapi.json")).body;
    for (const schema of documented) {
      const meta = z.globalRegistry.get(schema) as { id: string; example?: unknown };
      expect(meta.example, `${meta.id} has an example`).toBeDefined();
      const parsed = schema.safeParse(meta.example);
      expect(parsed.success, `${meta.id} example: ${parsed.error?.message}`).toBe(true);
      expect(doc.components.schemas[meta.id]?.example, `${meta.id} in the document`).toEqual(meta.example);
    }
  });
});

describe("/docs", () => {
  it("serves the interactive reference of /openapi.json, loading nothing from elsewhere", async () => {
    const r = await call("GET", "/docs");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/^text\/html/);
    expect(r.text).toContain("/openapi.json");
    expect([...r.text.matchAll(/https?:\/\/[^\s"'<>)]+/g)].map((m) => m[0])).toEqual([]);
  });
});
