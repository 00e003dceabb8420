/**
 * Every change to the catalog: upserts, a server's replacement or deletion, a tool's deletion.
 * Each is checked whole, then committed whole with its revision and its audit entry, then applied
 * to the in-memory index.
 */
import { assignModelNames, modelName, type Defer, type ToolRow } from "../catalog/tool.ts";
import { limitNote } from "../config/limits.ts";
import type { ToolBatchResult } from "../contract/schemas.ts";
import { fail, ok, type Result } from "../errors.ts";
import type { Caller } from "../tenancy/keys.ts";
import type { Alarms } from "./alarms.ts";
import type { TenantParts } from "./tenant-parts.ts";
import { unknownTool } from "./unknown-tool.ts";

/** A server-wide write: the server it replaces, and its `defer_tools` when the upload sets one. */
interface ServerWrite {
  server: string;
  deferTools: Defer | null;
}

type Parts = Pick<
  TenantParts,
  "meta" | "repo" | "views" | "sessionStore" | "learned" | "index" | "auditLog" | "config" | "transaction"
> & { alarms: Alarms };

export class CatalogWrites {
  private readonly tenant: Parts;

  constructor(tenant: Parts) {
    this.tenant = tenant;
  }

  upsert(caller: Caller, rows: ToolRow[]): Result<ToolBatchResult> {
    return this.write(caller, rows, [], null);
  }

  /** setTools semantics: after this, the server holds exactly `rows` (an empty list removes them all). */
  replaceServer(caller: Caller, server: string, rows: ToolRow[], deferTools: Defer | null): Result<ToolBatchResult> {
    const keep = new Set(rows.map((r) => r.id));
    const removals = this.tenant.repo.serverToolIds(server).filter((id) => !keep.has(id));
    return this.write(caller, rows, removals, { server, deferTools });
  }

  deleteServer(caller: Caller, server: string): Result<ToolBatchResult> {
    if (!this.tenant.repo.serverExists(server)) return fail("not-found", `No server '${server}' in this catalog.`);
    const removals = this.tenant.repo.serverToolIds(server);
    let revision = 0;
    this.tenant.transaction(() => {
      this.tenant.repo.deleteServer(server);
      this.forgetTools(removals);
      revision = this.bumpRevision();
      this.tenant.auditLog.record(caller, "server.delete", { server, removed: removals.length });
    });
    this.applied([], removals);
    return ok({ revision, added: 0, updated: 0, unchanged: 0, removed: removals.length });
  }

  deleteTool(caller: Caller, id: string): Result<ToolBatchResult> {
    if (!this.tenant.repo.getTool(id)) return unknownTool(this.tenant.index.get(), id);
    let revision = 0;
    this.tenant.transaction(() => {
      this.tenant.repo.deleteTools([id]);
      this.forgetTools([id]);
      revision = this.bumpRevision();
      this.tenant.auditLog.record(caller, "tool.delete", { tool_id: id });
    });
    this.applied([], [id]);
    return ok({ revision, added: 0, updated: 0, unchanged: 0, removed: 1 });
  }

