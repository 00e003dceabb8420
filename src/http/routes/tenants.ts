/** Tenants (operator), their API keys and settings (admin). */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import { SettingsPatchSchema, SettingsSchema } from "../../config/settings.ts";
import { tenantStub, type AppEnv } from "../context.ts";
import { expectOk } from "../errors.ts";
import { BEARER, errorResponses, jsonBody, jsonContent } from "../openapi.ts";
import { CreatedKeySchema, CreateKeySchema, CreateTenantSchema, KeyListSchema, TenantIdSchema, TenantSchema } from "../schemas.ts";

const tenantParam = z.object({ tenant: TenantIdSchema });

const createTenant = createRoute({
  method: "post",
  path: "/v1/tenants",
  tags: ["tenants"],
  summary: "Create a tenant (operator token)",
  security: BEARER,
  request: { body: jsonBody(CreateTenantSchema) },
  responses: { 201: jsonContent(TenantSchema, "Created"), ...errorResponses("forbidden", "conflict") },
});

const createKey = createRoute({
  method: "post",
  path: "/v1/tenants/{tenant}/keys",
  tags: ["keys"],
  summary: "Create an API key (operator or admin scope); the key is shown once",
  security: BEARER,
  request: { params: tenantParam, body: jsonBody(CreateKeySchema) },
  responses: { 201: jsonContent(CreatedKeySchema, "Created"), ...errorResponses("forbidden", "not-found", "conflict") },
});

const listKeys = createRoute({
  method: "get",
  path: "/v1/tenants/{tenant}/keys",
  tags: ["keys"],
  summary: "List API keys, without secrets (admin scope)",
  security: BEARER,
  request: { params: tenantParam },
  responses: { 200: jsonContent(KeyListSchema, "The keys"), ...errorResponses("forbidden", "not-found") },
});

const revokeKey = createRoute({
  method: "delete",
  path: "/v1/tenants/{tenant}/keys/{keyId}",
  tags: ["keys"],
  summary: "Revoke an API key, effective immediately (admin scope)",
  security: BEARER,
  request: { params: tenantParam.extend({ keyId: z.string().max(64) }) },
  responses: { 204: { description: "Revoked" }, ...errorResponses("forbidden", "not-found") },
});

const getSettings = createRoute({
  method: "get",
  path: "/v1/tenants/{tenant}/settings",
  tags: ["settings"],
  summary: "Read the tenant's settings (admin scope)",
  security: BEARER,
  request: { params: tenantParam },
  responses: { 200: jsonContent(SettingsSchema, "The settings"), ...errorResponses("forbidden", "not-found") },
});

const patchSettings = createRoute({
  method: "patch",
  path: "/v1/tenants/{tenant}/settings",
  tags: ["settings"],
  summary: "Change some settings (admin scope); null resets a field weight or the threshold to the default",
  security: BEARER,
  request: { params: tenantParam, body: jsonBody(SettingsPatchSchema) },
  responses: { 200: jsonContent(SettingsSchema, "The settings after the change"), ...errorResponses("forbidden", "not-found") },
});

export function registerTenantRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(createTenant, async (c) => {
    // The operator token was checked by the app's middleware for this path.
    const { id, settings } = c.req.valid("json");
    return c.json(expectOk(await tenantStub(c.env, id).createTenant(id, settings)), 201);
  });

  app.openapi(createKey, async (c) => {
    const { scopes, label } = c.req.valid("json");
    return c.json(expectOk(await c.get("tenant").createKey(c.get("caller"), scopes, label ?? null)), 201);
  });

  app.openapi(listKeys, async (c) => {
    return c.json({ keys: expectOk(await c.get("tenant").listKeys(c.get("caller"))) }, 200);
  });

  app.openapi(revokeKey, async (c) => {
    expectOk(await c.get("tenant").revokeKey(c.get("caller"), c.req.valid("param").keyId));
    return c.body(null, 204);
  });

  app.openapi(getSettings, async (c) => {
    return c.json(expectOk(await c.get("tenant").getSettings(c.get("caller"))), 200);
  });

  app.openapi(patchSettings, async (c) => {
    return c.json(expectOk(await c.get("tenant").patchSettings(c.get("caller"), c.req.valid("json"))), 200);
  });
}
