/**
 * Small builders for route declarations, so each route reads as what it accepts, whom it serves and what it returns.
 */
import type { z } from "zod";
import type { Scope } from "../tenancy/keys.ts";
import { ERROR_STATUS, type ErrorCode } from "../errors.ts";
import { ErrorSchema } from "../contract/schemas.ts";

/** Who may call a route: a tenant key scope (the operator token holds every scope), or the operator alone. */
export type Access = Scope | "operator";

/**
 * The route's security requirement, with the scope it needs as the requirement's role (OpenAPI 3.1
 * allows roles for non-OAuth schemes). This is the one declaration of a route's scope: the
 * documentation shows it and the access-matrix tests read it from /openapi.json.
 */
export function requires(access: Access) {
  return [{ bearer: [access] }];
}

export function jsonContent<T extends z.ZodType>(schema: T, description: string) {
  return { content: { "application/json": { schema } }, description };
}

export function jsonBody<T extends z.ZodType>(schema: T, description?: string) {
  return { content: { "application/json": { schema } }, required: true, ...(description ? { description } : {}) };
}

/** The documented error responses of a route, one per status (every authenticated route may be rate limited). */
export function errorResponses(...codes: ErrorCode[]) {
  const out: Record<number, ReturnType<typeof jsonContent<typeof ErrorSchema>>> = {};
  for (const code of new Set<ErrorCode>(["invalid-request", "unauthorized", "rate-limited", ...codes])) {
    const status = ERROR_STATUS[code];
    const previous = out[status]?.description;
    out[status] = jsonContent(ErrorSchema, previous ? `${previous}, ${code}` : code);
  }
  return out;
}
