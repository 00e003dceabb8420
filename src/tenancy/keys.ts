/**
 * Tenant ids, API keys and their scopes, and who calls: pure rules that the Worker (auth), the tenant object
 * (key records) and the upload CLI (a key names its tenant) share. Keys look like
 * `tsk_<tenant>_<key id>_<secret><tag>`.
 *
 * The recognisable `tsk_` prefix lets secret scanners find leaked keys; the tenant in the key lets
 * the Worker refuse a key on another tenant's path before any storage is touched; the key id
 * finds the stored record; only the SHA-256 of the secret is stored, and it is compared in
 * constant time. The tag (9 characters after the 40 of the secret) is a MAC of everything before
 * it, which the Worker checks before any storage is touched: under the deployment's
 * KEY_SIGNING_SECRET when one is set (a forger cannot make one), else under a public constant (a
 * checksum, as GitHub's tokens carry: it catches typos, truncation and random junk). Keys made
 * before tags existed (40 characters of secret, no tag) still parse; the tenant object decides on
 * them.
 */
import { z } from "zod";

const SCOPES = ["search", "write", "admin"] as const;
export const ScopeSchema = z
  .enum(SCOPES)
  .describe("search: search and sessions; write: the catalog; admin: keys and settings");
export type Scope = z.infer<typeof ScopeSchema>;

/** Tenant ids: 1-63 of a-z 0-9 -, starting with a letter or digit (no `_`, so keys split one way). */
export const TENANT_ID = /^[a-z0-9][a-z0-9-]{0,62}$/;

const KEY_PATTERN = /^tsk_([a-z0-9][a-z0-9-]{0,62})_([a-z0-9]{12})_([A-Za-z0-9]{40})([A-Za-z0-9]{9})?$/;
export const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** Who makes a call to a tenant object: the operator, or the holder of a key (checked by the object). */
export type Caller = { kind: "operator" } | { kind: "key"; keyId: string; secret: string };

export interface ParsedKey {
  tenant: string;
  keyId: string;
  secret: string;
  /** The MAC over the rest of the key; null for a key made before tags existed. */
  tag: string | null;
}

export function parseKey(token: string): ParsedKey | null {
  const m = KEY_PATTERN.exec(token);
  return m ? { tenant: m[1]!, keyId: m[2]!, secret: m[3]!, tag: m[4] ?? null } : null;
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

/** A new key: about 238 bits of secret, tagged with `signing` (the first signing secret, or null for the checksum). */
export async function generateKey(tenant: string, signing: string | null): Promise<ParsedKey & { key: string }> {
  const keyId = randomString(12, "abcdefghijklmnopqrstuvwxyz0123456789");
  const secret = randomString(40, ALPHABET);
  const body = `tsk_${tenant}_${keyId}_${secret}`;
  const tag = await keyTag(body, signing ?? CHECKSUM_KEY);
  return { tenant, keyId, secret, tag, key: `${body}${tag}` };
}

/**
 * The HMAC key of the public checksum. Not a secret: anyone who reads this can make a valid
 * checksum, so it only stops typos and junk. A deployment secret (KEY_SIGNING_SECRET) stops forgers.
 */
const CHECKSUM_KEY = "tool-search key checksum v1";
const TAG_LENGTH = 9;
const encoder = new TextEncoder();
const macKeys = new Map<string, Promise<CryptoKey>>();

function macKey(secret: string): Promise<CryptoKey> {
  let key = macKeys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    // A deployment has one or two signing secrets and the checksum key: a handful of entries at most.
    if (macKeys.size > 16) macKeys.clear();
    macKeys.set(secret, key);
  }
  return key;
}

/** The tag of a key's body (`tsk_<tenant>_<id>_<secret>`): 48 bits of HMAC-SHA-256, as 9 base62 characters. */
export async function keyTag(body: string, secret: string): Promise<string> {
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", await macKey(secret), encoder.encode(body)));
  let n = 0;
  for (let i = 0; i < 6; i++) n = n * 256 + mac[i]!;
  let out = "";
  for (let i = 0; i < TAG_LENGTH; i++) {
    out = ALPHABET[n % 62]! + out;
    n = Math.floor(n / 62);
  }
  return out;
}

/**
 * What a key's tag says, checked without storage: `signed` (a MAC under one of the deployment's
 * signing secrets), `checksum` (the public checksum), `untagged` (a key made before tags), or
 * `invalid` (mistyped, cut short or forged). Tags are compared in constant time.
 */
export type KeyTagCheck = "signed" | "checksum" | "untagged" | "invalid";

export async function checkKeyTag(key: ParsedKey, signingSecrets: readonly string[]): Promise<KeyTagCheck> {
  if (key.tag === null) return "untagged";
  const body = `tsk_${key.tenant}_${key.keyId}_${key.secret}`;
  for (const secret of signingSecrets) {
    if (tagsEqual(key.tag, await keyTag(body, secret))) return "signed";
  }
  return tagsEqual(key.tag, await keyTag(body, CHECKSUM_KEY)) ? "checksum" : "invalid";
}

/** Two tags of TAG_LENGTH characters, compared without an early exit. */
function tagsEqual(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < TAG_LENGTH; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
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
