/**
 * Schemas of the catalog's history (issue 14): the revisions list, the diff between two revisions and the rollback.
 * They validate requests, generate the OpenAPI document and give the durable side and the typed client their types.
 */
import { z } from "zod";
import { DeferSchema } from "../catalog/tool.ts";
import { limitNote, type Limits } from "../config/limits.ts";

/** The revision actions, each with the route that makes it (null: no route, the service itself). */
export const REVISION_ROUTES = {
  "tenant.create": "POST /v1/tenants",
  "history.start": null,
  "tools.upsert": "POST /v1/tenants/{tenant}/tools",
  "server.replace": "PUT /v1/tenants/{tenant}/servers/{server}/tools",
  "server.delete": "DELETE /v1/tenants/{tenant}/servers/{server}",
  "tool.delete": "DELETE /v1/tenants/{tenant}/tools/{tool_id}",
  "catalog.rollback": "POST /v1/tenants/{tenant}/catalog/rollback",
  "catalog.restore": "POST /v1/tenants/{tenant}/restore",
} as const;
export type RevisionAction = keyof typeof REVISION_ROUTES;
const REVISION_ACTIONS = Object.keys(REVISION_ROUTES) as [RevisionAction, ...RevisionAction[]];

const revisionNumber = z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

const RevisionSchema = z
  .object({
    revision: z.number().int(),
    at: z.string().describe("When the revision was made (ISO 8601)"),
    actor: z.string().describe('Who made it: "operator", "key:<key id>", or "system" (history started)'),
    key_id: z.string().nullable().describe("The key that made it; null for the operator and the system"),
    action: z.enum(REVISION_ACTIONS),
    route: z.string().nullable().describe("The route that made it"),
    added: z.number().int(),
    updated: z.number().int(),
    removed: z.number().int(),
    details: z.record(z.string(), z.unknown()).describe("The server, the tool, or the revision rolled back to"),
    history_bytes: z
      .number()
      .int()
      .describe("What keeping this revision's before-images costs in storage (approximately, in bytes)"),
  })
  .meta({
    id: "Revision",
    example: {
      revision: 15,
      at: "2026-11-29T12:00:00.000Z",
      actor: "key:k3x9q2mzt7ab",
      key_id: "k3x9q2mzt7ab",
      action: "server.replace",
      route: "PUT /v1/tenants/{tenant}/servers/{server}/tools",
      added: 0,
      updated: 0,
      removed: 50,
      details: { server: "github" },
      history_bytes: 48213,
    },
  });

export const RevisionPageSchema = z
  .object({
    revisions: z.array(RevisionSchema).describe("Newest first"),
    current_revision: z.number().int(),
    oldest_revision: z.number().int().describe("The oldest revision kept: diff and rollback reach back to it"),
    next_cursor: z.string().nullable().describe("Pass as `cursor` for older revisions; null at the end"),
  })
  .meta({ id: "RevisionPage" });

export function revisionsQuerySchema(limits: Limits) {
  return z.object({
    cursor: z.string().max(64).optional(),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(
        limits.max_page_size,
        `pages hold at most ${limits.max_page_size} revisions ${limitNote("max_page_size", limits)}`,
      )
      .default(Math.min(100, limits.max_page_size)),
  });
}

export function diffQuerySchema(limits: Limits) {
  return z.object({
    from: revisionNumber.describe("The revision to compare from"),
    to: revisionNumber.optional().describe("The revision to compare to (default: the current one)"),
    cursor: z.string().max(1024).optional().describe("next_cursor of the previous page"),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(
        limits.max_page_size,
        `pages compare at most ${limits.max_page_size} tools ${limitNote("max_page_size", limits)}`,
      )
      .default(limits.max_page_size)
      .describe("Tools compared per page (tools that changed after `from` or `to`, by id)"),
  });
}

/** The fields of a tool a diff names, as the API spells them. */
export const TOOL_FIELDS = [
  "title",
  "description",
  "inputSchema",
  "outputSchema",
  "annotations",
  "keywords",
  "defer",
  "vendor",
  "model_name",
] as const;

