/**
 * SQL for sessions: their state, the tools searches activated in them, their client tools, and what their searches
 * left for learning (the current turn's terms, the tools they credited).
 * Callers run these inside the tenant object's transactions; nothing here decides a rule
 * (those live in src/sessions/).
 */
import type { SessionRecord } from "../sessions/session.ts";
import type { SessionTool } from "../sessions/session-tools.ts";

interface SessionSql {
  id: string;
  created_at: number;
  expires_at: number;
  ttl_seconds: number;
  budget_cap: number | null;
  turn: number;
  turn_searches: number;
  inline: string | null;
  deferred_tool_loading: number;
  tools_version: number;
  turn_idle_seconds: number | null;
  last_search_at: number | null;
  message_turn: number | null;
  fingerprint: string;
  [key: string]: SqlStorageValue;
}

function fromSql(r: SessionSql): SessionRecord & { fingerprint: string } {
  return {
    id: r.id,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    ttlSeconds: r.ttl_seconds,
    budgetCap: r.budget_cap,
    turn: r.turn,
    turnSearches: r.turn_searches,
    inline: r.inline === null ? null : (JSON.parse(r.inline) as string[]),
    deferredToolLoading: r.deferred_tool_loading === 1,
    toolsVersion: r.tools_version,
    turnIdleSeconds: r.turn_idle_seconds,
    lastSearchAt: r.last_search_at,
    messageTurn: r.message_turn,
    fingerprint: r.fingerprint,
  };
}

/** What left terms for crediting: a search in the session, or the turn's user message that suggested tools. */
export type TermKind = "search" | "message";

/** SQLite in Durable Objects binds at most 100 parameters per statement. */
const IN_CHUNK = 90;

