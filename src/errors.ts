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

export function fail(error: ErrorCode, message: string, details: Record<string, unknown> = {}): { ok: false; error: ApiError } {
  return { ok: false, error: { error, message, ...details } };
}
