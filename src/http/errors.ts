/**
 * Turning every failure into `{error, message}` with a fitting status: refusals from the Durable
 * Object, validation failures, malformed bodies, oversized bodies and unexpected exceptions
 * (which become a bare 500: no stack trace or internal detail reaches a client).
 */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { z } from "zod";
import { issueReasons, listed, type ItemError } from "../catalog/batch.ts";
import type { Limits } from "../config/limits.ts";
import { ERROR_STATUS, errorBody, type ApiError, type ErrorCode, type Result } from "../errors.ts";
import type { AppEnv } from "./context.ts";

export { errorBody };

export function sendError(
  c: Context,
  error: ApiError,
  status: ContentfulStatusCode = ERROR_STATUS[error.error],
  headers: Record<string, string> = {},
): Response {
  return c.json(error, status, headers);
}

/** A refusal on its way to the client: thrown by handlers, answered by onError. */
export class ApiFailure extends Error {
  readonly body: ApiError;
  readonly status: ContentfulStatusCode;
  readonly headers: Record<string, string>;

  constructor(
    body: ApiError,
    status: ContentfulStatusCode = ERROR_STATUS[body.error],
    headers: Record<string, string> = {},
  ) {
    super(body.message);
    this.body = body;
    this.status = status;
    this.headers = headers;
  }
}

/** The success value of a Durable Object call; a refusal is thrown and becomes the response. */
export function expectOk<T>(result: Result<T>): T {
  if (!result.ok) throw new ApiFailure(result.error);
  return result.value;
}

export function refuse(code: ErrorCode, message: string, details: Record<string, unknown> = {}): never {
  throw new ApiFailure(errorBody(code, message, details));
}

/** A refusal for invalid input: the first `max_listed_errors` issues, and how many more there were. */
export function validationError(c: Context, where: string, issues: readonly z.core.$ZodIssue[]): Response {
  const max = (c as Context<AppEnv>).get("config").limits.max_listed_errors;
  const { shown, not_listed } = listed(issueReasons(issues), max);
  const more = not_listed > 0 ? `; and ${not_listed} more` : "";
  return sendError(
    c,
    errorBody("invalid-request", `Invalid ${where}: ${shown.join("; ")}${more}`, { issues: shown, not_listed }),
  );
}

/** The refusal of a batch with bad tools: all counted, the first `max_listed_errors` listed with their reasons. */
export function rejectBatch(errors: ItemError[], total: number, limits: Limits, written = "written"): never {
  const first = errors[0]!;
  const label = `tools[${first.index}]${first.name ? ` (${first.name})` : ""}`;
  const { shown, not_listed } = listed(errors, limits.max_listed_errors);
  refuse(
    "invalid-request",
    `${errors.length} of ${total} tools are invalid; nothing was ${written}. First: ${label}: ` +
      `${first.reasons.slice(0, limits.max_listed_errors).join("; ")}`,
    {
      items: shown.map((e) => ({ ...e, reasons: e.reasons.slice(0, limits.max_listed_errors) })),
      not_listed,
    },
  );
}

/** Hono's error hook: known HTTP exceptions keep their meaning, anything else is an opaque 500. */
export function onError(err: Error, c: Context): Response {
  if (err instanceof ApiFailure) return sendError(c, err.body, err.status, err.headers);
  if (err instanceof HTTPException) {
    const status = err.status;
    if (status === 413)
      return sendError(c, errorBody("payload-too-large", err.message || "The request body is too large."));
    if (status === 415)
      return sendError(
        c,
        errorBody("invalid-request", "Send the body as JSON with Content-Type: application/json."),
        415,
      );
    if (status === 400)
      return sendError(c, errorBody("invalid-request", `${err.message || "Bad request"}. Send a valid JSON body.`));
    if (status === 401) return sendError(c, errorBody("unauthorized", err.message));
    if (status === 403) return sendError(c, errorBody("forbidden", err.message));
    if (status === 404) return sendError(c, errorBody("not-found", err.message));
  }
  // Only the error class reaches the log: never a body, key or token.
  console.error(`internal error on ${c.req.method} ${new URL(c.req.url).pathname}: ${err.name}`);
  return sendError(c, errorBody("internal", "Something went wrong on our side. The request may be retried."));
}
