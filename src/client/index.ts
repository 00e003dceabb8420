/**
 * The typed TypeScript client of the tool-search HTTP API (`tool-search/client`).
 *
 *   const client = new ToolSearchClient({ url: "http://localhost:8787", token: key });
 *   const acme = client.tenant("acme");
 *   await acme.servers.replaceTools("github", { tools });
 *   const { results } = await acme.search({ query: "list open issues" });
 *
 * Every method maps to one route; its request and response types come from the zod schemas in
 * src/contract/schemas.ts and session-schemas.ts (see types.ts). Error answers throw ToolSearchError
 * with the `{error, message}` body and the status. A route group added to the API gets a namespace
 * on TenantClient built the same way; `request()` reaches any route in the meantime.
 */
import { mergeExportPages } from "./export.ts";
import { Http, type ClientOptions, type Query, type RequestOptions } from "./http.ts";
import type {
  CallToolResult,
  Catalog,
  CatalogExport,
  CatalogExportQuery,
  CreatedKey,
  CreateKeyRequest,
  CreateSessionRequest,
  CreateTenantRequest,
  DeferredList,
  DeferredQuery,
  DoctorQuery,
  DoctorReport,
  FormatQuery,
  KeyInfo,
  KeyList,
  LearnedForgotten,
  LearnedPage,
  LearnedQuery,
  LearnedTool,
  ListToolsQuery,
  Plan,
  PlanRequest,
  PurgedSessions,
  ResolvedTool,
  ResolveRequest,
  SearchRequest,
  SearchResponse,
  ServerTools,
  Session,
  SessionToolList,
  SetSessionToolsRequest,
  SetSessionToolsResult,
  Settings,
  SettingsPatch,
  StartTurnRequest,
  Tenant,
  ToolBatchResult,
  ToolDetail,
  ToolInput,
  ToolPage,
  ToolResultObject,
  ToolSummary,
  Usage,
  UsageQuery,
} from "./types.ts";

export { mergeExportPages } from "./export.ts";
export { ToolSearchError, type ClientOptions, type RetryEvent } from "./http.ts";
export { DEFAULT_RETRY, type RetryOptions } from "./retry.ts";
export type * from "./types.ts";

const enc = encodeURIComponent;

export class ToolSearchClient {
  private readonly http: Http;

  constructor(options: ClientOptions) {
    this.http = new Http(options);
  }

  /** GET /healthz */
  health(): Promise<{ ok: boolean }> {
    return this.http.request("GET", "/healthz");
  }

  /** POST /v1/tenants (operator token) */
  createTenant(body: CreateTenantRequest): Promise<Tenant> {
    return this.http.request("POST", "/v1/tenants", { json: body });
  }

  /** The routes under /v1/tenants/{tenant}. */
  tenant(id: string): TenantClient {
    return new TenantClient(this.http, id);
  }

  /** Any route, for what has no method yet; the path starts with `/`. */
  request<T>(method: string, path: string, options?: RequestOptions): Promise<T> {
    return this.http.request<T>(method, path, options);
  }
}

export class TenantClient {
  readonly id: string;
  private readonly http: Http;
  private readonly base: string;

  constructor(http: Http, id: string) {
    this.http = http;
    this.id = id;
    this.base = `/v1/tenants/${enc(id)}`;
  }

  /** API keys (admin scope; the operator token may create them too). */
  readonly keys = {
    /** POST .../keys: the secret `key` is in this answer only. */
    create: (body: CreateKeyRequest): Promise<CreatedKey> => this.call("POST", "/keys", { json: body }),
    /** GET .../keys: without secrets. */
    list: async (): Promise<KeyInfo[]> => (await this.call<KeyList>("GET", "/keys")).keys,
    /** DELETE .../keys/{keyId}: effective immediately; the sessions the key created end with it. */
    revoke: async (keyId: string): Promise<void> => {
      await this.call<undefined>("DELETE", `/keys/${enc(keyId)}`);
    },
    /** DELETE .../keys/{keyId}/sessions: ends every session the key created; the key stays valid. */
    purgeSessions: (keyId: string): Promise<PurgedSessions> => this.call("DELETE", `/keys/${enc(keyId)}/sessions`),
  };

  /** Tenant settings (admin scope). */
  readonly settings = {
    get: (): Promise<Settings> => this.call("GET", "/settings"),
    /** Any subset; nested objects merge key by key, null resets a weight or the threshold. */
    patch: (patch: SettingsPatch): Promise<Settings> => this.call("PATCH", "/settings", { json: patch }),
  };