export class SessionStore {
  private readonly sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.sql = sql;
  }

  get(id: string): (SessionRecord & { fingerprint: string }) | null {
    const r = this.sql.exec<SessionSql>(`SELECT * FROM sessions WHERE id = ?`, id).toArray()[0];
    return r ? fromSql(r) : null;
  }

  insert(s: SessionRecord, fingerprint: string): void {
    this.sql.exec(
      `INSERT INTO sessions (id, created_at, expires_at, ttl_seconds, budget_cap, turn, turn_searches, inline,
                             deferred_tool_loading, tools_version, turn_idle_seconds, last_search_at, message_turn,
                             fingerprint)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      s.id,
      s.createdAt,
      s.expiresAt,
      s.ttlSeconds,
      s.budgetCap,
      s.turn,
      s.turnSearches,
      s.inline === null ? null : JSON.stringify(s.inline),
      s.deferredToolLoading ? 1 : 0,
      s.toolsVersion,
      s.turnIdleSeconds,
      s.lastSearchAt,
      s.messageTurn,
      fingerprint,
    );
  }

  /** Live sessions (not yet past their expiry). */
  countLive(now: number): number {
    return this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM sessions WHERE expires_at > ?`, now).one().n;
  }

  touch(id: string, expiresAt: number): void {
    this.sql.exec(`UPDATE sessions SET expires_at = ? WHERE id = ?`, expiresAt, id);
  }

  countSearch(id: string, at: number): void {
    this.sql.exec(`UPDATE sessions SET turn_searches = turn_searches + 1, last_search_at = ? WHERE id = ?`, at, id);
  }

  /** A search attempt that the budget refused: it does not count, but it is activity (idle turns). */
  markSearchAttempt(id: string, at: number): void {
    this.sql.exec(`UPDATE sessions SET last_search_at = ? WHERE id = ?`, at, id);
  }

  /** The next turn. `explicit`: the client asked for it, which ends idle turns for the session. */
  startTurn(id: string, explicit: boolean): void {
    this.sql.exec(`DELETE FROM session_terms WHERE session_id = ?`, id);
    this.sql.exec(
      `UPDATE sessions SET turn = turn + 1, turn_searches = ` +
        `0${explicit ? ", turn_idle_seconds = NULL" : ""} WHERE id = ?`,
      id,
    );
  }

  /** The turn's user message was ranked for suggestions (a retry of the turn does not rank it again). */
  markMessage(id: string, turn: number): void {
    this.sql.exec(`UPDATE sessions SET message_turn = ? WHERE id = ?`, turn, id);
  }

  /** The client says which turn it is in: from now on turns start only when it asks. */
  endIdleTurns(id: string): void {
    this.sql.exec(`UPDATE sessions SET turn_idle_seconds = NULL WHERE id = ?`, id);
  }

  delete(id: string): void {
    this.sql.exec(`DELETE FROM session_terms WHERE session_id = ?`, id);
    this.sql.exec(`DELETE FROM session_credits WHERE session_id = ?`, id);
    this.sql.exec(`DELETE FROM session_activations WHERE session_id = ?`, id);
    this.sql.exec(`DELETE FROM session_tools WHERE session_id = ?`, id);
    this.sql.exec(`DELETE FROM sessions WHERE id = ?`, id);
  }

  /** Removes every session past its expiry; returns how many. Safe to repeat. */
  deleteExpired(now: number): number {
    const expired = `SELECT id FROM sessions WHERE expires_at <= ?`;
    this.sql.exec(`DELETE FROM session_terms WHERE session_id IN (${expired})`, now);
    this.sql.exec(`DELETE FROM session_credits WHERE session_id IN (${expired})`, now);
    this.sql.exec(`DELETE FROM session_activations WHERE session_id IN (${expired})`, now);
    this.sql.exec(`DELETE FROM session_tools WHERE session_id IN (${expired})`, now);
    return this.sql.exec(`DELETE FROM sessions WHERE expires_at <= ?`, now).rowsWritten;
  }

  /** The earliest expiry of any session, or null when there are none. */
  nextExpiry(): number | null {
    return this.sql.exec<{ at: number | null }>(`SELECT MIN(expires_at) AS at FROM sessions`).one().at;
  }

  // ---- activated tools ----------------------------------------------------------------------------

  /** Tool ids activated in the session, in activation order. */
  activated(id: string): string[] {
    return this.sql
      .exec<{ tool_id: string }>(`SELECT tool_id FROM session_activations WHERE session_id = ? ORDER BY seq`, id)
      .toArray()
      .map((r) => r.tool_id);
  }

  isActivated(id: string, toolId: string): boolean {
    return (
      this.sql.exec(`SELECT 1 FROM session_activations WHERE session_id = ? AND tool_id = ?`, id, toolId).toArray()
        .length > 0
    );
  }

  /**
   * Appends tools to the session's activated set, after everything activated before. `suggested`: a turn's message
   * loaded them (suggestions), not a search.
   */
  activate(id: string, toolIds: readonly string[], turn: number, suggested = false): void {
    if (toolIds.length === 0) return;
    let seq = this.sql
      .exec<{ seq: number }>(`SELECT COALESCE(MAX(seq), 0) AS seq FROM session_activations WHERE session_id = ?`, id)
      .one().seq;
    for (const toolId of toolIds) {
      seq += 1;
      this.sql.exec(
        `INSERT OR IGNORE INTO session_activations (session_id, tool_id, seq, turn, suggested)
         VALUES (?, ?, ?, ?, ?)`,
        id,
        toolId,
        seq,
        turn,
        suggested ? 1 : 0,
      );
    }
  }

  /** Whether the tool was suggested to the session in `turn` (by that turn's message). */
  suggestedIn(id: string, turn: number, toolId: string): boolean {
    return (
      this.sql
        .exec(
          `SELECT 1 FROM session_activations WHERE session_id = ? AND tool_id = ? AND turn = ? AND suggested = 1`,
          id,
          toolId,
          turn,
        )
        .toArray().length > 0
    );
  }

  /** Drops tools that left the catalog from every session (same transaction as the catalog write). */
  dropTools(toolIds: readonly string[]): void {
    for (let i = 0; i < toolIds.length; i += IN_CHUNK) {
      const part = toolIds.slice(i, i + IN_CHUNK);
      this.sql.exec(`DELETE FROM session_activations WHERE tool_id IN (${part.map(() => "?").join(", ")})`, ...part);
    }
  }

  // ---- learning from use -------------------------------------------------------------------------

  /**
   * Records analysed terms for the session's current turn: a search's (`kind` 'search') or the user message's that
   * suggested tools ('message').
   */
  recordTerms(id: string, turn: number, kind: TermKind, terms: readonly string[]): void {
    if (terms.length === 0) return;
    this.sql.exec(
      `INSERT INTO session_terms (session_id, turn, seq, kind, terms)
       SELECT ?, ?, COALESCE(MAX(seq), 0) + 1, ?, ? FROM session_terms WHERE session_id = ?`,
      id,
      turn,
      kind,
      terms.join(" "),
      id,
    );
  }

  /** The terms of `kinds` recorded in the turn, one list per record, in the order they were recorded. */
  recordedTerms(id: string, turn: number, kinds: readonly TermKind[]): string[][] {
    return this.sql
      .exec<{ terms: string; kind: string }>(
        `SELECT terms, kind FROM session_terms WHERE session_id = ? AND turn = ? ORDER BY seq`,
        id,
        turn,
      )
      .toArray()
      .filter((r) => (kinds as readonly string[]).includes(r.kind))
      .map((r) => r.terms.split(" "));
  }

  /** Whether the session credited the tool in the turn, and how many credits it gave in all. */
  credits(id: string, turn: number, toolId: string): { thisTurn: boolean; total: number } {
    const row = this.sql
      .exec<{ total: number; here: number }>(
        `SELECT COUNT(*) AS total, COALESCE(SUM(turn = ? AND tool_id = ?), 0) AS here
         FROM session_credits WHERE session_id = ?`,
        turn,
        toolId,
        id,
      )
      .one();
    return { thisTurn: row.here > 0, total: row.total };
  }

  addCredit(id: string, turn: number, toolId: string): void {
    this.sql.exec(`INSERT INTO session_credits (session_id, turn, tool_id) VALUES (?, ?, ?)`, id, turn, toolId);
  }

  // ---- client tools -------------------------------------------------------------------------------

  tools(id: string): SessionTool[] {
    return this.sql
      .exec<{ content: string }>(`SELECT content FROM session_tools WHERE session_id = ? ORDER BY position`, id)
      .toArray()
      .map((r) => JSON.parse(r.content) as SessionTool);
  }

  toolNames(id: string): string[] {
    return this.sql
      .exec<{ name: string }>(`SELECT name FROM session_tools WHERE session_id = ? ORDER BY position`, id)
      .toArray()
      .map((r) => r.name);
  }

  /** Replaces the session's client tools and bumps its tools_version; returns the new version. */
  replaceTools(id: string, tools: readonly SessionTool[]): number {
    this.sql.exec(`DELETE FROM session_tools WHERE session_id = ?`, id);
    tools.forEach((tool, position) => {
      this.sql.exec(
        `INSERT INTO session_tools (session_id, position, name, content) VALUES (?, ?, ?, ?)`,
        id,
        position,
        tool.name,
        JSON.stringify(tool),
      );
    });
    this.sql.exec(`UPDATE sessions SET tools_version = tools_version + 1 WHERE id = ?`, id);
    return this.sql.exec<{ v: number }>(`SELECT tools_version AS v FROM sessions WHERE id = ?`, id).one().v;
  }
}
