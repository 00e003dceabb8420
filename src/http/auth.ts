/**
 * Who is calling. `Authorization: Bearer <token>` carries either the operator token (secret
 * ADMIN_TOKEN) or a tenant key, whose tenant must be the one in the path. Both are compared as
 * SHA-256 digests in constant time; the key's secret and scopes are checked by the tenant's own
 * Durable Object. The token's digest also names the credential to the rate limiter.
 */
import type { Context } from "hono";
import type { ServiceConfig } from "../config/env.ts";
import { digestsEqual, hashSecret, parseKey } from "../tenancy/keys.ts";
import type { Caller } from "../tenancy/keys.ts";
import { errorBody, type ApiError } from "../errors.ts";
import type { RateLimitSubject } from "./rate-limit.ts";

export interface Authenticated {
  caller: Caller;
  subject: RateLimitSubject;
}

function bearer(c: Context): string | null {
  const header = c.req.header("authorization") ?? "";
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1]! : null;
}

const operatorDigests = new WeakMap<ServiceConfig, Promise<Uint8Array>>();

/** Whether a token's digest is the operator token's. Equal-length digests, compared in constant time. */
async function isOperator(digest: Uint8Array, config: ServiceConfig): Promise<boolean> {
  if (!config.adminToken) return false;
  let expected = operatorDigests.get(config);
  if (!expected) {
    expected = hashSecret(config.adminToken);
    operatorDigests.set(config, expected);
  }
  return digestsEqual(digest, await expected);
}

const MISSING = "Send 'Authorization: Bearer <key>' with a tenant API key (or the operator token).";

/** The caller for a route under /v1/tenants/{tenant}, or the error to answer with. */
export async function callerFor(c: Context, tenant: string, config: ServiceConfig): Promise<Authenticated | ApiError> {
  const token = bearer(c);
  if (!token) return errorBody("unauthorized", MISSING);
  const digest = await hashSecret(token);
  if (await isOperator(digest, config)) return { caller: { kind: "operator" }, subject: { kind: "operator" } };
  const key = parseKey(token);
  if (!key)
    return errorBody("unauthorized", "The bearer token is neither a tenant API key (tsk_...) nor the operator token.");
  if (key.tenant !== tenant)
    return errorBody("forbidden", "This key belongs to another tenant; a key works only on its own tenant.");
  return {
    caller: { kind: "key", keyId: key.keyId, secret: key.secret },
    subject: { kind: "key", tokenDigest: digest },
  };
}

/** Operator-only routes (creating tenants). */
export async function requireOperator(c: Context, config: ServiceConfig): Promise<Authenticated | ApiError> {
  const token = bearer(c);
  if (!token) return errorBody("unauthorized", "Send 'Authorization: Bearer <operator token>'.");
  if (await isOperator(await hashSecret(token), config))
    return { caller: { kind: "operator" }, subject: { kind: "operator" } };
  if (!config.adminToken)
    return errorBody(
      "unauthorized",
      "No operator token is configured on this deployment (set the ADMIN_TOKEN secret).",
    );
  if (parseKey(token)) return errorBody("forbidden", "Tenant keys cannot create tenants; use the operator token.");
  return errorBody("unauthorized", "The operator token is not valid.");
}

export function isAuthenticated(value: Authenticated | ApiError): value is Authenticated {
  return "caller" in value;
}
