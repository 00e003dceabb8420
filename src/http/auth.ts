/**
 * Who is calling. `Authorization: Bearer <token>` carries either the operator token (secret
 * ADMIN_TOKEN, compared in constant time) or a tenant key, whose tenant must be the one in the
 * path. The key's secret and scopes are checked by the tenant's own Durable Object.
 */
import type { Context } from "hono";
import type { ServiceConfig } from "../config/env.ts";
import { digestsEqual, hashSecret, parseKey } from "../durable/keys.ts";
import type { Caller } from "../durable/tenant-object.ts";
import type { ApiError } from "../errors.ts";
import { errorBody } from "./errors.ts";

function bearer(c: Context): string | null {
  const header = c.req.header("authorization") ?? "";
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1]! : null;
}

async function isOperatorToken(token: string, config: ServiceConfig): Promise<boolean> {
  if (!config.adminToken) return false;
  // Hashing both sides first gives equal lengths, so the comparison time says nothing about the token.
  return digestsEqual(await hashSecret(token), await hashSecret(config.adminToken));
}

const MISSING = "Send 'Authorization: Bearer <key>' with a tenant API key (or the operator token).";

/** The caller for a route under /v1/tenants/{tenant}, or the error to answer with. */
export async function callerFor(c: Context, tenant: string, config: ServiceConfig): Promise<Caller | ApiError> {
  const token = bearer(c);
  if (!token) return errorBody("unauthorized", MISSING);
  if (await isOperatorToken(token, config)) return { kind: "operator" };
  const key = parseKey(token);
  if (!key) return errorBody("unauthorized", "The bearer token is neither a tenant API key (tsk_...) nor the operator token.");
  if (key.tenant !== tenant) return errorBody("forbidden", "This key belongs to another tenant; a key works only on its own tenant.");
  return { kind: "key", keyId: key.keyId, secret: key.secret };
}

/** Operator-only routes (creating tenants). */
export async function requireOperator(c: Context, config: ServiceConfig): Promise<ApiError | null> {
  const token = bearer(c);
  if (!token) return errorBody("unauthorized", "Send 'Authorization: Bearer <operator token>'.");
  if (await isOperatorToken(token, config)) return null;
  if (!config.adminToken) return errorBody("unauthorized", "No operator token is configured on this deployment (set the ADMIN_TOKEN secret).");
  if (parseKey(token)) return errorBody("forbidden", "Tenant keys cannot create tenants; use the operator token.");
  return errorBody("unauthorized", "The operator token is not valid.");
}

export function isCaller(value: Caller | ApiError): value is Caller {
  return "kind" in value;
}
