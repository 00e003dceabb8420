/** Helpers for tests that talk to the Worker over HTTP, inside the Workers runtime. */
import { env, exports } from "cloudflare:workers";

export const OPERATOR = (env as unknown as { ADMIN_TOKEN: string }).ADMIN_TOKEN;

export interface CallOptions {
  token?: string | null;
  body?: unknown;
  /** Sent as-is (no JSON encoding) when given. */
  raw?: string;
  headers?: Record<string, string>;
}

export interface Reply<T = any> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

export async function call<T = any>(method: string, path: string, options: CallOptions = {}): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== null && options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined = options.raw;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["content-type"] ??= "application/json";
  }
  const res = await exports.default.fetch(new Request(`http://tool-search.test${path}`, { method, headers, body }));
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed as T, text, headers: res.headers };
}

let counter = 0;
export function uniqueTenant(prefix = "t"): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}-${Math.random().toString(36).slice(2, 8)}`;
}

export async function createTenant(id = uniqueTenant(), settings?: unknown): Promise<string> {
  const r = await call("POST", "/v1/tenants", { token: OPERATOR, body: { id, ...(settings ? { settings } : {}) } });
  if (r.status !== 201) throw new Error(`createTenant ${id}: ${r.status} ${r.text}`);
  return id;
}

export async function createKey(tenant: string, scopes: string[], token: string = OPERATOR): Promise<string> {
  const r = await call("POST", `/v1/tenants/${tenant}/keys`, { token, body: { scopes } });
  if (r.status !== 201) throw new Error(`createKey: ${r.status} ${r.text}`);
  return r.body.key as string;
}

/** A tenant with one key holding every scope. */
export async function tenantWithKey(settings?: unknown): Promise<{ tenant: string; key: string }> {
  const tenant = await createTenant(uniqueTenant(), settings);
  return { tenant, key: await createKey(tenant, ["search", "write", "admin"]) };
}

export function mcpTool(
  name: string,
  description: string,
  properties: Record<string, { type: string; description?: string }> = {},
  extra: Record<string, unknown> = {},
) {
  return { name, description, inputSchema: { type: "object", properties }, ...extra };
}

export async function upsert(tenant: string, key: string, tools: unknown[]): Promise<Reply> {
  return call("POST", `/v1/tenants/${tenant}/tools`, { token: key, body: { tools } });
}

export async function search(tenant: string, key: string, body: Record<string, unknown>): Promise<Reply> {
  return call("POST", `/v1/tenants/${tenant}/search`, { token: key, body });
}
