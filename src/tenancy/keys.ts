/**
 * Tenant ids, API keys and their scopes, and who calls: pure rules that the Worker (auth), the tenant object
 * (key records) and the upload CLI (a key names its tenant) share. Keys look like `tsk_<tenant>_<key id>_<secret>`.
 *
 * The recognisable `tsk_` prefix lets secret scanners find leaked keys; the tenant in the key lets
 * the Worker refuse a key on another tenant's path before any storage is touched; the key id
 * finds the stored record; only the SHA-256 of the secret is stored, and it is compared in
 * constant time.
 */
import { z } from "zod";

const SCOPES = ["search", "write", "admin"] as const;
export const ScopeSchema = z
  .enum(SCOPES)
  .describe("search: search and sessions; write: the catalog; admin: keys and settings");
export type Scope = z.infer<typeof ScopeSchema>;

/** Tenant ids: 1-63 of a-z 0-9 -, starting with a letter or digit (no `_`, so keys split one way). */
export const TENANT_ID = /^[a-z0-9][a-z0-9-]{0,62}$/;

const KEY_PATTERN = /^tsk_([a-z0-9][a-z0-9-]{0,62})_([a-z0-9]{12})_([A-Za-z0-9]{40})$/;
export const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** Who makes a call to a tenant object: the operator, or the holder of a key (checked by the object). */
export type Caller = { kind: "operator" } | { kind: "key"; keyId: string; secret: string };

export interface ParsedKey {
  tenant: string;
  keyId: string;
  secret: string;
}

export function parseKey(token: string): ParsedKey | null {
  const m = KEY_PATTERN.exec(token);
  return m ? { tenant: m[1]!, keyId: m[2]!, secret: m[3]! } : null;
}

/** Unbiased random characters from `alphabet` (rejection sampling over random bytes). */
export function randomString(length: number, alphabet: string): string {
  const limit = 256 - (256 % alphabet.length);
  let out = "";
  while (out.length < length) {
    for (const byte of crypto.getRandomValues(new Uint8Array(length * 2))) {
      if (byte < limit && out.length < length) out += alphabet[byte % alphabet.length];
    }
  }
  return out;
}

/** A new key: about 238 bits of secret. */
export function generateKey(tenant: string): ParsedKey & { key: string } {
  const keyId = randomString(12, "abcdefghijklmnopqrstuvwxyz0123456789");
  const secret = randomString(40, ALPHABET);
  return { tenant, keyId, secret, key: `tsk_${tenant}_${keyId}_${secret}` };
}

export async function hashSecret(secret: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(secret)));
}

/**
 * Equality of two digests in constant time (the runtime's `timingSafeEqual`): how long it takes
 * says nothing about where they differ. Digests of secrets always have the same length, so the
 * length check reveals nothing either.
 */
export function digestsEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  return crypto.subtle.timingSafeEqual(a, b);
}

/**
 * A key of one tenant spelled for another (after a restore under a new tenant id): the same key id and secret, so the
 * restored record (its hash) accepts it; only the tenant part changes. A key may end in a 9-character tag (a MAC of
 * the rest, in deployments that tag keys): a tag covers the old tenant, so it is dropped and the key given in the
 * untagged form such deployments still accept (unless they require signed keys: then an admin makes new keys).
 * Null when `key` is not a key or `tenant` not a tenant id.
 */
export function rekey(key: string, tenant: string): string | null {
  const m = /^tsk_([a-z0-9][a-z0-9-]{0,62})_([a-z0-9]{12})_([A-Za-z0-9]{40})(?:[A-Za-z0-9]{9})?$/.exec(key);
  if (!m || !TENANT_ID.test(tenant)) return null;
  return `tsk_${tenant}_${m[2]}_${m[3]}`;
}
