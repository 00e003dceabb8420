/**
 * The Hono application: middleware (config, body limit, tenant auth), every route, the OpenAPI
 * document. Built once per configuration; the Worker entry point only forwards requests.
 */
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import { ConfigError, loadConfig, type ServiceConfig } from "../config/env.ts";
import { TENANT_ID } from "../tenancy/keys.ts";
import type { Context } from "hono";
import type { ApiError } from "../errors.ts";
import { callerFor, isAuthenticated, requireOperator, verifyKey, type Authenticated } from "./auth.ts";
import { refuseAuthentication, refuseBlockedAddress } from "./auth-failures.ts";
import { bodyGuard } from "./body-guard.ts";
import { routeScopes } from "./route-scopes.ts";

import { checkRateLimit } from "./rate-limit.ts";
import { tenantStub, type AppEnv } from "./context.ts";
import { ApiFailure, errorBody, expectOk, onError, refuse, sendError, validationError } from "./errors.ts";
import { foreignOrigin } from "./origin.ts";
import { registerPages } from "./pages.ts";
import { registerCatalogRoutes } from "./routes/catalog.ts";
import { registerPlanningRoutes } from "./routes/planning.ts";
import { registerSearchRoutes } from "./routes/search.ts";
import { registerSessionRoutes } from "./routes/sessions.ts";
import { registerExportRoutes } from "./routes/export.ts";
import { registerBackupRoutes } from "./routes/backup.ts";
import { registerHistoryRoutes } from "./routes/history.ts";
import { registerLifecycleRoutes } from "./routes/lifecycle.ts";
import { registerInsightRoutes } from "./routes/insights.ts";
import { registerMcpRoutes } from "./routes/mcp.ts";
import { registerSynonymRoutes } from "./routes/synonyms.ts";
import { registerLearnedRoutes } from "./routes/learned.ts";
import { registerTenantRoutes } from "./routes/tenants.ts";
import { API_VERSION } from "./version.ts";

const healthz = createRoute({
  method: "get",
  path: "/healthz",
  tags: ["service"],
  summary: "Liveness: answers while the Worker runs (no token)",
  security: [],
  responses: {
    200: { description: "Alive", content: { "application/json": { schema: z.object({ ok: z.literal(true) }) } } },
  },
});

export function createApp(config: ServiceConfig): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: (result, c) => {
      if (!result.success)
        return validationError(
          c,
          result.target === "json" ? "request body" : `${result.target} parameters`,
          result.error.issues,
        );
    },
  });
  app.onError(onError);
  app.notFound((c) =>
    sendError(
      c,
      errorBody("not-found", `No route ${c.req.method} ${new URL(c.req.url).pathname}. See /openapi.json for the API.`),
    ),
  );

  app.use("*", async (c, next) => {
    c.set("config", config);
    await next();
  });
  // Who is calling and whether they are within their rate limit come first: a request refused for
  // either costs no body read, and no tenant work beyond one small call that checks the key. An
  // address with a burst of failed authentications is refused before its token is even read.
  const scopes = routeScopes(() => app.openAPIRegistry.definitions);
  const operatorOnly = async (c: Context<AppEnv>, next: () => Promise<void>) => {
    refuseBlockedAddress(c);
    await admit(c, await requireOperator(c, config));
    // No tenant, so no allowed_origins: only the service's own pages (and non-browser clients) get here.
    const origin = foreignOrigin(c.req.raw);
    if (origin !== null) refuse("forbidden", `Requests from pages of ${origin} may not manage tenants.`, { origin });
    await next();
  };
  app.use("/v1/tenants", operatorOnly);
  app.use("/v1/operator/*", operatorOnly);
  app.use("/v1/tenants/:tenant/*", async (c, next) => {
    const tenant = c.req.param("tenant");
    if (!TENANT_ID.test(tenant))
      refuse("invalid-request", "Tenant ids are 1-63 characters of a-z 0-9 -, starting with a letter or digit.");
    refuseBlockedAddress(c);
    // A tenant's operator routes (restore, deletion) take the operator token alone: any tenant key is refused (403)
    // as on POST /v1/tenants, before its checksum or the tenant is looked at.
    const who = scopes.operatorOnly(c.req.method, c.req.path)
      ? await requireOperator(c, config)
      : await callerFor(c, tenant, config);
    await admit(c, who);
    const stub = tenantStub(c.env, tenant);
    const checked = await verifyKey(who as Authenticated, tenant, stub, scopes.of(c.req.method, c.req.path));
    if (!checked.ok) refuseAuthentication(c, checked.error);
    c.set("tenantId", tenant);
    c.set("tenant", stub);
    const origin = foreignOrigin(c.req.raw);
    if (origin !== null) expectOk(await stub.admitOrigin(c.get("caller"), origin));
    await next();
  });
  // Bodies are read only for an authenticated caller, bounded by max_body_bytes (body-guard.ts); a restore's body is a
  // stream bounded by max_restore_bytes, checked line by line as it is read (http/restore.ts).
  app.use("*", bodyGuard(config.limits));

  app.openapi(healthz, (c) => c.json({ ok: true as const }, 200));
  registerTenantRoutes(app, config);
  registerCatalogRoutes(app, config);
  registerSearchRoutes(app, config);
  registerSessionRoutes(app, config);
  registerPlanningRoutes(app, config);
  registerExportRoutes(app, config);
  registerHistoryRoutes(app, config);
  registerBackupRoutes(app, config);
  registerLifecycleRoutes(app, config);
  registerMcpRoutes(app, config);
  registerSynonymRoutes(app, config);
  registerInsightRoutes(app, config);
  registerLearnedRoutes(app, config);

  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
    description: "A tenant API key (tsk_<tenant>_...) with the scope the route names, or the operator token",
  });
  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "tool-search",
      version: API_VERSION,
      description:
        "Multi-tenant tool search for AI agents: upload tool catalogs, find tools by id or " +
        "keywords. Errors are always {error, message}.",
    },
  });
  // The console and the interactive reference: pages whose every script and style the Worker serves (pages.ts).
  registerPages(app);
  return app;
}

/** Lets an authenticated caller within its rate limit through; refuses anyone else (and counts its failure). */
async function admit(c: Context<AppEnv>, who: Authenticated | ApiError): Promise<void> {
  if (!isAuthenticated(who)) refuseAuthentication(c, who);
  const limited = await checkRateLimit(c.env, who.subject);
  if (limited) throw new ApiFailure(limited.body, 429, { "retry-after": String(limited.retryAfterSeconds) });
  c.set("caller", who.caller);
}

const apps = new WeakMap<object, OpenAPIHono<AppEnv>>();

/** The app for this environment; a misconfiguration is logged and answered with an opaque 500. */
export function handle(request: Request, env: Env, ctx: ExecutionContext): Response | Promise<Response> {
  let app = apps.get(env);
  if (!app) {
    try {
      app = createApp(loadConfig(env));
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      console.error(`configuration error: ${e.message}`);
      return Response.json(
        errorBody("internal", "The service is misconfigured; its operator has been told (see the logs)."),
        { status: 500 },
      );
    }
    apps.set(env, app);
  }
  return app.fetch(request, env, ctx);
}
