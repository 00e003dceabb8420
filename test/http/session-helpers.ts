/** Helpers for the session tests: a tenant with a small catalog, and session calls. */
import { env } from "cloudflare:workers";
import { call, mcpTool, tenantWithKey, upsert, type Reply } from "../helpers.ts";

export const CATALOG = [
  {
    server: "github",
    ...mcpTool("list_issues", "List issues in a GitHub repository", {
      repo: { type: "string", description: "owner/name" },
    }),
  },
  {
    server: "github",
    ...mcpTool("create_issue", "Create a new issue in a GitHub repository", { title: { type: "string" } }),
  },
  { server: "github", ...mcpTool("merge_pull_request", "Merge a pull request", { number: { type: "integer" } }) },
  {
    server: "fs",
    ...mcpTool("read_file", "Read the contents of a file", { path: { type: "string", description: "File path" } }),
  },
  { server: "fs", ...mcpTool("write_file", "Write text to a file, replacing it", { path: { type: "string" } }) },
  { server: "weather", ...mcpTool("get_forecast", "Weather forecast for a city", { city: { type: "string" } }) },
  {
    server: "calendar",
    ...mcpTool("create_event", "Create a calendar event with attendees", { when: { type: "string" } }),
  },
  { server: "mail", ...mcpTool("send_email", "Send an email message", { to: { type: "string" } }) },
  {
    server: "core",
    ...mcpTool("ask_user", "Ask the user a question", { question: { type: "string" } }, { defer: "never" }),
  },
];

export async function tenantWithCatalog(
  settings?: unknown,
  tools: unknown[] = CATALOG,
): Promise<{ tenant: string; key: string }> {
  const t = await tenantWithKey(settings);
  const up = await upsert(t.tenant, t.key, tools);
  if (up.status !== 200) throw new Error(`upsert: ${up.status} ${up.text}`);
  return t;
}

export function sessionPath(tenant: string, id?: string, rest = ""): string {
  return `/v1/tenants/${tenant}/sessions${id === undefined ? "" : `/${id}`}${rest}`;
}

export async function createSession(tenant: string, key: string, body: Record<string, unknown> = {}): Promise<Reply> {
  return call("POST", sessionPath(tenant), { token: key, body });
}

export async function newSession(tenant: string, key: string, body: Record<string, unknown> = {}): Promise<string> {
  const r = await createSession(tenant, key, body);
  if (r.status !== 201) throw new Error(`create session: ${r.status} ${r.text}`);
  return r.body.session_id as string;
}

export async function sessionSearch(
  tenant: string,
  key: string,
  sessionId: string,
  body: Record<string, unknown>,
): Promise<Reply> {
  return call("POST", `/v1/tenants/${tenant}/search`, { token: key, body: { ...body, session_id: sessionId } });
}

export async function resolve(
  tenant: string,
  key: string,
  sessionId: string,
  name: string,
  format?: string,
): Promise<Reply> {
  return call("POST", sessionPath(tenant, sessionId, "/resolve"), {
    token: key,
    body: { name, ...(format ? { format } : {}) },
  });
}

export async function toolList(tenant: string, key: string, sessionId: string, format = "mcp"): Promise<Reply> {
  return call("GET", sessionPath(tenant, sessionId, `/tools?format=${format}`), { token: key });
}

export function tenantStub(tenant: string) {
  return env.TENANTS.get(env.TENANTS.idFromName(tenant));
}
