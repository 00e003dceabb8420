/**
 * Sessions as the tenant object sees them: a live session or a 404, its state view, its
 * always-loaded set, its tool list and resolve. Reads and writes go through the session store
 * and the catalog; the rules come from src/sessions/. The tenant object calls this inside its
 * own transactions and keeps only the RPC entry points.
 */
import { modelName } from "../catalog/render.ts";
import type { ToolRow } from "../catalog/tool.ts";
import type { Limits } from "../config/limits.ts";
import type { Settings } from "../config/settings.ts";
import { fail, ok, type ApiError, type Result } from "../errors.ts";
import { sessionAlwaysLoaded } from "../sessions/always-loaded.ts";
import { budgetCap } from "../sessions/budget.ts";
import { ambiguousNameMessage, notActiveMessage, unknownSessionMessage } from "../sessions/rescue.ts";
import { isExpired, sessionView, type SessionRecord, type SessionView } from "../sessions/session.ts";
import { sessionToolRow, type SessionTool } from "../sessions/session-tools.ts";
import { composeToolList, TOOL_SEARCH_NAME, toolSearchTool, type ListEntry } from "../sessions/tool-list.ts";
import type { CatalogRepo } from "./catalog-repo.ts";
import type { CatalogViews } from "./catalog-views.ts";
import type { SessionStore } from "./session-store.ts";

/** What the service needs from the tenant object it lives in. */
export interface SessionHost {
  settings(): Settings;
  limits(): Limits;
  tenantId(): string | null;
  transaction<T>(work: () => T): T;
}

export class SessionService {
  private readonly store: SessionStore;
  private readonly repo: CatalogRepo;
  private readonly views: CatalogViews;
  private readonly host: SessionHost;

  constructor(store: SessionStore, repo: CatalogRepo, views: CatalogViews, host: SessionHost) {
    this.store = store;
    this.repo = repo;
    this.views = views;
    this.host = host;
  }

  /** The session, or null when it does not exist or has expired (an expired one is removed on the spot). */
  live(sessionId: string, now: number): SessionRecord | null {
    const session = this.store.get(sessionId);
    if (!session) return null;
    if (isExpired(session, now)) {
      this.host.transaction(() => this.store.delete(sessionId));
      return null;
    }
    return session;
  }

  /** Runs `work` on a live session (404 otherwise) inside one transaction, and counts the call as use. */
  with<T>(sessionId: string, work: (session: SessionRecord) => Result<T>): Result<T> {
    const now = Date.now();
    const session = this.live(sessionId, now);
    if (!session) return this.notFound(sessionId);
    return this.host.transaction(() => {
      this.touch(session, now);
      return work(session);
    });
  }

  /** A call that names a session keeps it alive for another ttl_seconds. The alarm already planned is earlier; it re-plans itself. */
  touch(session: SessionRecord, now: number): void {
    session.expiresAt = now + session.ttlSeconds * 1000;
    this.store.touch(session.id, session.expiresAt);
  }

  notFound(sessionId: string): { ok: false; error: ApiError } {
    return fail("not-found", unknownSessionMessage(sessionId, this.host.tenantId() ?? "?"), { session_id: sessionId });
  }

  cap(session: SessionRecord): number {
    return budgetCap(session.budgetCap, this.host.settings().search_budget);
  }

  view(session: SessionRecord): SessionView {
    const always = this.alwaysLoaded(session);
    return sessionView(session, this.cap(session), {
      alwaysLoaded: always.ids,
      activated: this.store.activated(session.id),
      sessionTools: this.store.toolNames(session.id),
      inlineUnresolved: always.unresolved,
    });
  }

  /** The tenant's always-loaded tools plus the ones the session's agent names (unless it defers them). */
  alwaysLoaded(session: SessionRecord): { ids: string[]; unresolved: string[] } {
    const tenant = this.views.alwaysLoaded(this.host.settings().default_defer).ids;
    if (!session.inline) return { ids: tenant, unresolved: [] };
    const named: string[] = [];
    const unresolved: string[] = [];
    for (const ref of session.inline) {
      const ids = this.views.idsFor(ref);
      if (ids.length === 0) unresolved.push(ref);
      named.push(...ids);
    }
    return { ids: sessionAlwaysLoaded(tenant, named, session.deferredToolLoading), unresolved };
  }

  toolSearchTool(cap: number): ToolRow {
    const settings = this.host.settings();
    return toolSearchTool({
      deferredServers: this.views.alwaysLoaded(settings.default_defer).deferredServers,
      budgetCap: cap,
      defaultMaxResults: settings.default_max_results,
      maxResults: this.host.limits().max_results,
    });
  }

  toolList(session: SessionRecord): ListEntry[] {
    const catalogEntry = (source: "always-loaded" | "activated") => (row: ToolRow): ListEntry => ({ name: modelName(row), source, tool_id: row.id, tool: row });
    return composeToolList({
      toolSearch: { name: TOOL_SEARCH_NAME, source: "tool_search", tool_id: null, tool: this.toolSearchTool(this.cap(session)) },
      alwaysLoaded: this.repo.getTools(this.alwaysLoaded(session).ids).map(catalogEntry("always-loaded")),
      session: this.store.tools(session.id).map((tool) => ({ name: tool.name, source: "session", tool_id: null, tool: sessionToolRow(tool) })),
      activated: this.repo.getTools(this.store.activated(session.id)).map(catalogEntry("activated")),
    });
  }

  /**
   * The entry of a tool the model called when it is active (in the session's tool list), else the
   * rescue. `name` may be the model-facing name, a tool id or a bare tool name (which must then
   * pick out one active tool).
   */
  resolve(session: SessionRecord, name: string): Result<ListEntry> {
    const list = this.toolList(session);
    const exact = list.find((e) => e.name === name) ?? list.find((e) => e.tool_id === name);
    if (exact) return ok(exact);
    const bare = list.filter((e) => e.tool_id !== null && e.tool.name === name);
    if (bare.length === 1) return ok(bare[0]!);
    if (bare.length > 1) {
      const ids = bare.map((e) => e.tool_id!);
      return fail("conflict", ambiguousNameMessage(name, ids), { tool_ids: ids });
    }
    const callable = list.filter((e) => e.source === "always-loaded" || e.source === "session").map((e) => e.name);
    return fail("tool-not-active", notActiveMessage(name, callable), { in_catalog: this.views.idsFor(name).length > 0 });
  }

  /** A session tool may not take a catalog tool's model-facing name (see sessions/session-tools.ts). */
  clashes(tools: readonly SessionTool[]): { ok: false; error: ApiError } | null {
    const owners = this.repo.modelNameOwners(tools.map((t) => t.name));
    if (owners.size === 0) return null;
    const pairs = [...owners].map(([name, id]) => `'${name}' (catalog tool ${id})`);
    return fail("conflict", `Session tool names clash with catalog tools' model-facing names: ${pairs.join(", ")}. Rename them; the previous tools stay in place.`, {
      clashes: [...owners.keys()],
    });
  }
}
