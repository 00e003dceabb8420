/**
 * Every change to the catalog: upserts, a server's replacement or deletion, a tool's deletion.
 * Each is checked whole, then committed whole with its revision and its audit entry, then applied
 * to the in-memory index.
 */
import { assignModelNames, modelName, type Defer, type ToolRow } from "../catalog/tool.ts";
import { limitNote } from "../config/limits.ts";
import type { ToolBatchResult } from "../contract/schemas.ts";
import type { RollbackResult } from "../contract/history-schemas.ts";
import { fail, ok, type ApiError, type Result } from "../errors.ts";
import type { Caller } from "../tenancy/keys.ts";
import type { Alarms } from "./alarms.ts";
import { chunked, ID_CHUNK, type StoredTool } from "./catalog-history.ts";
import type { TenantParts } from "./tenant-parts.ts";
import { unknownTool } from "./unknown-tool.ts";

/** A refusal found inside a transaction: thrown to roll it back, answered as the error. */
class Refused extends Error {
  readonly error: ApiError;
  constructor(error: ApiError) {
    super(error.message);
    this.error = error;
  }
}

const sameTool = (a: StoredTool, b: StoredTool) => a.hash === b.hash && a.model_name === b.model_name;

/** A server-wide write: the server it replaces, and its `defer_tools` when the upload sets one. */
interface ServerWrite {
  server: string;
  deferTools: Defer | null;
}

