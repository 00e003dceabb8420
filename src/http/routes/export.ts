/**
 * GET /v1/tenants/{tenant}/catalog/export: the whole catalog in a model vendor's deferred form,
 * so a client can send every tool deferred and let this service answer the model's client-side
 * tool search (POST .../search with format anthropic-tool-reference / openai-tool-search-output).
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import { ANTHROPIC_MAX_DEFERRED, exportTools, openaiClientToolSearch } from "../../catalog/vendor.ts";
import { renderDefinition } from "../../catalog/render.ts";
import type { ServiceConfig } from "../../config/env.ts";
import { TOOL_SEARCH_NAME } from "../../sessions/tool-list.ts";
import type { AppEnv } from "../context.ts";
import { expectOk, refuse } from "../errors.ts";
import { requires, errorResponses, jsonContent } from "../openapi.ts";
import { CatalogExportSchema, exportQuerySchema } from "../../contract/export-schemas.ts";
import { TenantIdSchema } from "../../contract/schemas.ts";
import { decodeCursor, encodeCursor } from "./catalog.ts";
import type { ExportPage } from "../../durable/catalog-reads.ts";

/** Where an Anthropic page stands among the parts one request each can carry, and a word when there are several. */
function anthropicParts({ part, parts, deferredTotal }: NonNullable<ExportPage["parts"]>) {
  return {
    part,
    parts,
    deferred_total: deferredTotal,
    ...(parts > 1
      ? {
          message:
            `This export holds ${deferredTotal} deferred tools; Anthropic takes at most ${ANTHROPIC_MAX_DEFERRED} ` +
            `per request, so it comes in ${parts} parts (this page is in part ${part}). Send one part's tools in a ` +
            `request, or export a smaller set with \`server\`.`,
        }
      : {}),
  };
}

export function registerExportRoutes(app: OpenAPIHono<AppEnv>, config: ServiceConfig): void {
  const route = createRoute({
    method: "get",
    path: "/v1/tenants/{tenant}/catalog/export",
    tags: ["catalog"],
    summary: "The catalog in a vendor's deferred form, for the vendors' client-side tool search (search scope)",
    description:
      "anthropic: every tool as an Anthropic tool definition, deferred ones with `defer_loading: true`. " +
      "openai-responses: one `namespace` per server (its description lists the server's tools) whose functions carry " +
      "`defer_loading: true` unless always loaded. Names are model-facing names (`server__name`), the names search " +
      "answers reference. The first page starts with tool_search, to be executed by the client through POST " +
      '.../search (Anthropic: a plain tool; OpenAI: `{"type":"tool_search","execution":"client",...}`). Ordered by ' +
      "tool id; page with `cursor`. anthropic: Anthropic takes at most 10,000 deferred tools per request, so the " +
      "export comes in parts of at most 10,000 deferred tools (`part` of `parts`; a page never spans two), with a " +
      "`message` when there is more than one.",
    security: requires("search"),
    request: { params: z.object({ tenant: TenantIdSchema }), query: exportQuerySchema(config.limits) },
    responses: {
      200: jsonContent(CatalogExportSchema, "A page of the export"),
      ...errorResponses("forbidden", "not-found"),
    },
  });

  app.openapi(route, async (c) => {
    const { format, cursor, limit, server, tool_search } = c.req.valid("query");
    const after = cursor === undefined ? undefined : decodeCursor(cursor);
    if (after === null) refuse("invalid-request", "cursor is not one this API returned; start again without it.");
    const page = expectOk(
      await c.get("tenant").exportPage(c.get("caller"), {
        after,
        server,
        limit,
        withToolSearch: tool_search === "true",
        parts: format === "anthropic",
      }),
    );
    const deferred = new Set(page.facts.deferred);
    const entries = page.rows.map((row) => ({ row, deferred: deferred.has(row.id) }));
    const search = page.toolSearch
      ? [
          format === "anthropic"
            ? renderDefinition(page.toolSearch, "anthropic", TOOL_SEARCH_NAME)
            : openaiClientToolSearch(page.toolSearch),
        ]
      : [];
    return c.json(
      {
        format,
        revision: page.revision,
        tools: [...search, ...exportTools(format, entries, page.facts.servers)],
        next_cursor: page.next === null ? null : encodeCursor(page.next),
        ...(page.parts ? anthropicParts(page.parts) : {}),
      },
      200,
    );
  });
}
