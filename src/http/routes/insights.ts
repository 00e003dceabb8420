/**
 * What the console shows besides search and the catalog, usable without it: the catalog doctor's findings and the
 * usage aggregates of the query log.
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import type { ServiceConfig } from "../../config/env.ts";
import {
  DoctorReportSchema,
  doctorQuerySchema,
  UsageSchema,
  usageQuerySchema,
} from "../../contract/console-schemas.ts";
import { TenantIdSchema } from "../../contract/schemas.ts";
import type { AppEnv } from "../context.ts";
import { expectOk } from "../errors.ts";
import { errorResponses, jsonContent, requires } from "../openapi.ts";

const tenantParam = z.object({ tenant: TenantIdSchema });

export function registerInsightRoutes(app: OpenAPIHono<AppEnv>, config: ServiceConfig): void {
  const doctor = createRoute({
    method: "get",
    path: "/v1/tenants/{tenant}/doctor",
    tags: ["console"],
    summary: "The catalog doctor: what makes tools hard to find or costly to load, with stable codes (search scope)",
    description:
      "Findings about the catalog, each with a stable `code`, the tool it concerns and a reason: empty, short or " +
      "name-copying descriptions, near-duplicate tools on different servers, tools their own words do not reach " +
      "(checked with real searches at the tenant's threshold and max_results), parameters without descriptions, " +
      "descriptions that cost a share of a context window, and model-facing names that clashed. The report of a " +
      "catalog revision is kept until the catalog or the settings change. docs/console.md lists the codes.",
    security: requires("search"),
    request: { params: tenantParam, query: doctorQuerySchema(config.limits) },
    responses: { 200: jsonContent(DoctorReportSchema, "The findings"), ...errorResponses("forbidden", "not-found") },
  });
  app.openapi(doctor, async (c) => {
    const { code, limit } = c.req.valid("query");
    return c.json(expectOk(await c.get("tenant").doctorReport(c.get("caller"), { code, limit })), 200);
  });

  const usage = createRoute({
    method: "get",
    path: "/v1/tenants/{tenant}/usage",
    tags: ["console"],
    summary: "Search usage per UTC day from the query log: searches, no-match share, budget refusals (search scope)",
    description:
      "Aggregates of the tenant's query log between two UTC days (inclusive): searches, the share that matched " +
      "nothing, tool_id lookups and searches refused for a spent budget, per day; the queries that most often " +
      "matched nothing (kept while the setting `log_queries` is on, cut to `query_log_text_chars` characters); and " +
      "the catalog tools nothing returned. Days beyond `query_log_max_age_days` are no longer kept. Searches are " +
      "logged in memory and written in batches (within seconds); this route writes what is pending first. A crash " +
      "loses at most the last few seconds of the log (docs/console.md).",
    security: requires("search"),
    request: { params: tenantParam, query: usageQuerySchema() },
    responses: { 200: jsonContent(UsageSchema, "The aggregates"), ...errorResponses("forbidden", "not-found") },
  });
  app.openapi(usage, async (c) => {
    return c.json(expectOk(await c.get("tenant").usage(c.get("caller"), c.req.valid("query"))), 200);
  });
}
