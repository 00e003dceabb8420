/**
 * Search as the tenant object answers it: by tool id or by query, with the tenant's weights,
 * threshold and synonyms; inside a session, counted against its turn budget and activating what
 * it finds.
 */
import type { ToolRow } from "../catalog/tool.ts";
import { round } from "../contract/figures.ts";
import type { SearchRequest, SearchResult } from "../contract/schemas.ts";
import { ok, type Result } from "../errors.ts";
import { noMatchMessage } from "../search/no-match.ts";
import type { Hit, SearchOptions } from "../search/tool-index.ts";
import { planActivation } from "../sessions/activation.ts";
import { budget, budgetExhausted, isExhausted, type Budget } from "../sessions/budget.ts";
import { idleTurnDue, type SessionActor } from "../sessions/session.ts";
import type { CatalogReads, ExportFacts } from "./catalog-reads.ts";
import type { Learning } from "./learning.ts";
import type { SessionService } from "./session-service.ts";
import type { TenantParts } from "./tenant-parts.ts";
import type { TenantSettings } from "./tenant-settings.ts";
import { unknownTool } from "./unknown-tool.ts";

/** A search request as the API takes it, less the output format the Worker renders, plus what to return for it. */
export type SearchInput = Omit<SearchRequest, "format" | "call_id"> & {
  /** Return the result rows too, so the caller can render definitions. */
  with_rows?: boolean;
  /** Return what the vendor formats need besides the rows: which results are deferred, their servers' summaries. */
  with_export_facts?: boolean;
};

/** One result as the API shows it, before the Worker renders its definition. */
type SearchResultItem = Omit<SearchResult, "definition">;

export interface SearchOutput {
  results: SearchResultItem[];
  /** Tool ids this search made callable in its session (not active before it). */
  activated: string[];
  /** Tool ids dropped from the session's activated set to keep it within max_activated_tools (oldest first). */
  deactivated?: string[];
  /** The session's budget after this search (searches with a session only). */
  budget?: Budget;
  threshold: number;
  message?: string;
  rows?: ToolRow[];
  facts?: ExportFacts;
}

type Parts = Pick<TenantParts, "repo" | "index" | "sessionStore" | "queryLog" | "config" | "transaction"> & {
  settings: TenantSettings;
  sessions: SessionService;
  reads: CatalogReads;
  learning: Learning;
};

export class SearchService {
  private readonly tenant: Parts;

  constructor(tenant: Parts) {
    this.tenant = tenant;
  }

  search(input: SearchInput, actor: SessionActor): Result<SearchOutput> {
    const result = input.session_id === undefined ? this.run(input) : this.inSession(actor, input.session_id, input);
    this.log(input, result);
    if (!result.ok || !input.with_export_facts) return result;
    return ok({
      ...result.value,
      facts: this.tenant.reads.exportFacts(result.value.results.map((r) => ({ id: r.tool_id, server: r.server }))),
    });
  }

  /**
   * A search inside a session. Everything from the budget check to the activation happens with
   * no await in between and in one storage transaction: concurrent searches run one at a time,
   * so a budget of 3 lets exactly 3 run, and the tools found are active before the answer leaves.
   */
  private inSession(actor: SessionActor, sessionId: string, input: SearchInput): Result<SearchOutput> {
    const { sessions, sessionStore } = this.tenant;
    const now = Date.now();
    const session = sessions.live(actor, sessionId, now);
    if (!session) return sessions.notFound(sessionId);
    const cap = sessions.cap(session);
    const idleTurn = idleTurnDue(session, now);
    if (!idleTurn && isExhausted(session.turnSearches, cap)) {
      // A refused attempt still keeps an idle-turn session's clock running: a model hammering a
      // spent budget is still in the same turn.
      if (session.turnIdleSeconds !== null)
        this.tenant.transaction(() => sessionStore.markSearchAttempt(session.id, now));
      return { ok: false, error: budgetExhausted(cap) };
    }
    return this.tenant.transaction((): Result<SearchOutput> => {
      if (idleTurn) {
        sessionStore.startTurn(session.id, false);
        session.turn += 1;
        session.turnSearches = 0;
      }
      const result = this.run(input);
      sessionStore.countSearch(session.id, now);
      if (input.query !== undefined) this.tenant.learning.recordSearch(session, input.query);
      sessions.touch(session, now);
      const spent = budget(session.turnSearches + 1, cap);
      if (!result.ok) return { ok: false, error: { ...result.error, budget: spent } };
      const always = new Set(sessions.alwaysLoaded(session).ids);
      const plan = planActivation(
        result.value.results.map((r) => r.tool_id),
        new Set(sessionStore.activated(session.id)),
        always,
      );
      const max = this.tenant.config().limits.max_activated_tools;
      const found = result.value.results.map((r) => r.tool_id);
      const dropped = sessionStore.activate(session.id, plan.record, session.turn, max, found);
      if (dropped.length === 0) return ok({ ...result.value, activated: plan.newlyActive, budget: spent });
      const gone = new Set(dropped);
      return ok({
        ...result.value,
        activated: plan.newlyActive.filter((id) => !gone.has(id)),
        deactivated: dropped.filter((id) => !plan.newlyActive.includes(id)),
        budget: spent,
      });
    });
  }

