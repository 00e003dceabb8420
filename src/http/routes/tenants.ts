/** Tenants (operator), their API keys and settings (admin). */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import type { ServiceConfig } from "../../config/env.ts";
import { SettingsPatchSchema, SettingsSchema } from "../../tenancy/settings.ts";
import { tenantStub, type AppEnv } from "../context.ts";
import { expectOk, refuse } from "../errors.ts";
import { registeredCreation } from "../lifecycle.ts";
import { requires, errorResponses, jsonBody, jsonContent } from "../openapi.ts";
import {
  auditQuerySchema,
  AuditPageSchema,
  CreatedKeySchema,
  createKeySchema,
  CreateTenantSchema,
  KeyListSchema,
  TenantIdSchema,
  TenantSchema,
} from "../../contract/schemas.ts";

const tenantParam = z.object({ tenant: TenantIdSchema });

const createTenant = createRoute({
  method: "post",
  path: "/v1/tenants",
  tags: ["tenants"],
  summary: "Create a tenant (operator token)",
  security: requires("operator"),
  request: { body: jsonBody(CreateTenantSchema) },
  responses: { 201: jsonContent(TenantSchema, "Created"), ...errorResponses("forbidden", "conflict") },
});

function createKeyRoute(config: ServiceConfig) {
  return createRoute({
    method: "post",
    path: "/v1/tenants/{tenant}/keys",
    tags: ["keys"],
    summary: "Create an API key (operator or admin scope); the key is shown once",
    security: requires("admin"),
    request: { params: tenantParam, body: jsonBody(createKeySchema(config.limits)) },
    responses: {
      201: jsonContent(CreatedKeySchema, "Created"),
      ...errorResponses("forbidden", "not-found", "conflict"),
    },
  });
}

const listKeys = createRoute({
  method: "get",
  path: "/v1/tenants/{tenant}/keys",
  tags: ["keys"],
  summary: "List API keys, without secrets (admin scope)",
  security: requires("admin"),
  request: { params: tenantParam },
  responses: { 200: jsonContent(KeyListSchema, "The keys"), ...errorResponses("forbidden", "not-found") },
});

const revokeKey = createRoute({
  method: "delete",
  path: "/v1/tenants/{tenant}/keys/{keyId}",
  tags: ["keys"],
  summary: "Revoke an API key, effective immediately (admin scope)",
  security: requires("admin"),
  request: { params: tenantParam.extend({ keyId: z.string().max(64) }) },
  responses: { 204: { description: "Revoked" }, ...errorResponses("forbidden", "not-found") },
});

const getSettings = createRoute({
  method: "get",
  path: "/v1/tenants/{tenant}/settings",
  tags: ["settings"],
  summary: "Read the tenant's settings (admin scope)",
  security: requires("admin"),
  request: { params: tenantParam },
  responses: { 200: jsonContent(SettingsSchema, "The settings"), ...errorResponses("forbidden", "not-found") },
});

const patchSettings = createRoute({
  method: "patch",
  path: "/v1/tenants/{tenant}/settings",
  tags: ["settings"],
  summary: "Change some settings (admin scope); null resets a field weight or the threshold to the default",
  security: requires("admin"),
  request: { params: tenantParam, body: jsonBody(SettingsPatchSchema) },
  responses: {
    200: jsonContent(SettingsSchema, "The settings after the change"),
    ...errorResponses("forbidden", "not-found"),
  },
});

function auditRoute(config: ServiceConfig) {
  return createRoute({
    method: "get",
    path: "/v1/tenants/{tenant}/audit",
    tags: ["audit"],
    summary: "The audit trail: key, settings and catalog changes, newest first (admin scope)",
    description:
      "One entry per change to keys (created, revoked), settings, or the catalog (tools upserted, a server replaced " +
      "or deleted, a tool deleted), written in the same storage transaction as the change: who (`operator` or " +
      "`key:<id>`), what, when, the catalog revision, and ids and counts (never secrets or tool bodies). Writes that " +
      "change nothing are not recorded. Retention: the newest `audit_max_entries` (10,000) entries, none older than " +
      "`audit_max_age_days` (90).",
    security: requires("admin"),
    request: { params: tenantParam, query: auditQuerySchema(config.limits) },
    responses: { 200: jsonContent(AuditPageSchema, "A page of entries"), ...errorResponses("forbidden", "not-found") },
  });
}

/** Audit cursors: the sequence number to continue below, opaque to clients. */
function encodeAuditCursor(seq: number): string {
  return btoa(`audit:${seq}`).replace(/=+$/, "");
}

function decodeAuditCursor(cursor: string): number | null {
  try {
    const m = /^audit:(\d{1,15})$/.exec(atob(cursor));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

export function registerTenantRoutes(app: OpenAPIHono<AppEnv>, config: ServiceConfig): void {
  const createKey = createKeyRoute(config);

  app.openapi(auditRoute(config), async (c) => {
    const { cursor, limit } = c.req.valid("query");
    const before = cursor === undefined ? undefined : decodeAuditCursor(cursor);
    if (before === null) refuse("invalid-request", "cursor is not one this API returned; start again without it.");
    const page = expectOk(await c.get("tenant").auditTrail(c.get("caller"), { before, limit }));
    const last = page.entries.at(-1);
    return c.json({ entries: page.entries, next_cursor: page.more && last ? encodeAuditCursor(last.seq) : null }, 200);
  });
  app.openapi(createTenant, async (c) => {
    // The operator token was checked by the app's middleware for this path.
    const { id, settings } = c.req.valid("json");
    const created = await registeredCreation(c.env, id, "tenant.create", () =>
      tenantStub(c.env, id).createTenant(id, settings),
    );
    return c.json(created, 201);
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
