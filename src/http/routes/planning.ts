/**
 * Deciding and sizing tool search: the compact deferred list a model is shown instead of full
 * schemas, the plan (is search worth turning on for this catalog and context window), and the
 * converter of MCP tool results into the shape agent SDKs hand to a model.
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { accepts } from "hono/accepts";
import { z } from "zod";
import type { ServiceConfig } from "../../config/env.ts";
import { toToolResult } from "../../sessions/tool-result.ts";
import type { AppEnv } from "../context.ts";
import { expectOk, refuse } from "../errors.ts";
import { requires, errorResponses, jsonBody, jsonContent } from "../openapi.ts";
import { TenantIdSchema } from "../../contract/schemas.ts";
import {
  CallToolResultSchema,
  deferredQuerySchema,
  DeferredListSchema,
  PlanRequestSchema,
  PlanResponseSchema,
  ToolResultObjectSchema,
} from "../../contract/session-schemas.ts";
import { decodeCursor, encodeCursor } from "./catalog.ts";

const tenantParam = z.object({ tenant: TenantIdSchema });

const plan = createRoute({
  method: "post",
  path: "/v1/tenants/{tenant}/plan",
  tags: ["plan"],
  summary: "Whether to turn tool search on for a context window, why, and the token figures (search scope)",
  description:
    "Off when fewer than `min_tools` (30) tools are deferrable; otherwise on when their definitions take more than " +
    "`min_pct` (5) % of the context window OR more than `min_tokens` (50,000) tokens. min_pct and min_tokens both 0 " +
    "force it on. Thresholds come from the tenant's `plan` setting; the request may override them. Tokens are " +
    "counted with a BPE tokenizer (cl100k_base).",
  security: requires("search"),
  request: { params: tenantParam, body: jsonBody(PlanRequestSchema) },
  responses: { 200: jsonContent(PlanResponseSchema, "The decision"), ...errorResponses("forbidden", "not-found") },
});

const toolResults = createRoute({
  method: "post",
  path: "/v1/tenants/{tenant}/tool-results",
  tags: ["tool results"],
  summary:
    "Convert an MCP CallToolResult into {textResultForLlm, resultType, sessionLog, binaryResultsForLlm} (search scope)",
  description:
    "Text blocks and embedded text resources join into textResultForLlm (one per line); images, audio and embedded " +
    "blobs go to binaryResultsForLlm; resource links become a line of text; with no text, structuredContent is given " +
    "as JSON; isError true gives resultType failure. Block types not listed are skipped (and counted in sessionLog).",
  security: requires("search"),
  request: { params: tenantParam, body: jsonBody(CallToolResultSchema) },
  responses: {
    200: jsonContent(ToolResultObjectSchema, "The converted result"),
    ...errorResponses("forbidden", "not-found"),
  },
});

export function registerPlanningRoutes(app: OpenAPIHono<AppEnv>, config: ServiceConfig): void {
  const deferred = createRoute({
    method: "get",
    path: "/v1/tenants/{tenant}/catalog/deferred",
    tags: ["catalog"],
    summary: "The compact deferred list: one `server::tool: description` line per deferred tool (search scope)",
    description:
      "Deferred tools are the ones not always loaded. Descriptions are put on one line and cut to at most 1,024 " +
      "bytes of UTF-8 on a character boundary. `Accept: text/plain` gives the lines as text (the next page's cursor, " +
      "if any, in the `X-Next-Cursor` header); otherwise JSON. Ordered by tool id, a page at a time.",
    security: requires("search"),
    request: { params: tenantParam, query: deferredQuerySchema(config.limits) },
    responses: {
      200: {
        description: "A page of the deferred list",
        content: {
          "application/json": { schema: DeferredListSchema },
          "text/plain": { schema: z.string().describe("One line per deferred tool") },
        },
      },
      ...errorResponses("forbidden", "not-found"),
    },
  });
  app.openapi(deferred, async (c) => {
    const { cursor, limit, server } = c.req.valid("query");
    const after = cursor === undefined ? undefined : decodeCursor(cursor);
    if (after === null) refuse("invalid-request", "cursor is not one this API returned; start again without it.");
    const page = expectOk(await c.get("tenant").deferredList(c.get("caller"), { after, limit, server }));
    const next = page.next === null ? null : encodeCursor(page.next);
    const type = accepts(c, {
      header: "Accept",
      supports: ["application/json", "text/plain"],
      default: "application/json",
    });
    if (type === "text/plain") {
      if (next) c.header("X-Next-Cursor", next);
      return c.text(page.lines.map((l) => l.line).join("\n") + (page.lines.length ? "\n" : ""), 200);
    }
    return c.json({ revision: page.revision, tools: page.lines, next_cursor: next }, 200);
  });

  app.openapi(plan, async (c) => {
    return c.json(expectOk(await c.get("tenant").plan(c.get("caller"), c.req.valid("json"))), 200);
  });

  app.openapi(toolResults, async (c) => {
    expectOk(await c.get("tenant").access(c.get("caller"), "search"));
    return c.json(toToolResult(c.req.valid("json")), 200);
  });
}
