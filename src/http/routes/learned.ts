/** What tools learned from use (admin scope): read it per tool or as a page, or forget all of it. */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import type { ServiceConfig } from "../../config/env.ts";
import {
  ForgottenSchema,
  LearnedPageSchema,
  learnedQuerySchema,
  LearnedToolSchema,
} from "../../contract/learned-schemas.ts";
import { TenantIdSchema } from "../../contract/schemas.ts";
import type { AppEnv } from "../context.ts";
import { expectOk, refuse } from "../errors.ts";
import { errorResponses, jsonContent, requires } from "../openapi.ts";
import { decodeCursor, encodeCursor } from "./catalog.ts";

const HOW =
  "When a session resolves a catalog tool (`POST .../sessions/{id}/resolve`, or `tool_describe` over MCP), the " +
  "analysed words of the searches it ran in that turn are credited to the tool, and become the tool's `usage` " +
  "field, scored with BM25F like its other fields (explain shows it). One credit per (session, turn, tool), at most " +
  "16 per session; a tool keeps its 64 strongest terms; credit halves every `learn_half_life_days` (30).";

export function registerLearnedRoutes(app: OpenAPIHono<AppEnv>, config: ServiceConfig): void {
  const params = z.object({ tenant: TenantIdSchema });

  const getRoute = createRoute({
    method: "get",
    path: "/v1/tenants/{tenant}/learned",
    tags: ["learning"],
    summary: "What tools learned from use: one tool's terms and weights, or a page of the tools (admin scope)",
    description:
      `${HOW} With \`tool_id\`: that tool's terms, strongest first, with their weights today (404 if the catalog ` +
      "has no such tool; `terms` is empty when it learned nothing). Without: the tools that learned something, by " +
      "id, a page at a time, each with its five strongest terms.",
    security: requires("admin"),
    request: { params, query: learnedQuerySchema(config.limits) },
    responses: {
      200: jsonContent(z.union([LearnedToolSchema, LearnedPageSchema]), "A tool's learned terms, or a page of tools"),
      ...errorResponses("forbidden", "not-found"),
    },
  });

  const deleteRoute = createRoute({
    method: "delete",
    path: "/v1/tenants/{tenant}/learned",
    tags: ["learning"],
    summary: "Forget everything tools learned from use (admin scope)",
    description:
      "Deletes every learned term of every tool, in one step, recorded in the audit trail (`learned.reset`). The " +
      "ranking is then exactly what it was before any learning. Learning goes on unless `learn_from_use` is false.",
    security: requires("admin"),
    request: { params },
    responses: {
      200: jsonContent(ForgottenSchema, "What was forgotten"),
      ...errorResponses("forbidden", "not-found"),
    },
  });

  app.openapi(getRoute, async (c) => {
    const { tool_id, cursor, limit } = c.req.valid("query");
    const tenant = c.get("tenant");
    if (tool_id !== undefined) {
      if (cursor !== undefined) refuse("invalid-request", "cursor pages the list of tools; drop it with tool_id.");
      return c.json(expectOk(await tenant.learnedTool(c.get("caller"), tool_id)), 200);
    }
    const after = cursor === undefined ? null : decodeCursor(cursor);
    if (after === null && cursor !== undefined)
      refuse("invalid-request", "cursor is not one this API returned; start again without it.");
    const page = expectOk(await tenant.learnedTools(c.get("caller"), { after, limit }));
    const last = page.tools.at(-1);
    return c.json({ tools: page.tools, next_cursor: page.more && last ? encodeCursor(last.tool_id) : null }, 200);
  });

  app.openapi(deleteRoute, async (c) => c.json(expectOk(await c.get("tenant").forgetLearned(c.get("caller"))), 200));
}
