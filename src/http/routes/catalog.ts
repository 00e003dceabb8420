/**
 * Catalog routes: batch upsert (JSON or NDJSON), per-server replace (setTools semantics), deletes,
 * listing, one tool in any output format, and the catalog summary.
 *
 * The two batch routes validate their bodies item by item (catalog/batch.ts) rather than through
 * the route validator, so that a rejection lists every bad tool with its index and reasons. They
 * are documented in the OpenAPI registry with the same zod schemas.
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { z } from "zod";
import { parseToolBatch } from "../../catalog/batch.ts";
import type { Limits } from "../../config/limits.ts";
import { renderDefinition } from "../../catalog/render.ts";
import { ServerNameSchema, type ToolRow } from "../../catalog/tool.ts";
import type { ServiceConfig } from "../../config/env.ts";
import { limitNote } from "../../config/limits.ts";
import type { AppEnv } from "../context.ts";
import { expectOk, rejectBatch, refuse } from "../errors.ts";
import { requires, errorResponses, jsonContent } from "../openapi.ts";
import {
  CatalogSchema,
  FormatQuerySchema,
  listToolsQuerySchema,
  serverToolsBodySchema,
  TenantIdSchema,
  toolBatchBodySchema,
  ToolBatchResultSchema,
  ToolDetailSchema,
  ToolPageSchema,
  type ToolSummarySchema,
} from "../../contract/schemas.ts";

const tenantParam = z.object({ tenant: TenantIdSchema });
const serverParam = tenantParam.extend({ server: ServerNameSchema });
const toolParam = tenantParam.extend({ tool_id: z.string().min(1).max(260).meta({ example: "github::list_issues" }) });

const NDJSON = "application/x-ndjson";

/**
 * One tool per line, read no further than the batch limit plus one line: a body with more tools than
 * a batch may hold is refused as soon as that is known, whatever follows. Bad lines are counted,
 * the first `max_listed_errors` of them listed; nothing of a bad line is kept.
 */
function readNdjson(text: string, limits: Limits): unknown[] {
  const items: unknown[] = [];
  const bad: string[] = [];
  let badLines = 0;
  let tools = 0;
  for (let start = 0, line = 1; start < text.length; line++) {
    const newline = text.indexOf("\n", start);
    const end = newline === -1 ? text.length : newline;
    const content = text.slice(start, end);
    start = end + 1;
    if (content.trim() === "") continue;
    if (++tools > limits.max_tools_per_batch) {
      refuse(
        "payload-too-large",
        `This NDJSON body holds more than ${limits.max_tools_per_batch} tools (line ${line} is one too many); ` +
          `split it into batches of at most ${limits.max_tools_per_batch} ` +
          `${limitNote("max_tools_per_batch", limits)}.`,
      );
    }
    try {
      items.push(JSON.parse(content));
    } catch {
      badLines += 1;
      if (bad.length < limits.max_listed_errors) bad.push(`line ${line} is not JSON`);
    }
  }
  if (badLines > 0) {
    const more = badLines - bad.length;
    refuse(
      "invalid-request",
      `Malformed NDJSON; nothing was written: ${badLines} line(s) are not JSON: ${bad.join("; ")}` +
        `${more > 0 ? `; and ${more} more` : ""}.`,
      { lines: bad, not_listed: more },
    );
  }
  return items;
}

