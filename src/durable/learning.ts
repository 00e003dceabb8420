/**
 * Learning from use as the tenant object runs it: searches in a session record their terms for the turn, and so does
 * a turn's user message when it suggested tools; resolving a catalog tool (or describing it over MCP) credits the
 * turn's search terms to it, and the message's too when the message suggested that tool, in the resolve's own
 * transaction; an admin can read what tools learned, or forget all of it. The rules are search/learning.ts's; the rows
 * are the source of truth, and the index's usage field follows them (index-cache.ts).
 */
import type { LearnedPage, LearnedToolInfo } from "../contract/learned-schemas.ts";
import { round } from "../contract/figures.ts";
import { ok, type Result } from "../errors.ts";
import {
  applyCredit,
  creditTerms,
  dayOf,
  decayed,
  mayCredit,
  searchTerms,
  usageTf,
  type LearnedTerm,
} from "../search/learning.ts";
import type { SessionRecord } from "../sessions/session.ts";
import type { Caller } from "../tenancy/keys.ts";
import type { Alarms } from "./alarms.ts";
import type { LearnedRecord } from "./learned-store.ts";
import type { TenantParts } from "./tenant-parts.ts";
import type { TenantSettings } from "./tenant-settings.ts";

/** A committed credit, to apply to the index once its transaction is over. */
export interface Credit {
  toolId: string;
  day: number;
  terms: LearnedTerm[];
}

/**
 * A credit's snapshot is written this long after it (credits batch up): until then a cold start restores the
 * snapshot and reloads only the usage field from the rows.
 */
const LEARNED_SNAPSHOT_DELAY_MS = 10 * 60_000;

type Parts = Pick<TenantParts, "meta" | "sessionStore" | "learned" | "index" | "auditLog" | "transaction"> & {
  settings: TenantSettings;
  alarms: Alarms;
};

export class Learning {
  private readonly tenant: Parts;

  constructor(tenant: Parts) {
    this.tenant = tenant;
  }

  /** Inside a session's search: records the query's terms for the turn (nothing when learning is off). */
  recordSearch(session: SessionRecord, query: string): void {
    if (!this.tenant.settings.current().learn_from_use) return;
    this.tenant.sessionStore.recordTerms(session.id, session.turn, "search", searchTerms(query));
  }

  /**
   * Inside the transaction of a turn whose message suggested tools: records the message's terms for the turn, to be
   * credited to a suggested tool the session resolves in it (nothing when learning is off).
   */
  recordMessage(session: SessionRecord, message: string): void {
    if (!this.tenant.settings.current().learn_from_use) return;
    this.tenant.sessionStore.recordTerms(session.id, session.turn, "message", searchTerms(message));
  }

  /**
   * Inside the transaction of a resolve (or describe): credits the turn's recorded terms to the tool, if learning is
   * on, the turn recorded something and the session may still credit it. The turn's message counts only for a tool it
   * suggested: a tool found by a search learns that search's words, not whatever else the user said. Returns the
   * credit for `applied`.
   */
  credit(session: SessionRecord, toolId: string, now: number): Credit | null {
    const { sessionStore, learned } = this.tenant;
    const settings = this.tenant.settings.current();
    if (!settings.learn_from_use) return null;
    const suggested = sessionStore.suggestedIn(session.id, session.turn, toolId);
    const records = sessionStore.recordedTerms(
      session.id,
      session.turn,
      suggested ? ["message", "search"] : ["search"],
    );
    if (records.length === 0) return null;
    const credits = sessionStore.credits(session.id, session.turn, toolId);
    if (!mayCredit(credits.thisTurn, credits.total)) return null;
    const day = dayOf(now);
    const before = learned.get(toolId);
    const terms = applyCredit(
      before?.terms ?? [],
      before?.day ?? day,
      creditTerms(records),
      day,
      settings.learn_half_life_days,
    );
    learned.put(toolId, day, terms, now);
    sessionStore.addCredit(session.id, session.turn, toolId);
    return { toolId, day, terms };
  }

  /** After the credit's transaction committed: the index learns it, and the snapshot follows later. */
  applied(credit: Credit | null): void {
    if (!credit) return;
    this.tenant.index.applyLearned(credit.toolId, { day: credit.day, terms: credit.terms });
    void this.tenant.alarms.schedule(Date.now() + LEARNED_SNAPSHOT_DELAY_MS);
  }

  /** Forgets everything every tool learned: the ranking is then exactly what it was before any learning. */
  forgetAll(caller: Caller): Result<{ tools: number; terms: number }> {
    const forgotten = this.tenant.transaction(() => {
      const counts = this.tenant.learned.forgetAll();
      this.tenant.auditLog.record(caller, "learned.reset", counts);
      return counts;
    });
    this.tenant.index.reloadLearned();
    void this.tenant.alarms.schedule(Date.now() + LEARNED_SNAPSHOT_DELAY_MS);
    return ok(forgotten);
  }

  /** What one tool learned (null when it learned nothing), with its weights as of now. */
  tool(toolId: string): LearnedToolInfo | null {
    const record = this.tenant.learned.get(toolId);
    return record ? this.info(record, dayOf(Date.now())) : null;
  }

  /** A page of the tools that learned something, by tool id: each with its five strongest terms. */
  page(after: string | null, limit: number): { tools: LearnedPage["tools"]; more: boolean } {
    const day = dayOf(Date.now());
    const page = this.tenant.learned.page(after, limit);
    const tools = page.tools.map((r) => {
      const { terms, ...info } = this.info(r, day);
      return { ...info, term_count: terms.length, top_terms: terms.slice(0, 5) };
    });
    return { tools, more: page.more };
  }

  private info(record: LearnedRecord, day: number): LearnedToolInfo {
    const halfLife = this.tenant.settings.current().learn_half_life_days;
    const terms = record.terms
      .map((t) => {
        const weight = decayed(t.weight, record.day, day, halfLife);
        return { term: t.term, weight: round(weight), tf: round(usageTf(weight)) };
      })
      .filter((t) => t.tf > 0);
    return {
      tool_id: record.id,
      credits: record.credits,
      last_credit_at: new Date(record.creditedAt).toISOString(),
      terms,
    };
  }
}
