/**
 * Schemas of the vendor catalog export (GET .../catalog/export): they validate the query, generate
 * the OpenAPI document and give the typed client its types.
 */
import { z } from "zod";
import { ServerNameSchema } from "../catalog/tool.ts";
import { EXPORT_FORMATS } from "../catalog/vendor.ts";
import { limitNote, type Limits } from "../config/limits.ts";

const ExportFormatSchema = z
  .enum(EXPORT_FORMATS)
  .describe(
    "anthropic: Messages API tools with defer_loading; openai-responses: Responses API " +
      "namespaces per server with deferred functions",
  );

export function exportQuerySchema(limits: Limits) {
  return z.object({
    format: ExportFormatSchema,
    cursor: z.string().max(1024).optional().describe("next_cursor of the previous page"),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(
        limits.max_export_page,
        `pages hold at most ${limits.max_export_page} tools ${limitNote("max_export_page", limits)}`,
      )
      .default(Math.min(1000, limits.max_export_page))
      .describe("Tools per page (a page ends at a server boundary when it can)"),
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
        "Ready for the request's `tools`: concatenate the pages. openai-responses: one namespace per server; a " +
          "server split across pages (only when it alone exceeds `limit`) appears on each page under the same name: " +
          "merge their `tools`",
      ),
    next_cursor: z.string().nullable().describe("Pass as `cursor` for the next page; null at the end"),
    part: z
      .number()
      .int()
      .optional()
      .describe("anthropic: the part this page belongs to; one request carries one part (at most 10,000 deferred)"),
    parts: z.number().int().optional().describe("anthropic: how many parts the export has"),
    deferred_total: z.number().int().optional().describe("anthropic: deferred tools in the whole export"),
    message: z.string().optional().describe("anthropic: present when the export has more than one part"),
  })
  .meta({
    id: "CatalogExport",
    example: {
      format: "anthropic",
      revision: 12,
      tools: [
        {
          name: "tool_search",
          description: "Find and load tools that are not in your tool list yet. …",
          input_schema: { type: "object", properties: { query: { type: "string" } } },
        },
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
