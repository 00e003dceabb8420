/**
 * GET /v1/tenants/{tenant}/catalog/export: the whole catalog in a model vendor's deferred form,
 * so a client can send every tool deferred and let this service answer the model's client-side
 * tool search (POST .../search with format anthropic-tool-reference / openai-tool-search-output).
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import { EXPORT_FORMATS, exportTools, openaiClientToolSearch } from "../../catalog/vendor.ts";
import { renderDefinition } from "../../catalog/render.ts";
import { ServerNameSchema } from "../../catalog/tool.ts";
import type { ServiceConfig } from "../../config/env.ts";
import { TOOL_SEARCH_NAME } from "../../sessions/tool-list.ts";
import type { AppEnv } from "../context.ts";
import { expectOk, refuse } from "../errors.ts";
import { BEARER, errorResponses, jsonContent } from "../openapi.ts";
import { TenantIdSchema } from "../schemas.ts";
import { decodeCursor, encodeCursor } from "./catalog.ts";

export const ExportFormatSchema = z
  .enum(EXPORT_FORMATS)
  .describe("anthropic: Messages API tools with defer_loading; openai-responses: Responses API namespaces per server with deferred functions");

function exportQuerySchema(config: ServiceConfig) {
  return z.object({
    format: ExportFormatSchema,
    cursor: z.string().max(1024).optional().describe("next_cursor of the previous page"),
    limit: z.coerce.number().int().min(1).max(config.limits.max_export_page).default(1000).describe("Tools per page (a page ends at a server boundary when it can)"),
    server: ServerNameSchema.optional().describe("Only this server's tools"),
    tool_search: z
      .enum(["true", "false"])
      .default("true")
      .describe("Put the client-executed tool_search tool first on the first page (default true)"),
  });
}

export const CatalogExportSchema = z
  .object({
    format: ExportFormatSchema,
    revision: z.number().int().describe("Catalog revision the page was read at"),
    tools: z
      .array(z.record(z.string(), z.unknown()))
      .describe(
        "Ready for the request's `tools`: concatenate the pages. openai-responses: one namespace per server; a server split " +
          "across pages (only when it alone exceeds `limit`) appears on each page under the same name: merge their `tools`",
      ),
    next_cursor: z.string().nullable().describe("Pass as `cursor` for the next page; null at the end"),
  })
  .meta({
    id: "CatalogExport",
    example: {
      format: "anthropic",
      revision: 12,
      tools: [
        { name: "tool_search", description: "Find and load tools that are not in your tool list yet. …", input_schema: { type: "object", properties: { query: { type: "string" } } } },
        {
          name: "github__list_issues",
          description: "List issues in a repository",
          input_schema: { type: "object", properties: { repo: { type: "string" } } },
          defer_loading: true,
        },
      ],
      next_cursor: null,
    },
  });

export function registerExportRoutes(app: OpenAPIHono<AppEnv>, config: ServiceConfig): void {
  const route = createRoute({
    method: "get",
    path: "/v1/tenants/{tenant}/catalog/export",
    tags: ["catalog"],
    summary: "The catalog in a vendor's deferred form, for the vendors' client-side tool search (search scope)",
    description:
      "anthropic: every tool as an Anthropic tool definition, deferred ones with `defer_loading: true`. openai-responses: " +
      "one `namespace` per server (its description lists the server's tools) whose functions carry `defer_loading: true` " +
      "unless always loaded. Names are model-facing names (`server__name`), the names search answers reference. The first " +
      "page starts with tool_search, to be executed by the client through POST .../search (Anthropic: a plain tool; " +
      'OpenAI: `{"type":"tool_search","execution":"client",...}`). Ordered by tool id; page with `cursor`.',
    security: BEARER,
    request: { params: z.object({ tenant: TenantIdSchema }), query: exportQuerySchema(config) },
    responses: { 200: jsonContent(CatalogExportSchema, "A page of the export"), ...errorResponses("forbidden", "not-found") },
  });

  app.openapi(route, async (c) => {
    const { format, cursor, limit, server, tool_search } = c.req.valid("query");
    const after = cursor === undefined ? undefined : decodeCursor(cursor);
    if (after === null) refuse("invalid-request", "cursor is not one this API returned; start again without it.");
    const page = expectOk(await c.get("tenant").exportPage(c.get("caller"), { after, server, limit, withToolSearch: tool_search === "true" }));
    const deferred = new Set(page.facts.deferred);
    const entries = page.rows.map((row) => ({ row, deferred: deferred.has(row.id) }));
    const search = page.toolSearch
      ? [format === "anthropic" ? renderDefinition(page.toolSearch, "anthropic", TOOL_SEARCH_NAME) : openaiClientToolSearch(page.toolSearch)]
      : [];
    return c.json({ format, revision: page.revision, tools: [...search, ...exportTools(format, entries, page.facts.servers)], next_cursor: page.next === null ? null : encodeCursor(page.next) }, 200);
  });
}