  /**
   * Appends the search to the query log's buffer in memory: no storage write here (query-log.ts says when the buffer
   * is written and what a crash can lose).
   */
  private log(input: SearchInput, result: Result<SearchOutput>): void {
    const log = this.tenant.queryLog;
    if (!result.ok) {
      if (result.error.error === "search-budget-exhausted") log.exhausted();
      else if (result.error.error === "not-found" && input.tool_id !== undefined) log.lookup([]);
      return;
    }
    const returned = result.value.results.map((r) => r.tool_id);
    if (input.tool_id !== undefined) log.lookup(returned);
    else log.query(input.query!, returned, this.tenant.settings.current().log_queries);
  }

  /** The tenant's search as it stands: threshold, default max_results, weights, synonyms, bounds. */
  options(): SearchOptions & { threshold: number; limit: number } {
    const settings = this.tenant.settings.current();
    const config = this.tenant.config();
    return {
      threshold: settings.matching_threshold ?? config.matchingThreshold,
      limit: Math.min(settings.default_max_results, config.limits.max_results),
      ...this.tenant.settings.ranking(Date.now()),
    };
  }

  private run(input: SearchInput): Result<SearchOutput> {
    const defaults = this.options();
    const threshold = input.threshold ?? defaults.threshold;
    // A tenant's default_max_results may exceed a deployment that lowered max_results.
    const limit = Math.min(input.max_results ?? defaults.limit, this.tenant.config().limits.max_results);

    if (input.tool_id !== undefined) {
      const row = this.tenant.repo.getTool(input.tool_id);
      if (!row) return unknownTool(this.tenant.index.get(), input.tool_id);
      return ok({
        results: [{ ...summary(row), score: null, match: "tool-id" }],
        activated: [],
        threshold,
        ...(input.with_rows ? { rows: [row] } : {}),
      });
    }

    const query = input.query!;
    const index = this.tenant.index.get();
    const answer = index.answer(query, { ...defaults, limit, threshold, explain: input.explain ?? false });
    const hits = answer.hits;
    // The index keeps no text: names and descriptions come from the rows, the source of truth.
    const rows = this.tenant.repo.getTools(hits.map((h) => h.id));
    const byId = new Map(rows.map((row) => [row.id, row]));
    const results = hits.flatMap((hit): SearchResultItem[] => {
      const row = byId.get(hit.id);
      if (!row) return [];
      return [
        {
          ...summary(row),
          score: round(hit.score),
          match: hit.match,
          ...(hit.explain ? { explain: explanation(hit.explain) } : {}),
        },
      ];
    });
    const message = results.length === 0 ? noMatchMessage(query, threshold, answer, index.size) : undefined;
    return ok({
      results,
      activated: [],
      threshold,
      ...(message ? { message } : {}),
      ...(input.with_rows ? { rows } : {}),
    });
  }
}

function summary(row: ToolRow): Omit<SearchResultItem, "score" | "match"> {
  return {
    tool_id: row.id,
    server: row.server,
    name: row.name,
    model_name: row.modelName,
    description: row.description,
  };
}

/** An explanation as the API shows it: rounded like scores. */
function explanation({ match: _, ...e }: NonNullable<Hit["explain"]>): NonNullable<SearchResultItem["explain"]> {
  return {
    ...e,
    terms: e.terms.map((t) => ({
      ...t,
      weight: round(t.weight),
      idf: round(t.idf),
      ...(t.tf.usage ? { tf: { ...t.tf, usage: round(t.tf.usage) } } : {}),
      score: round(t.score),
      parts: Object.fromEntries(Object.entries(t.parts).map(([f, v]) => [f, round(v)])),
    })),
    ...(e.context ? { context: { ...e.context, score: round(e.context.score) } } : {}),
    unit: round(e.unit),
    ...(e.absent ? { absent: { ...e.absent, factor: round(e.absent.factor) } } : {}),
    ...(e.coverage !== undefined ? { coverage: round(e.coverage) } : {}),
    ...(e.naming !== undefined ? { naming: round(e.naming) } : {}),
    ...(e.verb !== undefined ? { verb: round(e.verb) } : {}),
    ...(e.gate !== undefined ? { gate: round(e.gate) } : {}),
  };
}
