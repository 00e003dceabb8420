/** Small builders for route declarations, so each route reads as what it accepts and returns. */
import type { z } from "zod";
import { ErrorSchema } from "./schemas.ts";
import { ERROR_STATUS, type ErrorCode } from "../errors.ts";

export const BEARER = [{ bearer: [] }];

export function jsonContent<T extends z.ZodType>(schema: T, description: string) {
  return { content: { "application/json": { schema } }, description };
}

export function jsonBody<T extends z.ZodType>(schema: T, description?: string) {
  return { content: { "application/json": { schema } }, required: true, ...(description ? { description } : {}) };
}

/** The documented error responses of a route, one per status. */
export function errorResponses(...codes: ErrorCode[]) {
  const out: Record<number, ReturnType<typeof jsonContent<typeof ErrorSchema>>> = {};
  for (const code of new Set<ErrorCode>(["invalid-request", "unauthorized", ...codes])) {
    const status = ERROR_STATUS[code];
    const previous = out[status]?.description;
    out[status] = jsonContent(ErrorSchema, previous ? `${previous}, ${code}` : code);
  }
  return out;
}
