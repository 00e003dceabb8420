/**
 * The client's transport: builds URLs, sends JSON (or NDJSON) with the bearer token, retries
 * overload and server failures, and turns every error answer into a ToolSearchError that carries
 * the service's `{error, message, ...}` body and the status.
 */
import { DEFAULT_RETRY, isRetryable, retryDelayMs, type RetryOptions } from "./retry.ts";
import type { ErrorBody, ErrorCode } from "./types.ts";

/** An error answer from the service (or from something in front of it). */
export class ToolSearchError extends Error {
  readonly status: number;
  readonly body: ErrorBody;

  constructor(status: number, body: ErrorBody) {
    super(`${status} ${body.error}: ${body.message}`);
    this.name = "ToolSearchError";
    this.status = status;
    this.body = body;
  }

  /** The stable error code (see the error table in docs/api.md). */
  get code(): ErrorCode {
    return this.body.error;
  }
}

/** The code an error answer without the service's JSON body gets (a proxy's HTML page, say). */
function codeForStatus(status: number): ErrorCode {
  const byStatus: Record<number, ErrorCode> = {
    401: "unauthorized",
    403: "forbidden",
    404: "not-found",
    409: "conflict",
    413: "payload-too-large",
    429: "rate-limited",
  };
  return byStatus[status] ?? (status >= 500 ? "internal" : "invalid-request");
}

function errorBodyOf(status: number, text: string): ErrorBody {
  try {
    const body = JSON.parse(text) as Partial<ErrorBody>;
    if (typeof body?.error === "string" && typeof body.message === "string") return body as ErrorBody;
  } catch {
    // not JSON: described below
  }
  return { error: codeForStatus(status), message: `HTTP ${status}${text ? `: ${text.slice(0, 200)}` : ""}` };
}

export interface RetryEvent {
  method: string;
  path: string;
  /** 1 for the first retry. */
  attempt: number;
  delayMs: number;
  /** What went wrong: the status and code, or the network error's message. */
  reason: string;
}

export interface ClientOptions {
  /** The service's base URL, e.g. http://localhost:8787. */
  url: string;
  /** A tenant API key or the operator token, sent as `Authorization: Bearer`. */
  token?: string;
  /** Retries of 429 (not a spent search budget), 5xx and network errors; false turns them off. */
  retry?: Partial<RetryOptions> | false;
  /** Called before each retry (for progress output). */
  onRetry?: (event: RetryEvent) => void;
  /** A fetch to use instead of the global one (tests, service bindings, proxies). */
  fetch?: (request: Request) => Promise<Response>;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
}

export type Query = Record<string, string | number | boolean | undefined>;

export interface RequestOptions {
  query?: Query;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as is, with this content type. */
  raw?: { body: string; contentType: string };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class Http {
  private readonly base: string;
  private readonly retry: RetryOptions;
  private readonly send: (request: Request) => Promise<Response>;
  private readonly options: ClientOptions;

  constructor(options: ClientOptions) {
    this.options = options;
    this.base = options.url.replace(/\/+$/, "");
    this.retry = options.retry === false ? { ...DEFAULT_RETRY, retries: 0 } : { ...DEFAULT_RETRY, ...options.retry };
    this.send = options.fetch ?? ((request) => fetch(request));
  }

  url(path: string, query: Query = {}): string {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, String(v));
    const qs = params.toString();
    return `${this.base}${path}${qs ? `?${qs}` : ""}`;
  }

  /** Sends the request (again while retryable) and returns the parsed JSON body; undefined for 204. */
  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const headers: Record<string, string> = { accept: "application/json", ...this.options.headers };
    if (this.options.token) headers.authorization = `Bearer ${this.options.token}`;
    let body: string | undefined;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers["content-type"] = "application/json";
    } else if (options.raw) {
      body = options.raw.body;
      headers["content-type"] = options.raw.contentType;
    }
    const url = this.url(path, options.query);
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await this.send(new Request(url, { method, headers, body }));
      } catch (e) {
        if (attempt >= this.retry.retries) throw e;
        await this.wait(
          { method, path, attempt: attempt + 1, reason: e instanceof Error ? e.message : String(e) },
          null,
        );
        continue;
      }
      const text = await response.text();
      if (response.ok) return (text ? JSON.parse(text) : undefined) as T;
      const error = errorBodyOf(response.status, text);
      if (attempt >= this.retry.retries || !isRetryable(response.status, error.error))
        throw new ToolSearchError(response.status, error);
      await this.wait(
        { method, path, attempt: attempt + 1, reason: `${response.status} ${error.error}` },
        response.headers.get("retry-after"),
      );
    }
  }

  private async wait(event: Omit<RetryEvent, "delayMs">, retryAfter: string | null): Promise<void> {
    const delayMs = retryDelayMs(event.attempt, retryAfter, this.retry);
    this.options.onRetry?.({ ...event, delayMs });
    await sleep(delayMs);
  }
}
