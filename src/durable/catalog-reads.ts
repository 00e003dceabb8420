/**
 * What the catalog answers without a search: pages of tools, one tool, the catalog's figures, the
 * deferred list, the plan, and export pages with the facts vendor renderings need.
 */
import { ANTHROPIC_MAX_DEFERRED, NAMESPACE_NAMES_SHOWN, type ServerSummary } from "../catalog/vendor.ts";
import { definitionText, TOKENIZER, tokenCounter } from "../catalog/tokens.ts";
import type { ToolRow } from "../catalog/tool.ts";
import { round } from "../contract/figures.ts";
import type { Catalog } from "../contract/schemas.ts";
import type { Plan, PlanRequest } from "../contract/session-schemas.ts";
import { ok, type Result } from "../errors.ts";
import type { DeferredLine } from "../sessions/deferred-list.ts";
import { decidePlan, type PlanThresholds } from "../sessions/plan.ts";
import { TOOL_SEARCH_NAME } from "../sessions/tool-list.ts";
import type { SessionService } from "./session-service.ts";
import type { TenantParts } from "./tenant-parts.ts";
import type { TenantSettings } from "./tenant-settings.ts";
import { unknownTool } from "./unknown-tool.ts";

/** A page by tool id: after `after`, of one server when named. */
export interface PageOptions {
  after?: string | undefined;
  server?: string | undefined;
  limit: number;
}

/** What a vendor rendering needs besides the rows (see catalog/vendor.ts). */
export interface ExportFacts {
  /** Ids of the given tools that are deferred (the others are always loaded). */
  deferred: string[];
  servers: ServerSummary[];
}

export interface ExportPage {
  revision: number;
  rows: ToolRow[];
  facts: ExportFacts;
  /** The last id of this page when more follow. */
  next: string | null;
  /** tool_search's definition (budget: the tenant's), on the first page when asked for. */
  toolSearch: ToolRow | null;
  /**
   * With `parts`: the export cut into parts of at most ANTHROPIC_MAX_DEFERRED deferred tools (what one Anthropic
   * request may carry); a page never spans two parts.
   */
  parts?: { part: number; parts: number; deferredTotal: number };
}

type Parts = Pick<TenantParts, "meta" | "repo" | "views" | "index" | "history" | "transaction"> & {
  settings: TenantSettings;
  sessions: SessionService;
};

export class CatalogReads {
  private readonly tenant: Parts;

  constructor(tenant: Parts) {
    this.tenant = tenant;
  }

  listTools(options: PageOptions): Result<{ tools: ToolRow[]; more: boolean }> {
    const page = this.tenant.repo.listTools({ ...options, limit: options.limit + 1 });
    return ok({ tools: page.slice(0, options.limit), more: page.length > options.limit });
  }

  getTool(id: string): Result<ToolRow> {
    const row = this.tenant.repo.getTool(id);
    return row ? ok(row) : unknownTool(this.tenant.index.get(), id);
  }

  async catalogInfo(): Promise<Result<Catalog>> {
    const count = await tokenCounter();
    const totals = this.tenant.transaction(() =>
      this.tenant.views.tokenTotals(count, this.tenant.settings.current().default_defer),
    );
    const none = { definitions: 0, always_loaded: 0, always_loaded_tools: 0 };
    return ok({
      revision: this.tenant.meta.number("revision"),
      tools: totals.tools.total,
      always_loaded: totals.tools.always_loaded,
      deferred: totals.tools.deferred,
      servers: this.tenant.repo.servers().map((s) => {
        const figures = totals.servers.get(s.name) ?? none;
        return {
          ...s,
          always_loaded: figures.always_loaded_tools,
          tokens: { definitions: figures.definitions, always_loaded: figures.always_loaded },
        };
      }),
      tokens: { tokenizer: TOKENIZER, ...totals.tokens },
      index: this.tenant.index.lastLoad,
      snapshot: this.tenant.index.snapshotInfo(),
      history: this.tenant.history.stats(),
    });
  }

  deferredList(options: PageOptions): Result<{ revision: number; lines: DeferredLine[]; next: string | null }> {
    return ok({
      revision: this.tenant.meta.number("revision"),
      ...this.tenant.views.deferredPage(this.tenant.settings.current().default_defer, options),
    });
  }

