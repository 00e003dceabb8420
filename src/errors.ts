/**
 * The one table of error codes. Every error response is `{error, message, ...details}`; codes are
 * stable strings that clients may branch on, statuses follow from the code.
 */
export const ERROR_STATUS = {
  "invalid-request": 400,
  unauthorized: 401,
  forbidden: 403,
  "not-found": 404,
  conflict: 409,
  "tool-not-active": 409,
  gone: 410,
  "payload-too-large": 413,
  "search-budget-exhausted": 429,
  "rate-limited": 429,
  internal: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

/** An error as it crosses the Durable Object boundary and reaches the client. */
export interface ApiError {
  error: ErrorCode;
  message: string;
  [detail: string]: unknown;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: ApiError };

export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

/**
 * An error body. A message that names a limit (see limitNote in config/limits.ts) gets
 * `limit` and `max` details too, so clients can tell which limit refused them.
 */
export function errorBody(error: ErrorCode, message: string, details: Record<string, unknown> = {}): ApiError {
  const named = LIMIT_NOTE.exec(message);
  return { error, message, ...(named ? { limit: named[1], max: Number(named[2]) } : {}), ...details };
}

const LIMIT_NOTE = /\(limit ([a-z_]+) = (\d+)\)/;

export function fail(
  error: ErrorCode,
  message: string,
  details: Record<string, unknown> = {},
): { ok: false; error: ApiError } {
  return { ok: false, error: errorBody(error, message, details) };
}
