/**
 * Sessions as the tenant object serves them: creating, reading, ending them and starting turns,
 * their client tools, their always-loaded set, their tool list and resolve. Reads and writes go
 * through the session store and the catalog; the rules come from src/sessions/.
 */
import { canonicalJson } from "../catalog/json.ts";
import type { ToolRow } from "../catalog/tool.ts";
import { limitNote } from "../config/limits.ts";
import { round } from "../contract/figures.ts";
import type { Suggestion, TurnMessage } from "../contract/session-schemas.ts";
import { SUGGEST_THRESHOLD, suggest } from "../search/suggest.ts";
import { fail, ok, type ApiError, type Result } from "../errors.ts";
import { sessionAlwaysLoaded } from "../sessions/always-loaded.ts";
import { budget, budgetCap, type Budget } from "../sessions/budget.ts";
import { ambiguousNameMessage, notActiveMessage, unknownSessionMessage } from "../sessions/rescue.ts";
import {
  isExpired,
  sessionView,
  turnStep,
  type SessionOptions,
  type SessionRecord,
  type SessionView,
} from "../sessions/session.ts";
import { sessionToolRow, type SessionTool } from "../sessions/session-tools.ts";
import { composeToolList, TOOL_SEARCH_NAME, toolSearchTool, type ListEntry } from "../sessions/tool-list.ts";
import { ALPHABET, randomString } from "../tenancy/keys.ts";
import type { Alarms } from "./alarms.ts";
import type { Credit, Learning } from "./learning.ts";
import type { TenantParts } from "./tenant-parts.ts";
import type { TenantSettings } from "./tenant-settings.ts";

export interface SessionToolList {
  session_id: string;
  turn: number;
  budget: Budget;
  entries: ListEntry[];
}

/** A session as a create or a turn answers it: with the tools its message suggested, when it carried one. */
export type SessionAnswer = SessionView & { suggested?: Suggestion[] };

type Parts = Pick<TenantParts, "meta" | "sessionStore" | "repo" | "views" | "index" | "config" | "transaction"> & {
  settings: TenantSettings;
  alarms: Alarms;
  learning: Learning;
};

export class SessionService {
  private readonly tenant: Parts;

  constructor(tenant: Parts) {
    this.tenant = tenant;
  }

  /**
   * Creates a session. Creating it again with the same options (a retried request) answers the
   * existing session with `created: false`; the same id with other options is a conflict. A `message` (the
   * user's first) loads the tools it suggests, in the same transaction; it is not one of the options.
   */
  async create(
    options: SessionOptions,
    tools: SessionTool[] | null,
    turn: TurnMessage = {},
  ): Promise<Result<{ created: boolean; session: SessionAnswer }>> {
    const { sessionStore: store } = this.tenant;
    const now = Date.now();
    const settings = this.tenant.settings.current();
    const id = options.session_id ?? `ses_${randomString(24, ALPHABET)}`;
    const { session_id: _, ...rest } = options;
    const fingerprint = canonicalJson({ ...rest, tools });
    const existing = store.get(id);
    if (existing && !isExpired(existing, now)) {
      if (existing.fingerprint !== fingerprint) {
        return fail(
          "conflict",
          `Session '${id}' already exists with other options. Choose another session_id, or DELETE this session first.`,
        );
      }
      const suggested = this.tenant.transaction(() => {
        this.touch(existing, now);
        return this.suggestFor(existing, turn);
      });
      return ok({ created: false, session: this.answer(existing, suggested) });
    }
    const limits = this.tenant.config().limits;
    const live = store.countLive(now);
    if (live >= limits.max_sessions_per_tenant) {
      return fail(
        "conflict",
        `This tenant has ${live} live sessions, the most it may hold ` +
          `${limitNote("max_sessions_per_tenant", limits)}. DELETE sessions that have ended, or ` +
          `lower session_ttl_seconds.`,
      );
    }
    const clash = tools ? this.clashes(tools) : null;
    if (clash) return clash;
    const ttlSeconds = options.ttl_seconds ?? settings.session_ttl_seconds;
    const session: SessionRecord = {
      id,
      createdAt: now,
      expiresAt: now + ttlSeconds * 1000,
      ttlSeconds,
      budgetCap: options.budget_cap ?? null,
      turn: 1,
      turnSearches: 0,
      inline: options.inline ?? null,
      deferredToolLoading: options.deferred_tool_loading ?? false,
      toolsVersion: 0,
      turnIdleSeconds: options.turn_idle_seconds ?? null,
      lastSearchAt: null,
      messageTurn: null,
    };
    const suggested = this.tenant.transaction(() => {
      if (existing) store.delete(id); // expired, not yet swept
      store.insert(session, fingerprint);
      if (tools) session.toolsVersion = store.replaceTools(id, tools);
      return this.suggestFor(session, turn);
    });
    await this.tenant.alarms.schedule(session.expiresAt);
    return ok({ created: true, session: this.answer(session, suggested) });
  }

  get(sessionId: string): Result<SessionView> {
    return this.with(sessionId, (session) => ok(this.view(session)));
  }

