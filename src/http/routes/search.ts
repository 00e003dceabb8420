/** POST /v1/tenants/{tenant}/search: an exact tool_id lookup or a ranked keyword query. */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import { OUTPUT_FORMATS, renderDefinition, type OutputFormat } from "../../catalog/render.ts";
import type { ToolRow } from "../../catalog/tool.ts";
import {
  anthropicToolError,
  type AnthropicToolResult,
  anthropicToolResult,
  openaiSearchErrorItems,
  openaiSearchItems,
  type VendorSearchFormat,
} from "../../catalog/vendor.ts";
import type { ServiceConfig } from "../../config/env.ts";
import type { ApiError } from "../../errors.ts";
import type { ExportFacts } from "../../durable/catalog-reads.ts";
import type { SearchOutput } from "../../durable/search-service.ts";
import type { AppEnv } from "../context.ts";
import { ApiFailure } from "../errors.ts";
import { requires, errorResponses, jsonBody, jsonContent } from "../openapi.ts";
import {
  isVendorSearchFormat,
  searchRequestSchema,
  SearchResponseSchema,
  TenantIdSchema,
} from "../../contract/schemas.ts";

function isOutputFormat(format: string | undefined): format is OutputFormat {
  return (OUTPUT_FORMATS as readonly (string | undefined)[]).includes(format);
}

/** The vendor's answer to the model's search call, for the results found. */
function vendorAnswer(
  format: VendorSearchFormat,
  callId: string,
  output: SearchOutput,
  rows: ToolRow[],
  facts: ExportFacts,
): { tool_result: AnthropicToolResult } | { input_items: ReturnType<typeof openaiSearchItems> } {
  if (format === "anthropic-tool-reference") return { tool_result: anthropicToolResult(callId, rows, output.message) };
  const deferred = new Set(facts.deferred);
  const entries = rows.map((row) => ({ row, deferred: deferred.has(row.id) }));
  return { input_items: openaiSearchItems(callId, entries, facts.servers, output.message) };
}

/** The vendor's answer to a refused search (spent budget, unknown tool id): an error the model reads. */
function vendorRefusal(format: VendorSearchFormat, callId: string, error: ApiError): Record<string, unknown> {
  return format === "anthropic-tool-reference"
    ? { tool_result: anthropicToolError(callId, error) }
    : { input_items: openaiSearchErrorItems(callId, error) };
}

export function registerSearchRoutes(app: OpenAPIHono<AppEnv>, config: ServiceConfig): void {
  const route = createRoute({
    method: "post",
    path: "/v1/tenants/{tenant}/search",
    tags: ["search"],
    summary: "Find tools: exactly one of tool_id (exact) or query (ranked keywords) (search scope)",
    description:
      "A query that is exactly a tool's name (or the tail of a namespaced name, or `server::name`, " +
      "`mcp__server__name`) returns that tool first. Other hits are ranked by score (BM25F+ evidence over ln(1 + N), " +
      "plus server context); they are returned when the best of them reaches the threshold, down to half the " +
      "threshold. When nothing does, the answer is 200 with empty `results` and a `message` saying so. Ties are " +
      "broken by tool_id. With `session_id`, the search counts against the session's per-turn budget (every search " +
      "that runs counts, `tool_id` lookups and searches that find nothing included); once the budget is spent the " +
      'search does not run and the answer is 429 `{"error":"search-budget-exhausted","budgetCap":3,"message":...}`. ' +
      "The results are activated in the session in the same storage transaction that answers, so they are callable " +
      "in the very next step; `activated` lists the ones that were not active before. The vendor formats " +
      "(`anthropic-tool-reference`, `openai-tool-search-output`, with `call_id`) add the answer to the model's " +
      "client-side tool search call, ready to send: `tool_result` (Anthropic) or `input_items` (OpenAI); a 404 or " +
      "429 then carries the same field with the refusal.",
    security: requires("search"),
    request: { params: z.object({ tenant: TenantIdSchema }), body: jsonBody(searchRequestSchema(config.limits)) },
    responses: {
      200: jsonContent(SearchResponseSchema, "Results"),
      ...errorResponses("forbidden", "not-found", "search-budget-exhausted"),
    },
  });

  app.openapi(route, async (c) => {
    const { format, call_id, ...request } = c.req.valid("json");
    const vendor = isVendorSearchFormat(format) ? format : undefined;
    const found = await c.get("tenant").search(c.get("caller"), {
      ...request,
      with_rows: format !== undefined,
      with_export_facts: vendor !== undefined,
    });
    if (!found.ok)
      throw new ApiFailure(vendor ? { ...found.error, ...vendorRefusal(vendor, call_id!, found.error) } : found.error);
    const { rows, facts, results, ...rest } = found.value;
    const byId = new Map((rows ?? []).map((row) => [row.id, row]));
    const resultRows = results.flatMap((res) => byId.get(res.tool_id) ?? []);
    return c.json(
      {
        results: results.map((res) => {
          const row = byId.get(res.tool_id);
          return isOutputFormat(format) && row ? { ...res, definition: renderDefinition(row, format) } : res;
        }),
        ...rest,
        ...(vendor ? vendorAnswer(vendor, call_id!, found.value, resultRows, facts!) : {}),
      },
      200,
    );
  });
}
