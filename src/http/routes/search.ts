/** POST /v1/tenants/{tenant}/search: an exact tool_id lookup or a ranked keyword query. */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import { renderDefinition } from "../../catalog/render.ts";
import type { ServiceConfig } from "../../config/env.ts";
import type { AppEnv } from "../context.ts";
import { expectOk } from "../errors.ts";
import { BEARER, errorResponses, jsonBody, jsonContent } from "../openapi.ts";
import { searchRequestSchema, SearchResponseSchema, TenantIdSchema } from "../schemas.ts";

export function registerSearchRoutes(app: OpenAPIHono<AppEnv>, config: ServiceConfig): void {
  const route = createRoute({
    method: "post",
    path: "/v1/tenants/{tenant}/search",
    tags: ["search"],
    summary: "Find tools: exactly one of tool_id (exact) or query (ranked keywords) (search scope)",
    description:
      "A query that is exactly a tool's name (or the tail of a namespaced name, or `server::name`, `mcp__server__name`) " +
      "returns that tool first. Other hits are ranked by BM25F and kept when their score reaches the threshold. When " +
      "nothing does, the answer is 200 with empty `results` and a `message` saying so. Ties are broken by tool_id. " +
      "With `session_id`, the search counts against the session's per-turn budget (every search that runs counts, " +
      "`tool_id` lookups and searches that find nothing included); once the budget is spent the search does not run and " +
      'the answer is 429 `{"error":"search-budget-exhausted","budgetCap":3,"message":...}`. The results are activated in ' +
      "the session in the same storage transaction that answers, so they are callable in the very next step; `activated` " +
      "lists the ones that were not active before.",
    security: BEARER,
    request: { params: z.object({ tenant: TenantIdSchema }), body: jsonBody(searchRequestSchema(config.limits)) },
    responses: { 200: jsonContent(SearchResponseSchema, "Results"), ...errorResponses("forbidden", "not-found", "search-budget-exhausted") },
  });

  app.openapi(route, async (c) => {
    const { format, ...request } = c.req.valid("json");
    const { rows, results, ...rest } = expectOk(await c.get("tenant").search(c.get("caller"), { ...request, with_rows: format !== undefined }));
    const byId = new Map((rows ?? []).map((row) => [row.id, row]));
    return c.json(
      {
        results: results.map((res) => {
          const row = byId.get(res.tool_id);
          return format && row ? { ...res, definition: renderDefinition(row, format) } : res;
        }),
        ...rest,
      },
      200,
    );
  });
}