export const DiffSchema = z
  .object({
    from: z.number().int(),
    to: z.number().int(),
    added: z.array(z.string()).describe("Tools at `to` that were not at `from`"),
    removed: z.array(z.string()).describe("Tools at `from` that are not at `to`"),
    changed: z
      .array(z.object({ tool_id: z.string(), fields: z.array(z.enum(TOOL_FIELDS)) }))
      .describe("Tools at both whose content differs, with the fields that differ"),
    servers: z
      .object({
        added: z.array(z.string()),
        removed: z.array(z.string()),
        changed: z.array(z.object({ server: z.string(), from: DeferSchema, to: DeferSchema })),
      })
      .nullable()
      .describe("Servers that came, went or changed defer_tools (on the first page; null on the others)"),
    next_cursor: z.string().nullable().describe("Pass as `cursor` for the next page of tools; null at the end"),
  })
  .meta({
    id: "CatalogDiff",
    example: {
      from: 14,
      to: 15,
      added: [],
      removed: ["github::create_issue", "github::list_issues"],
      changed: [{ tool_id: "slack::post_message", fields: ["description"] }],
      servers: { added: [], removed: [], changed: [] },
      next_cursor: null,
    },
  });
export type CatalogDiff = z.infer<typeof DiffSchema>;

export const RollbackRequestSchema = z
  .strictObject({
    revision: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).describe("The revision to make the catalog again"),
  })
  .meta({ id: "RollbackRequest", example: { revision: 14 } });

export const RollbackResultSchema = z
  .object({
    revision: z
      .number()
      .int()
      .describe("The revision the rollback made (the current one, unchanged, when the catalog already was so)"),
    rolled_back_to: z.number().int(),
    added: z.number().int().describe("Tools that came back"),
    updated: z.number().int().describe("Tools whose content went back"),
    removed: z.number().int().describe("Tools that went away (dropped from sessions' activated sets)"),
    servers: z.object({ added: z.number().int(), updated: z.number().int(), removed: z.number().int() }),
  })
  .meta({
    id: "RollbackResult",
    example: {
      revision: 16,
      rolled_back_to: 14,
      added: 50,
      updated: 0,
      removed: 0,
      servers: { added: 0, updated: 0, removed: 0 },
    },
  });
export type RollbackResult = z.infer<typeof RollbackResultSchema>;

export const HistoryFiguresSchema = z
  .object({
    revisions: z.number().int().describe("Revisions kept"),
    oldest_revision: z.number().int(),
    tool_versions: z.number().int().describe("Before-images of tools kept"),
    bytes: z.number().int().describe("What the kept history costs in storage (approximately, in bytes)"),
  })
  .meta({ id: "HistoryFigures" });

// ---- tenants (the registry) -------------------------------------------------------------------------

const TenantListingSchema = z
  .object({
    id: z.string(),
    created_at: z.string().nullable().describe("When the tenant was created (or restored)"),
    tools: z.number().int().describe("Tools in its catalog (reported by the tenant a few seconds after its writes)"),
    revision: z.number().int().describe("Its catalog revision, as last reported"),
    last_write_at: z.string().nullable().describe("When its catalog last changed, as last reported"),
  })
  .meta({
    id: "TenantListing",
    example: {
      id: "acme",
      created_at: "2026-11-29T12:00:00.000Z",
      tools: 1204,
      revision: 37,
      last_write_at: "2026-12-01T08:15:00.000Z",
    },
  });

export const TenantPageSchema = z
  .object({
    tenants: z.array(TenantListingSchema).describe("By id"),
    next_cursor: z.string().nullable().describe("Pass as `cursor` for the next page; null at the end"),
  })
  .meta({ id: "TenantPage" });

export function tenantListQuerySchema(limits: Limits) {
  return z.object({
    cursor: z.string().max(256).optional(),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(
        limits.max_page_size,
        `pages hold at most ${limits.max_page_size} tenants ${limitNote("max_page_size", limits)}`,
      )
      .default(Math.min(100, limits.max_page_size)),
  });
}

const OperatorAuditEntrySchema = z
  .object({
    seq: z.number().int(),
    at: z.string(),
    action: z.enum(["tenant.create", "tenant.restore", "tenant.delete"]),
    tenant: z.string(),
    details: z.record(z.string(), z.unknown()).describe("Counts (tools erased, lines restored), never contents"),
  })
  .meta({ id: "OperatorAuditEntry" });

export const OperatorAuditPageSchema = z
  .object({
    entries: z.array(OperatorAuditEntrySchema).describe("Newest first"),
    next_cursor: z.string().nullable(),
  })
  .meta({ id: "OperatorAuditPage" });