type Parts = Pick<
  TenantParts,
  | "sql"
  | "meta"
  | "repo"
  | "views"
  | "sessionStore"
  | "learned"
  | "index"
  | "auditLog"
  | "history"
  | "config"
  | "transaction"
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
      const next = this.nextRevision();
      this.tenant.history.saveTools(next, removals);
      this.tenant.history.saveServers(next, [server]);
      this.tenant.repo.deleteServer(server);
      this.forgetTools(removals);
      revision = this.bumpRevision();
      this.tenant.history.record(
        revision,
        caller,
        "server.delete",
        { added: 0, updated: 0, removed: removals.length },
        {
          server,
        },
      );
      this.tenant.auditLog.record(caller, "server.delete", { server, removed: removals.length });
    });
    this.applied([], removals);
    return ok({ revision, added: 0, updated: 0, unchanged: 0, removed: removals.length });
  }

  deleteTool(caller: Caller, id: string): Result<ToolBatchResult> {
    if (!this.tenant.repo.getTool(id)) return unknownTool(this.tenant.index.get(), id);
    let revision = 0;
    this.tenant.transaction(() => {
      this.tenant.history.saveTools(this.nextRevision(), [id]);
      this.tenant.repo.deleteTools([id]);
      this.forgetTools([id]);
      revision = this.bumpRevision();
      this.tenant.history.record(
        revision,
        caller,
        "tool.delete",
        { added: 0, updated: 0, removed: 1 },
        { tool_id: id },
      );
      this.tenant.auditLog.record(caller, "tool.delete", { tool_id: id });
    });
    this.applied([], [id]);
    return ok({ revision, added: 0, updated: 0, unchanged: 0, removed: 1 });
  }

  /**
   * Makes the catalog exactly what it was at revision `target` (tools field for field, model-facing names included,
   * servers and their defer_tools), as a new revision with its history and audit entry, in one transaction: all of
   * it or none of it. Tools that leave are dropped from sessions' activated sets, the token cache and what they
   * learned, as a deletion drops them; tools that come back are searchable again (without what they had learned).
   *
   * Bounded work: only tools touched after `target` are read, ID_CHUNK at a time, and rows are copied as stored text,
   * never parsed; the index is updated a page at a time after the commit.
   */
  rollback(caller: Caller, target: number): Result<RollbackResult> {
    const { meta, history, repo, sql } = this.tenant;
    const current = meta.number("revision");
    if (target > current)
      return fail("not-found", `No revision ${target}: the catalog is at revision ${current}.`, {
        current_revision: current,
      });
    const oldest = history.oldest();
    if (target < oldest)
      return fail(
        "gone",
        `Revision ${target} is no longer kept; the oldest revision that can be rolled back to is ${oldest} ` +
          `(GET .../catalog/revisions lists them).`,
        { oldest_revision: oldest },
      );
    const unchanged: RollbackResult = {
      revision: current,
      rolled_back_to: target,
      added: 0,
      updated: 0,
      removed: 0,
      servers: { added: 0, updated: 0, removed: 0 },
    };
    if (target === current) return ok(unchanged);
    const limits = this.tenant.config().limits;
    const added: string[] = [];
    const updated: string[] = [];
    const removed: string[] = [];
    const servers = { added: 0, updated: 0, removed: 0 };
    let revision = current;
    try {
      this.tenant.transaction(() => {
        const next = current + 1;
        sql.exec(`DELETE FROM rollback_scratch`);
        sql.exec(`INSERT INTO rollback_scratch (id) SELECT DISTINCT id FROM tool_history WHERE revision > ?`, target);
        // First every tool that differs leaves (its before-image saved), so that restored rows never meet a
        // model-facing name still held by a tool that goes.
        let after = "";
        for (;;) {
          const ids = sql
            .exec<{ id: string }>(`SELECT id FROM rollback_scratch WHERE id > ? ORDER BY id LIMIT ?`, after, ID_CHUNK)
            .toArray()
            .map((r) => r.id);
          if (ids.length === 0) break;
          after = ids.at(-1)!;
          const then = history.states(ids, target);
          const now = history.states(ids, current);
          const differ: string[] = [];
          for (const id of ids) {
            const a = then.get(id) ?? null;
            const b = now.get(id) ?? null;
            if ((!a && !b) || (a && b && sameTool(a, b))) continue;
            differ.push(id);
            (a === null ? removed : b === null ? added : updated).push(id);
          }
          history.saveTools(next, differ);
          repo.deleteTools(differ);
        }
        for (const part of chunked([...added, ...updated])) {
          repo.insertStored([...history.states(part, target).values()].filter((r) => r !== null));
        }
        const serversThen = history.serversAt(target);
        const serversNow = history.serversAt(current);
        const serverChanges = [...new Set([...serversThen.keys(), ...serversNow.keys()])].filter(
          (name) => serversThen.get(name) !== serversNow.get(name),
        );
        history.saveServers(next, serverChanges);
        for (const name of serverChanges) {
          const defer = serversThen.get(name);
          if (defer === undefined) {
            repo.dropServer(name);
            servers.removed++;
          } else {
            repo.setServerDefer(name, defer);
            if (serversNow.has(name)) servers.updated++;
            else servers.added++;
          }
        }
        sql.exec(`DELETE FROM rollback_scratch`);
        if (added.length + updated.length + removed.length + serverChanges.length === 0) return;
        const tools = repo.countTools();
        if (added.length > 0 && tools > limits.max_tools_per_tenant)
          throw new Refused(
            fail(
              "conflict",
              `Revision ${target} held ${tools} tools, more than a tenant may hold now ` +
                `${limitNote("max_tools_per_tenant", limits)}. Remove tools first.`,
            ).error,
          );
        const serverCount = repo.countServers();
        if (servers.added > 0 && serverCount > limits.max_servers_per_tenant)
          throw new Refused(
            fail(
              "conflict",
              `Revision ${target} held ${serverCount} servers, more than a tenant may hold now ` +
                `${limitNote("max_servers_per_tenant", limits)}. Remove servers first.`,
            ).error,
          );
        this.forgetTools(removed);
        revision = this.bumpRevision();
        const counts = { added: added.length, updated: updated.length, removed: removed.length };
        history.record(revision, caller, "catalog.rollback", counts, { to: target, servers });
        this.tenant.auditLog.record(caller, "catalog.rollback", { to: target, ...counts, servers });
      });
    } catch (e) {
      if (e instanceof Refused) return { ok: false, error: e.error };
      throw e;
    }
    if (revision === current) return ok(unchanged);
    // The index follows a page at a time: tools that left, then the rows that came back or changed.
    this.tenant.index.apply([], removed);
    for (const part of chunked([...added, ...updated])) this.tenant.index.apply(repo.getTools(part), []);
    this.tenant.alarms.snapshotSoon();
    return ok({
      revision,
      rolled_back_to: target,
      added: added.length,
      updated: updated.length,
      removed: removed.length,
      servers,
    });
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
      const next = this.nextRevision();
      this.tenant.history.saveTools(next, [...changed.map((r) => r.id), ...removals]);
      this.tenant.history.saveServers(next, [...newServers, ...(deferChanges ? [server!.server] : [])]);
      repo.deleteTools(removals);
      this.forgetTools(removals);
      repo.writeTools(changed, next);
      repo.ensureServers(newServers);
      if (server?.deferTools) repo.setServerDefer(server.server, server.deferTools);
      revision = this.bumpRevision();
      this.tenant.history.record(
        revision,
        caller,
        server ? "server.replace" : "tools.upsert",
        { added: counts.added, updated: counts.updated, removed: counts.removed },
        server ? { server: server.server } : {},
      );
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

  private nextRevision(): number {
    return this.tenant.meta.number("revision") + 1;
  }

  private bumpRevision(): number {
    const next = this.nextRevision();
    this.tenant.meta.set("revision", next);
    return next;
  }

  /** A committed change reaches the index at once, and the snapshot once writes settle. */
  private applied(upserts: ToolRow[], removals: string[]): void {
    this.tenant.index.apply(upserts, removals);
    this.tenant.alarms.snapshotSoon();
  }
}
