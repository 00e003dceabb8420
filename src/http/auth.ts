/**
 * Who is calling, settled before any body is read. `Authorization: Bearer <token>` carries either
 * the operator token (secret ADMIN_TOKEN) or a tenant key, whose tenant must be the one in the path.
 *
 * In the Worker, without storage: the operator token is compared as a SHA-256 digest in constant
 * time; a key must be well formed, name the path's tenant (403 otherwise) and carry a valid tag (a
 * MAC under the deployment's signing secret, or the public checksum: see tenancy/keys.ts), so a
 * mistyped, truncated or forged key is 401 here. Then one small call to the tenant's object checks
 * the key's secret, that it is not revoked and its scope for the route (`verifyKey`), still before
 * the body is read. The token's digest also names the credential to the rate limiter.
 */
import type { Context } from "hono";
import type { ServiceConfig } from "../config/env.ts";
import { checkKeyTag, digestsEqual, hashSecret, parseKey, type Scope } from "../tenancy/keys.ts";
import type { Caller } from "../tenancy/keys.ts";
import { errorBody, type ApiError, type Result } from "../errors.ts";
import type { TenantApi } from "./context.ts";
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

/** The caller for a route under /v1/tenants/{tenant}, or the error to answer with; no storage is touched. */
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
  const tag = await checkKeyTag(key, config.keySigningSecrets);
  if (tag === "invalid")
    return errorBody("unauthorized", "The API key's checksum does not match: it is mistyped, cut short or not a key.");
  if (tag !== "signed" && config.requireSignedKeys)
    return errorBody(
      "unauthorized",
      "This API key was made before this deployment signed its keys and is no longer accepted; ask an admin " +
        "for a new one.",
    );
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
  if (parseKey(token)) return errorBody("forbidden", "Tenant keys cannot manage tenants; use the operator token.");
  return errorBody("unauthorized", "The operator token is not valid.");
}

export function isAuthenticated(value: Authenticated | ApiError): value is Authenticated {
  return "caller" in value;
}

// ---- keys verified by their tenant's object, remembered briefly ---------------------------------

/**
 * How long this isolate remembers that a key was valid, and for which scopes. Within that time a
 * request with the key skips the call that verifies it before its body is read; the call that does
 * the work checks the key again in the object, so a revoked key does no tenant work from the moment
 * it is revoked. All it can still get, for at most this long and only where it was seen valid
 * before, is its body read and validated before the object refuses it.
 */
const VERIFIED_KEY_SECONDS = 10;
/** Keys remembered, at most (the oldest are forgotten first). Only valid keys are ever remembered. */
const MAX_VERIFIED = 10_000;

interface Verified {
  tenant: string;
  keyId: string;
  scopes: readonly Scope[];
  until: number;
}

const verified = new Map<string, Verified>();

function cacheKey(digest: Uint8Array): string {
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Checks a key against its tenant's object before any body is read: 401 unless the object knows it
 * and it is not revoked (or the tenant does not exist), 403 without `scope` (null: a route this
 * service does not serve, where only the key's validity matters).
 */
export async function verifyKey(
  who: Authenticated,
  tenant: string,
  stub: TenantApi,
  scope: Scope | null,
): Promise<Result<null>> {
  if (who.caller.kind !== "key" || who.subject.kind !== "key") return { ok: true, value: null };
  const id = cacheKey(who.subject.tokenDigest);
  const known = verified.get(id);
  if (known && known.tenant === tenant && known.until > Date.now()) {
    if (scope === null || known.scopes.includes(scope)) return { ok: true, value: null };
    return {
      ok: false,
      error: errorBody("forbidden", `This key lacks the '${scope}' scope. Ask an admin for a key with it.`, {
        required_scope: scope,
      }),
    };
  }
  const checked = await stub.authenticate(who.caller, scope);
  if (!checked.ok) return checked;
  verified.delete(id);
  if (verified.size >= MAX_VERIFIED) verified.delete(verified.keys().next().value!);
  verified.set(id, {
    tenant,
    keyId: who.caller.keyId,
    scopes: checked.value.scopes,
    until: Date.now() + VERIFIED_KEY_SECONDS * 1000,
  });
  return { ok: true, value: null };
}

/** After a revocation: this isolate forgets the key at once (others within VERIFIED_KEY_SECONDS). */
export function forgetKey(tenant: string, keyId: string): void {
  for (const [id, entry] of verified) if (entry.tenant === tenant && entry.keyId === keyId) verified.delete(id);
}
