/** The catalog's history: revisions, the diff between two of them, and the rollback to one (issue 14). */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import type { ServiceConfig } from "../../config/env.ts";
import {
  diffQuerySchema,
  DiffSchema,
  REVISION_ROUTES,
  RevisionPageSchema,
  revisionsQuerySchema,
  RollbackRequestSchema,
  RollbackResultSchema,
} from "../../contract/history-schemas.ts";
import { TenantIdSchema } from "../../contract/schemas.ts";
import type { RevisionRecord } from "../../durable/catalog-history.ts";
import type { AppEnv } from "../context.ts";
import { expectOk, refuse } from "../errors.ts";
import { errorResponses, jsonBody, jsonContent, requires } from "../openapi.ts";
import { decodeCursor, encodeCursor } from "./catalog.ts";

const tenantParam = z.object({ tenant: TenantIdSchema });

const RETENTION =
  "Kept: the newest `history_max_revisions` revisions (1,000) and every revision that was the live catalog within " +
  "`history_max_age_days` (30); older ones are pruned by the tenant's alarm. A revision no longer kept answers 410 " +
  "`gone` with `oldest_revision`.";

function revisionCursor(revision: number): string {
  return btoa(`rev:${revision}`).replace(/=+$/, "");
}

function decodeRevisionCursor(cursor: string): number | null {
  try {
    const m = /^rev:(\d{1,15})$/.exec(atob(cursor));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

function revisionView(r: RevisionRecord) {
  return {
    revision: r.revision,
    at: new Date(r.at).toISOString(),
    actor: r.actor,
    key_id: r.actor.startsWith("key:") ? r.actor.slice(4) : null,
    action: r.action,
    route: REVISION_ROUTES[r.action] ?? null,
    added: r.added,
    updated: r.updated,
    removed: r.removed,
    details: r.details,
    history_bytes: r.bytes,
  };
}

export function registerHistoryRoutes(app: OpenAPIHono<AppEnv>, config: ServiceConfig): void {
  const revisions = createRoute({
    method: "get",
    path: "/v1/tenants/{tenant}/catalog/revisions",
    tags: ["history"],
    summary: "The catalog's revisions, newest first: who changed what, when, through which route (search scope)",
    description:
      "One entry per change to the catalog (upsert, server replace or delete, tool delete, rollback, restore), with " +
      `the key that made it and its counts. ${RETENTION}`,
    security: requires("search"),
    request: { params: tenantParam, query: revisionsQuerySchema(config.limits) },
    responses: {
      200: jsonContent(RevisionPageSchema, "A page of revisions"),
      ...errorResponses("forbidden", "not-found"),
    },
  });
  app.openapi(revisions, async (c) => {
    const { cursor, limit } = c.req.valid("query");
    const before = cursor === undefined ? undefined : decodeRevisionCursor(cursor);
    if (before === null) refuse("invalid-request", "cursor is not one this API returned; start again without it.");
    const page = expectOk(await c.get("tenant").revisions(c.get("caller"), { before, limit }));
    const last = page.revisions.at(-1);
    return c.json(
      {
        revisions: page.revisions.map(revisionView),
        current_revision: page.current,
        oldest_revision: page.oldest,
        next_cursor: page.more && last ? revisionCursor(last.revision) : null,
      },
      200,
    );
  });

  const diff = createRoute({
    method: "get",
    path: "/v1/tenants/{tenant}/catalog/diff",
    tags: ["history"],
    summary: "What differs between two revisions: tools added, removed, changed with their fields (search scope)",
    description:
      "Compares the catalog at `from` with the catalog at `to` (default: now). Tools are compared a page at a " +
      "time, by id: follow `next_cursor` until it is null; servers come on the first page. " +
      RETENTION,
    security: requires("search"),
    request: { params: tenantParam, query: diffQuerySchema(config.limits) },
    responses: {
      200: jsonContent(DiffSchema, "A page of the diff"),
      ...errorResponses("forbidden", "not-found", "gone"),
    },
  });
  app.openapi(diff, async (c) => {
    const { from, to, cursor, limit } = c.req.valid("query");
    const after = cursor === undefined ? null : decodeCursor(cursor);
    if (after === null && cursor !== undefined)
      refuse("invalid-request", "cursor is not one this API returned; start again without it.");
    const page = expectOk(await c.get("tenant").diff(c.get("caller"), { from, to: to ?? null, after, limit }));
    return c.json({ ...page, next_cursor: page.next_cursor === null ? null : encodeCursor(page.next_cursor) }, 200);
  });

  const rollback = createRoute({
    method: "post",
    path: "/v1/tenants/{tenant}/catalog/rollback",
    tags: ["history"],
    summary: "Make the catalog exactly what it was at a revision, as a new revision (write scope)",
    description:
      "Atomic: every tool and server as it was at `revision` (field for field, model-facing names included), or " +
      "nothing changes. The rollback is a revision of its own (in the audit trail, and itself undoable). Tools " +
      "that go away leave sessions' activated sets; tools that come back are searchable at once (what a tool had " +
      "learned from use went with it and does not come back). Rolling back to the current state changes nothing. " +
      RETENTION,
    security: requires("write"),
    request: { params: tenantParam, body: jsonBody(RollbackRequestSchema) },
    responses: {
      200: jsonContent(RollbackResultSchema, "Rolled back"),
      ...errorResponses("forbidden", "not-found", "conflict", "gone"),
    },
  });
  app.openapi(rollback, async (c) => {
    const { revision } = c.req.valid("json");
    return c.json(expectOk(await c.get("tenant").rollback(c.get("caller"), revision)), 200);
  });
}
