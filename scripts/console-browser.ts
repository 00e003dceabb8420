/**
 * What the console's browser test (test/e2e/console.test.ts) and its screenshots (scripts/screenshots.ts) share:
 * Debian's Chromium driven by playwright-core (never a browser download), a tenant with data worth showing, and a
 * watch on every page that records each console error, failed request and request to another host.
 */
import { existsSync } from "node:fs";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { ToolSearchClient, type TenantClient, type ToolInput } from "../src/client/index.ts";
import { uploadDemoCatalog } from "./demo.ts";

/** Where Debian's `chromium` package puts the browser; CHROMIUM_PATH overrides. */
const CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser"];

export function chromiumPath(): string {
  const found = [process.env.CHROMIUM_PATH, ...CHROMIUM].find((p): p is string => !!p && existsSync(p));
  if (!found)
    throw new Error(
      "No Chromium found: install Debian's package (apt-get install -y chromium; .ci/run does) or set CHROMIUM_PATH",
    );
  return found;
}

/**
 * Headless Chromium as if the machine had no network: every host but the loopback one fails to resolve, so anything a
 * page tried to load from elsewhere would fail (and be reported by `watch`).
 */
export function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: ["--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1", "--disable-dev-shm-usage"],
  });
}

/**
 * Records what must never happen in a page: a request to another origin (refused, too), a failed request, an answer
 * of 400 or more, a console error (CSP violations are reported there) or an uncaught exception. Into `problems`
 * (returned), which grows as pages of the context run.
 */
export async function watch(context: BrowserContext, origin: string, problems: string[] = []): Promise<string[]> {
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (new URL(url).origin === origin) return route.continue();
    problems.push(`request to another origin: ${url}`);
    return route.abort("blockedbyclient");
  });
  const attach = (page: Page) => {
    page.on("console", (m) => {
      if (m.type() === "error") problems.push(`console error on ${page.url()}: ${m.text()}`);
    });
    page.on("pageerror", (e) => problems.push(`uncaught on ${page.url()}: ${e.message}`));
    page.on("requestfailed", (r) => problems.push(`failed request: ${r.url()} (${r.failure()?.errorText})`));
    page.on("response", (r) => {
      if (r.status() >= 400) problems.push(`HTTP ${r.status()} for ${r.url()}`);
    });
  };
  context.on("page", attach);
  for (const page of context.pages()) attach(page);
  return problems;
}

/** Tools with the faults the doctor reports, beside the demo catalog. */
const PLANTED: (ToolInput & { server: string })[] = [
  { server: "notes", name: "scratch", description: "", inputSchema: { type: "object" } },
  ...["tracker", "bugs"].map((server) => ({
    server,
    name: "file_issue",
    description: "File a new issue in the tracker, with a title, a body and labels",
    inputSchema: { type: "object", properties: { title: { type: "string", description: "Issue title" } } },
  })),
  { server: "misc", name: "do_it", description: "Does it for you.", inputSchema: { type: "object" } },
  {
    server: "notes",
    name: "append_note",
    description: "Append a line of text to a note in the notebook",
    inputSchema: { type: "object", properties: { note: { type: "string" }, text: { type: "string" } } },
  },
];

/** Queries sent before the console opens: some that match, some that match nothing (the usage page's top list). */
const SEARCHES = [
  "read a file",
  "create a pull request",
  "weather forecast for Paris",
  "send an email",
  "open a zendesk ticket",
  "open a zendesk ticket",
  "book a flight to Rome",
];

export interface ConsoleTenant {
  tenant: string;
  /** A key with every scope (search, write, admin): the console shows everything to it. */
  key: string;
  client: TenantClient;
}

/**
 * A tenant worth looking at: the demo catalog with the planted faults, a few searches (two that matched nothing), and
 * one session that searched, then used a tool (what learning from use adds).
 */
export async function seedConsoleTenant(url: string, operatorToken: string, tenant: string): Promise<ConsoleTenant> {
  const operator = new ToolSearchClient({ url, token: operatorToken, retry: false });
  await operator.createTenant({ id: tenant });
  const { key } = await operator.tenant(tenant).keys.create({ scopes: ["search", "write", "admin"], label: "console" });
  const client = new ToolSearchClient({ url, token: key, retry: false }).tenant(tenant);
  await uploadDemoCatalog(client);
  await client.tools.upsert(PLANTED);
  for (const query of SEARCHES) await client.search({ query });
  await client.search({ tool_id: "filesystem::read_file" });
  const session = client.session((await client.sessions.create({ budget_cap: 5 })).session_id);
  await session.search({ query: "ship my PR" });
  await session.search({ tool_id: "github::merge-pull-request" });
  await session.resolve({ name: "github::merge-pull-request" });
  return { tenant, key, client };
}
