/**
 * Who the console is signed in as: a tenant key or the operator token, and the tenant. Kept in sessionStorage (this
 * tab only, gone when it closes), never in a URL or a cookie. Every request goes through the typed client, over HTTP
 * to the same origin, with the token as a bearer header.
 */
import { ToolSearchClient, ToolSearchError, type TenantClient } from "../client/index.ts";

const STORAGE = "tool-search-console";

export interface SignIn {
  token: string;
  tenant: string;
}

/** The tenant a key belongs to (`tsk_<tenant>_...`), or null for anything else (the operator token). */
export function keyTenant(token: string): string | null {
  return /^tsk_([a-z0-9][a-z0-9-]{0,62})_/.exec(token.trim())?.[1] ?? null;
}

export function saved(): SignIn | null {
  try {
    const value = JSON.parse(sessionStorage.getItem(STORAGE) ?? "null") as SignIn | null;
    return value && typeof value.token === "string" && typeof value.tenant === "string" ? value : null;
  } catch {
    return null;
  }
}

export function save(signIn: SignIn): void {
  sessionStorage.setItem(STORAGE, JSON.stringify(signIn));
}

export function forget(): void {
  sessionStorage.removeItem(STORAGE);
}

/** The API of the signed-in tenant; no retries, so a refusal shows at once. */
export function api(signIn: SignIn): TenantClient {
  return new ToolSearchClient({ url: location.origin, token: signIn.token, retry: false }).tenant(signIn.tenant);
}

/** What went wrong, for a person: the service's message when it sent one. */
export function problem(e: unknown): string {
  if (e instanceof ToolSearchError) return `${e.status} ${e.code}: ${e.body.message}`;
  return e instanceof Error ? e.message : String(e);
}