  delete(sessionId: string): Result<null> {
    if (!this.live(sessionId, Date.now())) return this.notFound(sessionId);
    this.tenant.transaction(() => this.tenant.sessionStore.delete(sessionId));
    return ok(null);
  }

  /**
   * Starts the next turn: the search count starts again from 0. A `message` (the user's) loads the tools it
   * suggests, in the same transaction, without touching the turn's search budget.
   */
  startTurn(sessionId: string, requested?: number, turn: TurnMessage = {}): Result<SessionAnswer> {
    return this.with(sessionId, (session) => {
      const step = turnStep(session.turn, requested);
      if (step.kind === "conflict") return fail("conflict", step.message, { turn: session.turn });
      if (step.kind === "advance") {
        this.tenant.sessionStore.startTurn(session.id, true);
        session.turn += 1;
        session.turnSearches = 0;
      } else {
        this.tenant.sessionStore.endIdleTurns(session.id);
      }
      session.turnIdleSeconds = null;
      return ok(this.answer(session, this.suggestFor(session, turn)));
    });
  }

  /**
   * Suggestions, inside the transaction of a create or a turn: ranks the session's deferred tools against the turn's
   * message (search/suggest.ts) and activates the confident ones, after everything active before, so they are
   * callable at once and the tool list's prefix stays as it was. Tools already active or always loaded are never
   * suggested; the search budget is not touched. A message is ranked once per turn: a retried call (the same turn
   * again) suggests nothing more. Undefined when the request carried no message.
   */
  private suggestFor(session: SessionRecord, turn: TurnMessage): Suggestion[] | undefined {
    if (turn.message === undefined) return undefined;
    if (session.messageTurn === session.turn) return [];
    const { sessionStore: store } = this.tenant;
    store.markMessage(session.id, session.turn);
    session.messageTurn = session.turn;
    const settings = this.tenant.settings.current();
    // A tenant's suggest_max may exceed a deployment that lowered max_suggestions.
    const max = Math.min(turn.suggest?.max ?? settings.suggest_max, this.tenant.config().limits.max_suggestions);
    if (max === 0) return [];
    const exclude = new Set([...store.activated(session.id), ...this.alwaysLoaded(session).ids]);
    const hits = suggest(this.tenant.index.get(), turn.message, {
      ...this.tenant.settings.ranking(Date.now()),
      max,
      threshold: turn.suggest?.threshold ?? settings.suggest_threshold ?? SUGGEST_THRESHOLD,
      exclude,
    });
    // The index keeps no text: model-facing names come from the rows, the source of truth.
    const rows = new Map(this.tenant.repo.getTools(hits.map((h) => h.id)).map((row) => [row.id, row]));
    const suggested = hits.flatMap((hit): Suggestion[] => {
      const row = rows.get(hit.id);
      if (!row || hit.match === "synonyms") return [];
      return [{ tool_id: row.id, model_name: row.modelName, score: round(hit.score), match: hit.match }];
    });
    if (suggested.length === 0) return [];
    store.activate(
      session.id,
      suggested.map((s) => s.tool_id),
      session.turn,
      true,
    );
    this.tenant.learning.recordMessage(session, turn.message);
    return suggested;
  }

  private answer(session: SessionRecord, suggested: Suggestion[] | undefined): SessionAnswer {
    return { ...this.view(session), ...(suggested ? { suggested } : {}) };
  }

  /** Replaces the session's client tools as one step; the answer carries the `tools_version` it produced. */
  replaceTools(
    sessionId: string,
    tools: SessionTool[],
  ): Result<{ session_id: string; tools_version: number; tools: string[] }> {
    return this.with(sessionId, (session) => {
      const clash = this.clashes(tools);
      if (clash) return clash;
      const version = this.tenant.sessionStore.replaceTools(session.id, tools);
      return ok({ session_id: session.id, tools_version: version, tools: tools.map((t) => t.name) });
    });
  }

  /** The definitions to send with the session's next model request, in their stable order. */
  toolListOf(sessionId: string): Result<SessionToolList> {
    return this.with(sessionId, (session) => {
      const entries = this.toolList(session);
      return ok({
        session_id: session.id,
        turn: session.turn,
        budget: budget(session.turnSearches, this.cap(session)),
        entries,
      });
    });
  }

  /**
   * The entry of a tool the model called when it is active (in the session's tool list), else the
   * rescue. `name` may be the model-facing name, a tool id or a bare tool name (which must then
   * pick out one active tool). Resolving a catalog tool is use: in the same transaction, the words
   * the turn's searches recorded are credited to it (learning.ts).
   */
  resolve(sessionId: string, name: string): Result<ListEntry> {
    let credit: Credit | null = null;
    const resolved = this.with(sessionId, (session) => {
      const found = this.resolveIn(session, name);
      if (found.ok && found.value.tool_id !== null)
        credit = this.tenant.learning.credit(session, found.value.tool_id, Date.now());
      return found;
    });
    this.tenant.learning.applied(credit);
    return resolved;
  }