  /** What tools learned from use (admin scope). */
  readonly learned = {
    /** GET .../learned?tool_id=: one tool's learned terms and their weights today. */
    tool: (toolId: string): Promise<LearnedTool> => this.call("GET", "/learned", { query: { tool_id: toolId } }),
    /** GET .../learned: a page of the tools that learned something. */
    list: (query: LearnedQuery = {}): Promise<LearnedPage> => this.call("GET", "/learned", { query: query as Query }),
    /** DELETE .../learned: forget all of it; the ranking is then what it was before any learning. */
    forget: (): Promise<LearnedForgotten> => this.call("DELETE", "/learned"),
  };

  /** Tools across servers. */
  readonly tools = {
    /** POST .../tools: add or update a batch, all or nothing; each tool names its `server`. */
    upsert: (tools: ToolInput[]): Promise<ToolBatchResult> => this.call("POST", "/tools", { json: { tools } }),
    /** POST .../tools as NDJSON: one tool per line (lines given as text, or tools to serialise). */
    upsertNdjson: (lines: string | ToolInput[]): Promise<ToolBatchResult> =>
      this.call("POST", "/tools", {
        raw: {
          body: typeof lines === "string" ? lines : lines.map((t) => JSON.stringify(t)).join("\n"),
          contentType: "application/x-ndjson",
        },
      }),
    /** GET .../tools: one page of summaries, ordered by tool_id. */
    list: (query: ListToolsQuery = {}): Promise<ToolPage> => this.call("GET", "/tools", { query: query as Query }),
    /** Every summary, following `next_cursor` page by page. */
    all: (query: Omit<ListToolsQuery, "cursor"> = {}): AsyncIterable<ToolSummary> => this.pages(query),
    /** GET .../tools/{tool_id}: the full definition in `format` (mcp by default). */
    get: (toolId: string, query: FormatQuery = {}): Promise<ToolDetail> =>
      this.call("GET", `/tools/${enc(toolId)}`, { query: query as Query }),
    /** DELETE .../tools/{tool_id} */
    delete: (toolId: string): Promise<ToolBatchResult> => this.call("DELETE", `/tools/${enc(toolId)}`),
  };

  /** Tools of one server. */
  readonly servers = {
    /** PUT .../servers/{server}/tools: afterwards the server holds exactly these tools (setTools). */
    replaceTools: (server: string, body: ServerTools): Promise<ToolBatchResult> =>
      this.call("PUT", `/servers/${enc(server)}/tools`, { json: body }),
    /** DELETE .../servers/{server}: the server and all its tools. */
    delete: (server: string): Promise<ToolBatchResult> => this.call("DELETE", `/servers/${enc(server)}`),
  };

  /** GET .../catalog: revision, tools per server, always-loaded and deferred counts, token figures, index state. */
  catalog(): Promise<Catalog> {
    return this.call("GET", "/catalog");
  }

  /** GET .../catalog/deferred: a page of the compact `server::tool: description` lines. */
  deferredList(query: DeferredQuery = {}): Promise<DeferredList> {
    return this.call("GET", "/catalog/deferred", { query: query as Query });
  }

  /** GET .../doctor: the catalog doctor's findings (stable codes), errors first. */
  doctor(query: DoctorQuery = {}): Promise<DoctorReport> {
    return this.call("GET", "/doctor", { query: query as Query });
  }

  /** GET .../usage: searches, no-match share, budget refusals per UTC day; top no-match queries; unused tools. */
  usage(query: UsageQuery = {}): Promise<Usage> {
    return this.call("GET", "/usage", { query: query as Query });
  }

  /** POST .../search: exactly one of `tool_id` or `query`; with `session_id`, inside that session. */
  search(body: SearchRequest): Promise<SearchResponse> {
    return this.call("POST", "/search", { json: body });
  }

  /**
   * GET .../catalog/export: one page of the catalog in a vendor's deferred form (`format` anthropic or
   * openai-responses).
   */
  catalogExport(query: CatalogExportQuery): Promise<CatalogExport> {
    return this.call("GET", "/catalog/export", { query: query as Query });
  }