  /**
   * The write path of upserts and replacements. Names new tools (`assignModelNames`: a tool whose usual
   * model-facing name is taken gets a suffix), checks everything (capacity), then writes rows, removals,
   * servers, the revision and the audit entry in one
   * transaction: a refused or failed write changes nothing. No await happens between the checks
   * and the commit, so concurrent writers apply one at a time. A write that changes nothing (same
   * hashes, no new server, same defer_tools) keeps the revision and records nothing.
   */
  private write(
    caller: Caller,
    incoming: ToolRow[],
    removals: string[],
    server: ServerWrite | null,
  ): Result<ToolBatchResult> {
    const { meta, repo } = this.tenant;
    const limits = this.tenant.config().limits;
    const existing = repo.stored(incoming.map((r) => r.id));
    const rows = this.named(incoming, existing, new Set(removals));
    const changed = rows.filter((r) => existing.get(r.id)?.hash !== r.hash);
    const added = rows.filter((r) => !existing.has(r.id)).length;
    const total = repo.countTools() + added - removals.length;
    if (total > limits.max_tools_per_tenant) {
      return fail(
        "conflict",
        `This change would leave ${total} tools in the catalog, more than a tenant may hold ` +
          `${limitNote("max_tools_per_tenant", limits)}. Remove tools first.`,
      );
    }
    const newServers = repo.missingServers([...rows.map((r) => r.server), ...(server ? [server.server] : [])]);
    const servers = repo.countServers() + newServers.length;
    if (newServers.length > 0 && servers > limits.max_servers_per_tenant) {
      return fail(
        "conflict",
        `This change would leave ${servers} servers in the catalog, more than a tenant may hold ` +
          `${limitNote("max_servers_per_tenant", limits)}. Remove servers first.`,
      );
    }
    // Re-sending a server's deferTools as it is stored is no change either (a re-run upload does).
    const deferChanges = server?.deferTools != null && repo.serverDefer(server.server) !== server.deferTools;
    const renamed = rows
      .filter((r) => r.modelName !== modelName(r))
      .map((r) => ({ tool_id: r.id, model_name: r.modelName }));
    const named = renamed.length > 0 ? { renamed } : {};
    if (changed.length === 0 && removals.length === 0 && newServers.length === 0 && !deferChanges) {
      return ok({
        revision: meta.number("revision"),
        added: 0,
        updated: 0,
        unchanged: rows.length,
        removed: 0,
        ...named,
      });
    }
    const counts = {
      added,
      updated: changed.length - added,
      unchanged: rows.length - changed.length,
      removed: removals.length,
    };
    let revision = 0;
    this.tenant.transaction(() => {
      repo.deleteTools(removals);
      this.forgetTools(removals);
      repo.writeTools(changed, meta.number("revision") + 1);
      repo.ensureServers(newServers);
      if (server?.deferTools) repo.setServerDefer(server.server, server.deferTools);
      revision = this.bumpRevision();
      if (server)
        this.tenant.auditLog.record(caller, "server.replace", {
          server: server.server,
          ...counts,
          ...(server.deferTools ? { defer_tools: server.deferTools } : {}),
        });
      else
        this.tenant.auditLog.record(caller, "tools.upsert", {
          ...counts,
          servers: new Set(rows.map((r) => r.server)).size,
        });
    });
    this.applied(changed, removals);
    return ok({ revision, ...counts, ...named });
  }

  /**
   * The rows with their model-facing names: a tool already in the catalog keeps the one stored with it; a new one
   * gets its usual name, or that name with a suffix when a tool that stays (or a new one that comes first) holds it.
   */
  private named(rows: ToolRow[], existing: Map<string, { modelName: string }>, leaving: Set<string>): ToolRow[] {
    const { repo } = this.tenant;
    const fresh = rows.filter((r) => !existing.has(r.id));
    // The usual names are looked up together; a suffixed one (rare) on its own.
    const usual = new Set(fresh.map(modelName));
    const owners = repo.modelNameOwners([...usual]);
    const taken = (name: string) => {
      const owner = usual.has(name) ? (owners.get(name) ?? null) : repo.modelNameOwner(name);
      return owner !== null && !leaving.has(owner);
    };
    const assigned = assignModelNames(fresh, taken);
    return rows.map((r) => ({ ...r, modelName: existing.get(r.id)?.modelName ?? assigned.get(r.id)! }));
  }

  /**
   * Tools leaving the catalog leave every session's activated set and the token cache, and forget what they learned
   * from use, in the caller's transaction. (Tools that stay, re-uploaded or kept by a server replace, keep it.)
   */
  private forgetTools(ids: readonly string[]): void {
    this.tenant.sessionStore.dropTools(ids);
    this.tenant.views.forgetTools(ids);
    this.tenant.learned.forget(ids);
  }

  private bumpRevision(): number {
    const next = this.tenant.meta.number("revision") + 1;
    this.tenant.meta.set("revision", next);
    return next;
  }

  /** A committed change reaches the index at once, and the snapshot once writes settle. */
  private applied(upserts: ToolRow[], removals: string[]): void {
    this.tenant.index.apply(upserts, removals);
    this.tenant.alarms.snapshotSoon();
  }
}