  /**
   * A catalog tool's definition was read inside the session (MCP `tool_describe`): use, like a resolve. Credits the
   * turn's words to it; a session that is gone credits nothing.
   */
  used(sessionId: string, toolId: string): void {
    const now = Date.now();
    const session = this.live(sessionId, now);
    if (!session) return;
    const credit = this.tenant.transaction(() => this.tenant.learning.credit(session, toolId, now));
    this.tenant.learning.applied(credit);
  }

  /** The session, or null when it does not exist or has expired (an expired one is removed on the spot). */
  live(sessionId: string, now: number): SessionRecord | null {
    const session = this.tenant.sessionStore.get(sessionId);
    if (!session) return null;
    if (isExpired(session, now)) {
      this.tenant.transaction(() => this.tenant.sessionStore.delete(sessionId));
      return null;
    }
    return session;
  }

  /** Runs `work` on a live session (404 otherwise) inside one transaction, and counts the call as use. */
  private with<T>(sessionId: string, work: (session: SessionRecord) => Result<T>): Result<T> {
    const now = Date.now();
    const session = this.live(sessionId, now);
    if (!session) return this.notFound(sessionId);
    return this.tenant.transaction(() => {
      this.touch(session, now);
      return work(session);
    });
  }

  /**
   * A call that names a session keeps it alive for another ttl_seconds. The alarm already planned is earlier; it
   * re-plans itself.
   */
  touch(session: SessionRecord, now: number): void {
    session.expiresAt = now + session.ttlSeconds * 1000;
    this.tenant.sessionStore.touch(session.id, session.expiresAt);
  }

  notFound(sessionId: string): { ok: false; error: ApiError } {
    return fail("not-found", unknownSessionMessage(sessionId, this.tenant.meta.tenantId() ?? "?"), {
      session_id: sessionId,
    });
  }

  cap(session: SessionRecord): number {
    return budgetCap(session.budgetCap, this.tenant.settings.current().search_budget);
  }

  private view(session: SessionRecord): SessionView {
    const always = this.alwaysLoaded(session);
    return sessionView(session, this.cap(session), {
      alwaysLoaded: always.ids,
      activated: this.tenant.sessionStore.activated(session.id),
      sessionTools: this.tenant.sessionStore.toolNames(session.id),
      inlineUnresolved: always.unresolved,
    });
  }

  /** The tenant's always-loaded tools plus the ones the session's agent names (unless it defers them). */
  alwaysLoaded(session: SessionRecord): { ids: string[]; unresolved: string[] } {
    const tenant = this.tenant.views.alwaysLoaded(this.tenant.settings.current().default_defer).ids;
    if (!session.inline) return { ids: tenant, unresolved: [] };
    const named: string[] = [];
    const unresolved: string[] = [];
    for (const ref of session.inline) {
      const ids = this.tenant.views.idsFor(ref);
      if (ids.length === 0) unresolved.push(ref);
      named.push(...ids);
    }
    return { ids: sessionAlwaysLoaded(tenant, named, session.deferredToolLoading), unresolved };
  }

  toolSearchTool(cap: number): ToolRow {
    const settings = this.tenant.settings.current();
    return toolSearchTool({
      deferredServers: this.tenant.views.alwaysLoaded(settings.default_defer).deferredServers,
      budgetCap: cap,
      defaultMaxResults: settings.default_max_results,
      maxResults: this.tenant.config().limits.max_results,
      maxQueryChars: this.tenant.config().limits.max_query_chars,
    });
  }

  private toolList(session: SessionRecord): ListEntry[] {
    const catalogEntry =
      (source: "always-loaded" | "activated") =>
      (row: ToolRow): ListEntry => ({ name: row.modelName, source, tool_id: row.id, tool: row });
    return composeToolList({
      toolSearch: {
        name: TOOL_SEARCH_NAME,
        source: "tool_search",
        tool_id: null,
        tool: this.toolSearchTool(this.cap(session)),
      },
      alwaysLoaded: this.tenant.repo.getTools(this.alwaysLoaded(session).ids).map(catalogEntry("always-loaded")),
      session: this.tenant.sessionStore
        .tools(session.id)
        .map((tool) => ({ name: tool.name, source: "session", tool_id: null, tool: sessionToolRow(tool) })),
      activated: this.tenant.repo
        .getTools(this.tenant.sessionStore.activated(session.id))
        .map(catalogEntry("activated")),
    });
  }

  private resolveIn(session: SessionRecord, name: string): Result<ListEntry> {
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
    return fail("tool-not-active", notActiveMessage(name, callable), {
      in_catalog: this.tenant.views.idsFor(name).length > 0,
    });
  }

  /** A session tool may not take a catalog tool's model-facing name (see sessions/session-tools.ts). */
  private clashes(tools: readonly SessionTool[]): { ok: false; error: ApiError } | null {
    const owners = this.tenant.repo.modelNameOwners(tools.map((t) => t.name));
    if (owners.size === 0) return null;
    const pairs = [...owners].map(([name, id]) => `'${name}' (catalog tool ${id})`);
    return fail(
      "conflict",
      `Session tool names clash with catalog tools' model-facing names: ${pairs.join(", ")}. ` +
        `Rename them; the previous tools stay in place.`,
      {
        clashes: [...owners.keys()],
      },
    );
  }
}