  /**
   * The whole export, page after page, as one `tools` array ready for a model request (an OpenAI
   * namespace split across pages is merged back into one). Anthropic takes at most 10,000 deferred
   * tools per request: an export with more comes in parts (see `parts` on each page), and this
   * returns one of them, `part` (default 1).
   */
  async catalogExportAll(
    query: Omit<CatalogExportQuery, "cursor"> & { part?: number },
  ): Promise<CatalogExport["tools"]> {
    const { part = 1, ...rest } = query;
    const pages: Pick<CatalogExport, "tools">[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.catalogExport({ ...rest, ...(cursor ? { cursor } : {}) });
      if ((page.part ?? 1) > part) break;
      if ((page.part ?? 1) === part) pages.push(page);
      // tool_search, which opens the first page, opens every part: a request needs a tool that is not deferred.
      else if (!cursor && page.tools[0]?.name === "tool_search") pages.push({ tools: [page.tools[0]] });
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    return mergeExportPages(pages);
  }

  /** POST .../plan: whether tool search pays off for a context window, and the token figures. */
  plan(body: PlanRequest): Promise<Plan> {
    return this.call("POST", "/plan", { json: body });
  }

  /**
   * POST .../tool-results: an MCP CallToolResult as {textResultForLlm, resultType, sessionLog, binaryResultsForLlm}.
   */
  convertToolResult(result: CallToolResult): Promise<ToolResultObject> {
    return this.call("POST", "/tool-results", { json: result });
  }

  /** Agent sessions (search scope). */
  readonly sessions = {
    /**
     * POST .../sessions: every option is optional; a retried create with the same session_id answers the same session.
     * `message` (the user's first message) loads the tools it clearly asks for, as `startTurn` does.
     */
    create: (body: CreateSessionRequest = {}): Promise<Session> => this.call("POST", "/sessions", { json: body }),
  };

  /** The routes of one session. */
  session(id: string): SessionClient {
    return new SessionClient(this.http, this.base, id);
  }

  private call<T>(method: string, path: string, options?: RequestOptions): Promise<T> {
    return this.http.request<T>(method, `${this.base}${path}`, options);
  }

  private async *pages(query: Omit<ListToolsQuery, "cursor">): AsyncIterable<ToolSummary> {
    let cursor: string | undefined;
    do {
      const page = await this.tools.list({ ...query, ...(cursor ? { cursor } : {}) });
      yield* page.tools;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }
}

export class SessionClient {
  readonly id: string;
  private readonly http: Http;
  private readonly tenantBase: string;
  private readonly base: string;

  constructor(http: Http, tenantBase: string, id: string) {
    this.http = http;
    this.tenantBase = tenantBase;
    this.base = `${tenantBase}/sessions/${enc(id)}`;
    this.id = id;
  }

  private call<T>(method: string, path: string, options?: RequestOptions): Promise<T> {
    return this.http.request<T>(method, `${this.base}${path}`, options);
  }

  /** GET .../sessions/{id}: turn, budget, always-loaded, activated, client tools. */
  get(): Promise<Session> {
    return this.call("GET", "");
  }

  /** DELETE .../sessions/{id} */
  async end(): Promise<void> {
    await this.call<undefined>("DELETE", "");
  }

  /**
   * POST .../sessions/{id}/turns: the next turn (the budget resets); give `turn` to make a retry safe. Give `message`
   * (the user's message) and the deferred tools that clearly fit it are loaded at once: the answer's `suggested` lists
   * them, and the next `toolList()` has them, after the tools it had. `suggest: {max, threshold}` overrides the
   * tenant's settings for this turn.
   *
   *   const { suggested } = await session.startTurn({ turn: 2, message: userText });
   */
  startTurn(body: StartTurnRequest = {}): Promise<Session> {
    return this.call("POST", "/turns", { json: body });
  }

  /** GET .../sessions/{id}/tools: the definitions to send with the next model request. */
  toolList(query: FormatQuery = {}): Promise<SessionToolList> {
    return this.call("GET", "/tools", { query: query as Query });
  }

  /** PUT .../sessions/{id}/tools: replace the session's own client tools (setTools). */
  setTools(tools: SetSessionToolsRequest["tools"]): Promise<SetSessionToolsResult> {
    return this.call("PUT", "/tools", { json: { tools } });
  }

  /**
   * POST .../sessions/{id}/resolve: the definition of a tool the model called; 409 tool-not-active carries the rescue
   * message.
   */
  resolve(body: ResolveRequest): Promise<ResolvedTool> {
    return this.call("POST", "/resolve", { json: body });
  }

  /** POST .../search inside this session: counts against its budget and activates what it finds. */
  search(body: Omit<SearchRequest, "session_id">): Promise<SearchResponse> {
    return this.http.request("POST", `${this.tenantBase}/search`, { json: { ...body, session_id: this.id } });
  }
}
