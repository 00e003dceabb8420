/** Backup (admin) and restore (operator) of a whole tenant, as NDJSON (issue 14; the format: contract/backup.ts). */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import type { ServiceConfig } from "../../config/env.ts";
import { BackupChecksum, RestoreResultSchema } from "../../contract/backup.ts";
import { TenantIdSchema } from "../../contract/schemas.ts";
import type { AppEnv } from "../context.ts";
import { expectOk, refuse } from "../errors.ts";
import { registeredCreation } from "../lifecycle.ts";
import { errorResponses, jsonContent, requires } from "../openapi.ts";
import { readHeader, restoreStream } from "../restore.ts";

const tenantParam = z.object({ tenant: TenantIdSchema });
/** Typed as any string: hono/zod-openapi would read `application/x-ndjson` as a JSON content type and expect JSON. */
const NDJSON: string = "application/x-ndjson";

const FORMAT =
  "NDJSON, one object per line: a header line (`type` `header`: format `tool-search-backup`, version 1, the tenant, " +
  "its catalog revision, when it was taken, the count of each type of line that follows, and the SHA-256 of every " +
  "line after it), then one `settings` line, one `synonyms` line, a `key` line per API key (its id, scopes, label, " +
  "times and the SHA-256 of its secret: never the secret), a `learned` line per tool that learned from use (its " +
  "terms and weights), a `server` line per server and a `tool` line per tool (every stored field, its model-facing " +
  "name and content hash). See docs/recovery.md.";

/** What the restored keys are, for the response and the docs. */
function keysNote(from: string, to: string): string {
  return from === to
    ? "The tenant's keys work as before: their hashes were restored."
    : `Keys of '${from}' work here with the same key id and secret; a key names its tenant, so use ` +
        `tsk_${to}_<key id>_<secret> instead of tsk_${from}_<key id>_<secret> (npm run restore -- --rekey <key> ` +
        `--tenant ${to} prints it). The old spelling is refused on this tenant's routes.`;
}

export function registerBackupRoutes(app: OpenAPIHono<AppEnv>, config: ServiceConfig): void {
  const backup = createRoute({
    method: "get",
    path: "/v1/tenants/{tenant}/backup",
    tags: ["recovery"],
    summary: "The whole tenant as an NDJSON stream, for POST .../restore (admin scope)",
    description:
      `${FORMAT} The catalog is as of one revision (writes made while the backup streams do not show in it); ` +
      "settings, synonyms, keys and learned terms as of the moment it began. The header is written once every line " +
      "has been read (so the body starts after a first pass); a backup whose stream breaks is caught by the " +
      "checksum and the counts when restored.",
    security: requires("admin"),
    request: { params: tenantParam },
    responses: {
      200: { description: "The backup", content: { [NDJSON]: { schema: z.string() } } },
      ...errorResponses("forbidden", "not-found", "gone"),
    },
  });
  app.openapi(backup, async (c) => {
    const stub = c.get("tenant");
    const caller = c.get("caller");
    const opened = expectOk(await stub.backupBegin(caller));
    const { id } = opened;
    // First pass: the checksum the header carries. The backup reads the same lines every time while it is open.
    const checksum = new BackupChecksum();
    let lines = 0;
    for (let cursor: string | null = null, first = true; first || cursor !== null; first = false) {
      const page: { lines: string[]; next: string | null } = expectOk(await stub.backupPage(caller, id, cursor));
      for (const line of page.lines) checksum.add(line);
      lines += page.lines.length;
      cursor = page.next;
    }
    if (lines !== opened.header.counts.lines) {
      await stub.backupEnd(caller, id);
      throw new Error(`backup of ${lines} lines, header counted ${opened.header.counts.lines}`);
    }
    const header = { ...opened.header, checksum: checksum.digest() };
    const encoder = new TextEncoder();
    let cursor: string | null = null;
    let done = false;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode(`${JSON.stringify(header)}\n`));
      },
      async pull(controller) {
        if (done) return;
        const page = await stub.backupPage(caller, id, cursor);
        if (!page.ok) {
          // Expired or pruned mid-stream: the body ends short, which a restore refuses (counts, checksum).
          controller.error(new Error(page.error.message));
          return;
        }
        if (page.value.lines.length > 0) controller.enqueue(encoder.encode(`${page.value.lines.join("\n")}\n`));
        cursor = page.value.next;
        if (cursor === null) {
          done = true;
          await stub.backupEnd(caller, id);
          controller.close();
        }
      },
      async cancel() {
        await stub.backupEnd(caller, id);
      },
    });
    const name = `${header.tenant}-r${header.revision}-${header.taken_at.replace(/[:.]/g, "-")}.ndjson`;
    return new Response(body, {
      status: 200,
      headers: {
        "content-type": `${NDJSON}; charset=utf-8`,
        "content-disposition": `attachment; filename="${name}"`,
        "x-backup-checksum": header.checksum,
        "x-backup-lines": String(header.counts.lines + 1),
      },
    });
  });

  const restore = createRoute({
    method: "post",
    path: "/v1/tenants/{tenant}/restore",
    tags: ["recovery"],
    summary: "Load a backup into a tenant that does not exist yet (creating it) or is empty (operator token)",
    description:
      `The body is a backup as GET .../backup makes it (${NDJSON}), of any tenant: ${FORMAT} All or nothing: every ` +
      "line is checked as it arrives (JSON, its type's schema under this deployment's limits, a tool's hash against " +
      "its content) and staged apart from the tenant; only when the body has ended with exactly the lines the " +
      "header counts, and their checksum matches, is everything moved into place in one transaction, as one catalog " +
      "revision (`catalog.restore`; at least the backup's) with an audit entry. A corrupt, truncated or changed " +
      "backup is 400 with the line and what is wrong with it, and nothing is written. A tenant that holds tools, " +
      "servers or synonyms is 409. The body is read as a stream, bounded by `max_restore_bytes` (each line by " +
      "`max_body_bytes`). Keys keep working: their hashes travel (see `keys` in the response for keys under " +
      "another tenant id).",
    security: requires("operator"),
    request: {
      params: tenantParam,
      body: { content: { [NDJSON]: { schema: z.string() } }, required: true, description: "The backup" },
    },
    responses: {
      200: jsonContent(RestoreResultSchema, "Restored into an existing, empty tenant"),
      201: jsonContent(RestoreResultSchema, "Restored into a new tenant, created by the restore"),
      ...errorResponses("forbidden", "conflict", "payload-too-large"),
    },
  });
  app.openapi(restore, async (c) => {
    const caller = c.get("caller");
    if (caller.kind !== "operator") refuse("forbidden", "Only the operator token restores tenants.");
    const { tenant } = c.req.valid("param");
    const length = c.req.header("content-length");
    const declared = length !== undefined && /^\d{1,16}$/.test(length) ? Number(length) : null;
    const opened = expectOk(await readHeader(c.req.raw.body, declared, config.limits));
    const outcome = await registeredCreation(
      c.env,
      tenant,
      "tenant.restore",
      () => restoreStream(c.env, tenant, caller, opened, config.limits),
      (r) => ({ from: r.from, restored: r.restored }),
    );
    return c.json({ ...outcome, keys: keysNote(outcome.from.tenant, tenant) }, outcome.created ? 201 : 200);
  });
}