  async plan(request: PlanRequest): Promise<Result<Plan>> {
    const count = await tokenCounter();
    const settings = this.tenant.settings.current();
    const totals = this.tenant.transaction(() => this.tenant.views.tokenTotals(count, settings.default_defer));
    const thresholds: PlanThresholds = {
      min_tools: request.min_tools ?? settings.plan.min_tools,
      min_pct: request.min_pct ?? settings.plan.min_pct,
      min_tokens: request.min_tokens ?? settings.plan.min_tokens,
    };
    const search = this.tenant.sessions.toolSearchTool(settings.search_budget);
    const toolSearch = count(definitionText(search, TOOL_SEARCH_NAME));
    const withSearch = totals.tokens.always_loaded + toolSearch + totals.tokens.deferred_list;
    const decision = decidePlan(
      {
        contextWindow: request.context_window,
        deferredTools: totals.tools.deferred,
        deferredTokens: totals.tokens.deferred_definitions,
      },
      thresholds,
    );
    return ok({
      ...decision,
      context_window: request.context_window,
      thresholds,
      share_pct: round((totals.tokens.deferred_definitions / request.context_window) * 100),
      tools: totals.tools,
      tokens: {
        ...totals.tokens,
        tool_search: toolSearch,
        with_search: withSearch,
        saving: totals.tokens.catalog - withSearch,
      },
      tokenizer: TOKENIZER,
    });
  }

  /**
   * A page of the catalog for a vendor export. A page ends at a server boundary unless one server
   * alone fills it, so an OpenAI namespace is split across pages only when it must be.
   */
  exportPage(options: PageOptions & { withToolSearch: boolean; parts?: boolean }): Result<ExportPage> {
    const rows = this.tenant.repo.listTools({ after: options.after, server: options.server, limit: options.limit + 1 });
    let page = rows.slice(0, options.limit);
    let following = rows[options.limit];
    if (following && following.server === page.at(-1)!.server) {
      const start = page.findIndex((r) => r.server === following!.server);
      if (start > 0) page = page.slice(0, start);
    }
    const settings = this.tenant.settings.current();
    let parts: ExportPage["parts"];
    if (options.parts) {
      const always = this.tenant.views.alwaysLoaded(settings.default_defer).has;
      const deferredUpTo = (id: string | undefined) => this.deferredCount(always, options.server, id);
      const before = options.after === undefined ? 0 : deferredUpTo(options.after);
      const deferredTotal = deferredUpTo(undefined);
      const part = Math.floor(before / ANTHROPIC_MAX_DEFERRED) + 1;
      // The page ends before the deferred tool that would start the next part.
      let deferred = before;
      const end = page.findIndex((r) => !always.has(r.id) && ++deferred > part * ANTHROPIC_MAX_DEFERRED);
      if (end > 0) page = page.slice(0, end);
      parts = { part, parts: Math.max(1, Math.ceil(deferredTotal / ANTHROPIC_MAX_DEFERRED)), deferredTotal };
    }
    following = page.length < rows.length ? rows[page.length] : undefined;
    return ok({
      revision: this.tenant.meta.number("revision"),
      rows: page,
      facts: this.exportFacts(page.map((r) => ({ id: r.id, server: r.server }))),
      next: following ? page.at(-1)!.id : null,
      ...(parts ? { parts } : {}),
      toolSearch:
        options.withToolSearch && options.after === undefined
          ? this.tenant.sessions.toolSearchTool(settings.search_budget)
          : null,
    });
  }

  /** Deferred tools (of `server`, when given) with ids up to `upTo` (all when undefined). */
  private deferredCount(always: ReadonlySet<string>, server: string | undefined, upTo: string | undefined): number {
    const inScope = (id: string) =>
      (upTo === undefined || id <= upTo) && (server === undefined || id.startsWith(`${server}::`));
    let alwaysLoaded = 0;
    for (const id of always) if (inScope(id)) alwaysLoaded++;
    return this.tenant.repo.countTools({ server, upTo }) - alwaysLoaded;
  }

  exportFacts(tools: { id: string; server: string }[]): ExportFacts {
    const always = this.tenant.views.alwaysLoaded(this.tenant.settings.current().default_defer).has;
    return {
      deferred: tools.filter((t) => !always.has(t.id)).map((t) => t.id),
      servers: this.tenant.repo.serverSummaries(
        tools.map((t) => t.server),
        NAMESPACE_NAMES_SHOWN,
      ),
    };
  }
}
