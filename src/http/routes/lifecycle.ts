/** The operator's tenant lifecycle: the list of tenants, erasing one, and the operator's own audit trail. */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import type { ServiceConfig } from "../../config/env.ts";
import { OperatorAuditPageSchema, tenantListQuerySchema, TenantPageSchema } from "../../contract/history-schemas.ts";
import { TenantIdSchema } from "../../contract/schemas.ts";
import { registryStub, type AppEnv } from "../context.ts";
import { refuse } from "../errors.ts";
import { deleteTenant } from "../lifecycle.ts";
import { errorResponses, jsonContent, requires } from "../openapi.ts";

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function encode(text: string): string {
  return btoa(text).replace(/=+$/, "");
}

function decode(cursor: string, pattern: RegExp): string | null {
  try {
    return pattern.exec(atob(cursor))?.[1] ?? null;
  } catch {
    return null;
  }
}

const BAD_CURSOR = "cursor is not one this API returned; start again without it.";

export function registerLifecycleRoutes(app: OpenAPIHono<AppEnv>, config: ServiceConfig): void {
  const listTenants = createRoute({
    method: "get",
    path: "/v1/tenants",
    tags: ["tenants"],
    summary: "List the deployment's tenants, by id (operator token)",
    description:
      "From the tenant registry: each tenant's creation, tool count, catalog revision and last catalog write (the " +
      "figures a tenant reports a few seconds after its writes). A tenant being created or deleted is not listed " +
      "until that finishes.",
    security: requires("operator"),
    request: { query: tenantListQuerySchema(config.limits) },
    responses: { 200: jsonContent(TenantPageSchema, "A page of tenants"), ...errorResponses("forbidden") },
  });
  app.openapi(listTenants, async (c) => {
    const { cursor, limit } = c.req.valid("query");
    const after = cursor === undefined ? null : decode(cursor, /^tenant:(.+)$/);
    if (cursor !== undefined && after === null) refuse("invalid-request", BAD_CURSOR);
    const page = await registryStub(c.env).list(after, limit);
    const last = page.tenants.at(-1);
    return c.json(
      {
        tenants: page.tenants.map((t) => ({
          id: t.id,
          created_at: iso(t.created_at),
          tools: t.tools,
          revision: t.revision,
          last_write_at: iso(t.last_write_at),
        })),
        next_cursor: page.more && last ? encode(`tenant:${last.id}`) : null,
      },
      200,
    );
  });

  const eraseTenant = createRoute({
    method: "delete",
    path: "/v1/tenants/{tenant}",
    tags: ["tenants"],
    summary: "Delete a tenant and everything it holds (operator token)",
    description:
      "Erases the tenant's storage whole (catalog, history, keys, settings, synonyms, sessions, audit trail, index " +
      "snapshot, learned terms) and its alarm; its keys stop working at once. It leaves the tenant list, and an " +
      "entry in the operator's audit trail (GET /v1/operator/audit) records it. Afterwards every route answers 404 " +
      "for the tenant (401 for its former keys), and creating it again starts empty. Repeating the call after an " +
      "interrupted deletion finishes it (204).",
    security: requires("operator"),
    request: { params: z.object({ tenant: TenantIdSchema }) },
    responses: { 204: { description: "Deleted" }, ...errorResponses("forbidden", "not-found") },
  });
  app.openapi(eraseTenant, async (c) => {
    if (c.get("caller").kind !== "operator") refuse("forbidden", "Only the operator token deletes tenants.");
    const { tenant } = c.req.valid("param");
    if (!(await deleteTenant(c.env, tenant))) refuse("not-found", `No tenant '${tenant}'.`);
    return c.body(null, 204);
  });

  const operatorAudit = createRoute({
    method: "get",
    path: "/v1/operator/audit",
    tags: ["tenants"],
    summary: "The operator's audit trail: tenants created, restored and deleted, newest first (operator token)",
    description:
      "Kept outside every tenant (in the tenant registry), so it outlives the tenants it records. Retention as a " +
      "tenant's trail: `audit_max_entries`, `audit_max_age_days`.",
    security: requires("operator"),
    request: {
      query: z.object({
        cursor: z.string().max(64).optional(),
        limit: z.coerce
          .number()
          .int()
          .min(1)
          .max(config.limits.max_page_size)
          .default(Math.min(100, config.limits.max_page_size)),
      }),
    },
    responses: { 200: jsonContent(OperatorAuditPageSchema, "A page of entries"), ...errorResponses("forbidden") },
  });
  app.openapi(operatorAudit, async (c) => {
    const { cursor, limit } = c.req.valid("query");
    const before = cursor === undefined ? null : decode(cursor, /^op:(\d{1,15})$/);
    if (cursor !== undefined && before === null) refuse("invalid-request", BAD_CURSOR);
    const page = await registryStub(c.env).auditPage(before === null ? null : Number(before), limit);
    const last = page.entries.at(-1);
    return c.json(
      {
        entries: page.entries.map((e) => ({ ...e, at: iso(e.at)! })),
        next_cursor: page.more && last ? encode(`op:${last.seq}`) : null,
      },
      200,
    );
  });
}