/** Reads `{tools:[...]}` (JSON) or one tool per line (NDJSON) into raw items, refusing anything else clearly. */
async function readBatch(
  c: Context<AppEnv>,
  allowDefer: boolean,
): Promise<{ items: unknown[]; deferTools?: "auto" | "never" }> {
  const type = (c.req.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  const text = await c.req.text();
  if (type === NDJSON) return { items: readNdjson(text, c.get("config").limits) };
  if (type !== "application/json") {
    refuse("invalid-request", `Send {"tools": [...]} as application/json, or one tool per line as ${NDJSON}.`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    refuse("invalid-request", "Malformed JSON in request body; nothing was written.");
  }
  if (typeof body !== "object" || body === null || !Array.isArray((body as { tools?: unknown }).tools)) {
    refuse("invalid-request", 'The body must be an object with a "tools" array.');
  }
  const { tools, defer_tools, ...rest } = body as { tools: unknown[]; defer_tools?: unknown };
  const extra = Object.keys(rest);
  if (!allowDefer && defer_tools !== undefined) extra.push("defer_tools");
  if (extra.length)
    refuse(
      "invalid-request",
      `Unknown field(s) ${extra.map((k) => `"${k}"`).join(", ")}; the body holds ` +
        `"tools"${allowDefer ? ' and "defer_tools"' : ""}.`,
    );
  if (defer_tools !== undefined && defer_tools !== "auto" && defer_tools !== "never") {
    refuse("invalid-request", 'defer_tools must be "auto" or "never".');
  }
  return { items: tools, ...(defer_tools ? { deferTools: defer_tools } : {}) };
}

/** Reads, validates and normalises a batch body into rows; refuses it whole otherwise. */
async function rowsFrom(
  c: Context<AppEnv>,
  server?: string,
): Promise<{ rows: ToolRow[]; deferTools?: "auto" | "never" }> {
  const read = await readBatch(c, server !== undefined);
  const limits = c.get("config").limits;
  if (read.items.length > limits.max_tools_per_batch) {
    refuse(
      "payload-too-large",
      `This batch holds ${read.items.length} tools; split it into batches of at most ` +
        `${limits.max_tools_per_batch} ${limitNote("max_tools_per_batch", limits)}.`,
    );
  }
  const parsed = await parseToolBatch(read.items, limits, server ? { server } : {});
  if (!parsed.ok) rejectBatch(parsed.errors, read.items.length, limits);
  return { rows: parsed.rows, ...(read.deferTools ? { deferTools: read.deferTools } : {}) };
}

function toSummary(row: ToolRow): z.infer<typeof ToolSummarySchema> {
  return {
    tool_id: row.id,
    server: row.server,
    name: row.name,
    model_name: row.modelName,
    title: row.title,
    description: row.description,
    defer: row.defer,
  };
}

const deleteServer = createRoute({
  method: "delete",
  path: "/v1/tenants/{tenant}/servers/{server}",
  tags: ["catalog"],
  summary: "Remove a server and all its tools (write scope)",
  security: requires("write"),
  request: { params: serverParam },
  responses: { 200: jsonContent(ToolBatchResultSchema, "Removed"), ...errorResponses("forbidden", "not-found") },
});

const deleteTool = createRoute({
  method: "delete",
  path: "/v1/tenants/{tenant}/tools/{tool_id}",
  tags: ["catalog"],
  summary: "Remove one tool (write scope)",
  security: requires("write"),
  request: { params: toolParam },
  responses: { 200: jsonContent(ToolBatchResultSchema, "Removed"), ...errorResponses("forbidden", "not-found") },
});

const getTool = createRoute({
  method: "get",
  path: "/v1/tenants/{tenant}/tools/{tool_id}",
  tags: ["catalog"],
  summary: "One tool's full definition, in the requested format (search scope)",
  security: requires("search"),
  request: { params: toolParam, query: FormatQuerySchema },
  responses: { 200: jsonContent(ToolDetailSchema, "The tool"), ...errorResponses("forbidden", "not-found") },
});

const getCatalog = createRoute({
  method: "get",
  path: "/v1/tenants/{tenant}/catalog",
  tags: ["catalog"],
  summary:
    "Catalog revision, tool counts (per server, always loaded, deferred), token figures, index state (search scope)",
  description:
    "Token figures are counted with a BPE tokenizer (cl100k_base) over each definition's JSON (model-facing name, " +
    "description, parameter schema) and over the deferred list's lines; counts are cached per tool content, so only " +
    "new or changed tools are tokenized.",
  security: requires("search"),
  request: { params: tenantParam },
  responses: { 200: jsonContent(CatalogSchema, "The catalog"), ...errorResponses("forbidden", "not-found") },
});

export function registerCatalogRoutes(app: OpenAPIHono<AppEnv>, config: ServiceConfig): void {
  const batchErrors = errorResponses("forbidden", "not-found", "conflict", "payload-too-large");
  app.openAPIRegistry.registerPath({
    method: "post",
    path: "/v1/tenants/{tenant}/tools",
    tags: ["catalog"],
    summary: "Add or update a batch of tools, all or nothing (write scope)",
    description:
      "JSON `{tools:[...]}` or NDJSON (one tool per line, Content-Type: application/x-ndjson). Tools in MCP, " +
      "Anthropic, OpenAI Chat or OpenAI Responses shape, each with `server`. Unchanged tools (same content hash) are " +
      "not rewritten. A batch with any invalid tool is rejected whole with a 400 listing every bad item.",
    security: requires("write"),
    request: {
      params: tenantParam,
      body: {
        required: true,
        content: {
          "application/json": { schema: toolBatchBodySchema(config.limits) },
          [NDJSON]: { schema: z.string().describe("One tool object per line") },
        },
      },
    },
    responses: { 200: jsonContent(ToolBatchResultSchema, "Applied"), ...batchErrors },
  });
  app.post("/v1/tenants/:tenant/tools", async (c) => {
    const batch = await rowsFrom(c);
    return c.json(expectOk(await c.get("tenant").upsertTools(c.get("caller"), batch.rows)), 200);
  });

  app.openAPIRegistry.registerPath({
    method: "put",
    path: "/v1/tenants/{tenant}/servers/{server}/tools",
    tags: ["catalog"],
    summary: "Replace a server's whole tool set atomically (write scope)",
    description:
      "After the call the server holds exactly these tools; an empty list removes them all. A rejected replacement " +
      'leaves the previous set in place. `defer_tools: "never"` keeps every tool of the server always loaded.',
    security: requires("write"),
    request: {
      params: serverParam,
      body: { required: true, content: { "application/json": { schema: serverToolsBodySchema(config.limits) } } },
    },
    responses: { 200: jsonContent(ToolBatchResultSchema, "Replaced"), ...batchErrors },
  });
  app.put("/v1/tenants/:tenant/servers/:server/tools", async (c) => {
    const server = c.req.param("server");
    const valid = ServerNameSchema.safeParse(server);
    if (!valid.success) refuse("invalid-request", "Server names are 1-64 characters of A-Z a-z 0-9 _ -.");
    const batch = await rowsFrom(c, server);
    return c.json(
      expectOk(await c.get("tenant").replaceServer(c.get("caller"), server, batch.rows, batch.deferTools ?? null)),
      200,
    );
  });

  app.openapi(deleteServer, async (c) => {
    return c.json(expectOk(await c.get("tenant").deleteServer(c.get("caller"), c.req.valid("param").server)), 200);
  });

  app.openapi(deleteTool, async (c) => {
    return c.json(expectOk(await c.get("tenant").deleteTool(c.get("caller"), c.req.valid("param").tool_id)), 200);
  });

  const listTools = createRoute({
    method: "get",
    path: "/v1/tenants/{tenant}/tools",
    tags: ["catalog"],
    summary: "List tool summaries, ordered by id, a page at a time (search scope)",
    security: requires("search"),
    request: { params: tenantParam, query: listToolsQuerySchema(config.limits) },
    responses: { 200: jsonContent(ToolPageSchema, "A page of tools"), ...errorResponses("forbidden", "not-found") },
  });
  app.openapi(listTools, async (c) => {
    const { cursor, limit, server } = c.req.valid("query");
    const after = cursor === undefined ? undefined : decodeCursor(cursor);
    if (after === null) refuse("invalid-request", "cursor is not one this API returned; start again without it.");
    const page = expectOk(await c.get("tenant").listTools(c.get("caller"), { limit, after, server }));
    const last = page.tools.at(-1);
    return c.json(
      { tools: page.tools.map(toSummary), next_cursor: page.more && last ? encodeCursor(last.id) : null },
      200,
    );
  });

  app.openapi(getTool, async (c) => {
    const row = expectOk(await c.get("tenant").getTool(c.get("caller"), c.req.valid("param").tool_id));
    return c.json(
      {
        ...toSummary(row),
        hash: row.hash,
        keywords: row.keywords,
        definition: renderDefinition(row, c.req.valid("query").format),
      },
      200,
    );
  });

  app.openapi(getCatalog, async (c) => {
    return c.json(expectOk(await c.get("tenant").catalog(c.get("caller"))), 200);
  });
}

export function encodeCursor(id: string): string {
  return btoa(String.fromCharCode(...new TextEncoder().encode(id)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

/** The id a cursor stands for; null when it is not a cursor this API made. */
export function decodeCursor(cursor: string): string | null {
  try {
    const bytes = Uint8Array.from(atob(cursor.replace(/-/g, "+").replace(/_/g, "/")), (ch) => ch.charCodeAt(0));
    const id = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
    return id.includes("::") ? id : null;
  } catch {
    return null;
  }
}
