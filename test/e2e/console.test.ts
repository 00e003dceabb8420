/**
 * The console and /docs in a real browser: Debian's Chromium (playwright-core, no browser download) against wrangler
 * dev, with every host but the loopback one unresolvable (the network off, as far as the page can tell). Signs in with
 * a key, searches (the same tools in the same order as POST .../search), opens an explanation, sees the no-match
 * message, switches formats, opens the catalog, the doctor and usage with data this test created, signs in with the
 * operator token and switches tenants, and reads the API reference. Fails on any console error, failed request,
 * answer >= 400 or request to another host in the pages; saves a screenshot of each page in test/e2e/screenshots/
 * (git-ignored).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launch, seedConsoleTenant, watch, type ConsoleTenant } from "../../scripts/console-browser.ts";
import type { LocalWorker } from "../../scripts/local-worker.ts";
import { api, localWorkers } from "./support.ts";

const SHOTS = fileURLToPath(new URL("./screenshots/", import.meta.url));
const start = localWorkers();

let worker: LocalWorker;
let browser: Browser;
let seeded: ConsoleTenant;
let context: BrowserContext;
let page: Page;
let problems: string[];

async function shoot(p: Page, name: string): Promise<void> {
  await p.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/**
 * An expression evaluated in the page. Written as text: the project's types are the Workers runtime's, which have no
 * DOM (the console's own code is checked against the DOM's types, src/console/tsconfig.json).
 */
function inPage<T>(p: Page, expression: string): Promise<T> {
  return p.evaluate(expression) as Promise<T>;
}

/** Visible controls (inputs, selects, buttons, links) without an accessible name: a label, aria-label or text. */
function unlabelled(p: Page): Promise<string[]> {
  return inPage(
    p,
    `[...document.querySelectorAll("input, select, textarea, button, a[href], summary")]
      .filter((el) => {
        const labelled = el.id !== "" && document.querySelector('label[for="' + el.id + '"]') !== null;
        const named = el.getAttribute("aria-label") || el.getAttribute("aria-labelledby") || el.textContent.trim();
        return !labelled && !named && el.offsetParent !== null;
      })
      .map((el) => el.outerHTML.slice(0, 120))`,
  );
}

const FOCUSED_NAME = `document.activeElement?.getAttribute("name")`;

async function signIn(p: Page, token: string, tenant?: string): Promise<void> {
  await p.goto(`${worker.url}/console`);
  await p.fill('input[name="key"]', token);
  if (tenant) await p.fill('input[name="tenant"]', tenant);
  await p.click('form.sign-in button[type="submit"]');
  await p.waitForSelector('input[name="query"]');
}

async function searchFor(query: string): Promise<void> {
  await page.fill('input[name="query"]', query);
  await page.press('input[name="query"]', "Enter");
  await page.waitForSelector(".result, .no-match");
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  worker = await start();
  seeded = await seedConsoleTenant(worker.url, worker.adminToken, "acme");
  browser = await launch();
  context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: "light" });
  problems = await watch(context, worker.url);
  page = await context.newPage();
});

afterAll(async () => {
  await browser?.close();
});

describe("the console in Chromium", () => {
  it("serves its page and assets from the Worker only, under a CSP that names no other host", async () => {
    const res = await fetch(`${worker.url}/console`);
    const csp = res.headers.get("content-security-policy")!;
    expect(csp).toContain("default-src 'self'");
    expect(csp).not.toMatch(/https?:|\*/);
    for (const [asset, type] of [
      ["/console/console.js", /javascript/],
      ["/console/console.css", /^text\/css/],
      ["/docs/docs.js", /javascript/],
      ["/docs/docs.css", /^text\/css/],
    ] as const) {
      const r = await fetch(`${worker.url}${asset}`);
      expect(r.status, asset).toBe(200);
      expect(r.headers.get("content-type"), asset).toMatch(type);
    }
  });

  it("signs in with a key typed into `key`, kept in sessionStorage only", async () => {
    await signIn(page, seeded.key);
    expect(page.url()).not.toContain(seeded.key);
    expect(await context.cookies()).toEqual([]);
    expect(await page.evaluate(() => sessionStorage.getItem("tool-search-console"))).toContain(seeded.key);
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
    expect(await unlabelled(page)).toEqual([]);
  });

  it("shows the tools of POST ./search in its order, with score bars, threshold lines and match kinds", async () => {
    const query = "create a pull request on github";
    await searchFor(query);
    const shown = await page.$$eval(".result", (rows) => rows.map((r) => r.getAttribute("data-tool-id")));
    const direct = await api(worker, seeded.key, "POST", `/v1/tenants/${seeded.tenant}/search`, { query });
    expect(shown).toEqual(direct.json.results.map((r: { tool_id: string }) => r.tool_id));
    expect(shown.length).toBeGreaterThan(0);
    expect(await page.locator(".result .score-bar .fill").count()).toBe(shown.length);
    expect(await page.locator(".result .threshold-line").count()).toBe(shown.length);
    const kinds = await page.$$eval(".result .match", (els) => els.map((e) => e.textContent));
    expect(kinds).toEqual(direct.json.results.map((r: { match: string }) => r.match));
    // The first result's own words: parts for its name and description.
    const first = page.locator(".result").first();
    await first.locator("details.explain summary").click();
    const legend = await first.locator(".legend li").allTextContents();
    expect(legend.some((l) => l.startsWith("name"))).toBe(true);
    expect(legend.some((l) => l.startsWith("description"))).toBe(true);
  });

  it("opens an explanation: a stacked bar of field parts, synonyms and what the tool learned from use", async () => {
    // "ship my PR": the thesaurus reads PR as pull request; the seeded session taught merge-pull-request "ship".
    await searchFor("ship my PR");
    const merge = page.locator('.result[data-tool-id="github::merge-pull-request"]');
    await merge.locator("details.explain summary").click();
    await expect.poll(() => merge.locator(".stacked-bar .segment").count()).toBeGreaterThan(1);
    const legend = await merge.locator(".legend li").allTextContents();
    expect(legend.some((l) => l.startsWith("synonyms"))).toBe(true);
    expect(legend.some((l) => l.startsWith("usage (learned)"))).toBe(true);
    await shoot(page, "playground");
  });

  it("multiplies the parts by the API's factors, so the bar adds up to the score, and shows the gate", async () => {
    // "list my jira tickets": a short query that opens with a read and names a service the catalog has.
    const query = "list my jira tickets";
    await searchFor(query);
    const direct = await api(worker, seeded.key, "POST", `/v1/tenants/${seeded.tenant}/search`, {
      query,
      explain: true,
    });
    const [top] = direct.json.results;
    expect(top.explain.verb).toBeGreaterThan(1);
    expect(top.explain.service).toBeGreaterThan(1);
    expect(top.explain.gate).toBeLessThan(top.score);
    const first = page.locator(`.result[data-tool-id="${top.tool_id}"]`);
    await first.locator("details.explain summary").click();
    const legend = await first.locator(".legend li").allTextContents();
    const total = legend.reduce((sum, l) => sum + Number(l.split(" ").at(-1)!.replaceAll(",", "")), 0);
    expect(total).toBeCloseTo(top.score, 2);
    const factors = await first.locator(".factors").textContent();
    for (const key of ["coverage", "naming", "verb", "service"] as const)
      expect(factors).toContain(`${key} ${top.explain[key].toFixed(3)}`);
    expect(await first.locator(".gate").textContent()).toContain(`Counted as ${top.explain.gate.toFixed(4)}`);
  });

  it("shows the no-match message the API gives", async () => {
    const query = "open a zendesk ticket";
    await searchFor(query);
    const direct = await api(worker, seeded.key, "POST", `/v1/tenants/${seeded.tenant}/search`, { query });
    expect(direct.json.results).toEqual([]);
    expect(await page.locator(".no-match").textContent()).toContain(direct.json.message);
    await shoot(page, "playground-no-match");
  });

  it("switches the answer between output formats in one click each", async () => {
    await searchFor("read a file");
    const answer = page.locator("pre.answer");
    const expected = [
      ["MCP", '"inputSchema"'],
      ["Anthropic", '"input_schema"'],
      ["OpenAI", '"type": "function"'],
      ["Responses", '"parameters"'],
    ] as const;
    for (const [label, text] of expected) {
      await page.click(`.formats button:text-is("${label}")`);
      await expect.poll(() => answer.textContent()).toContain(text);
      expect(await page.locator(`.formats button:text-is("${label}")`).getAttribute("aria-pressed")).toBe("true");
    }
  });

  it("shows the catalog: token cost per server, defer status, a filter and the plan", async () => {
    await page.click('nav a[href="#/catalog"]');
    await page.waitForSelector("figure.chart canvas");
    await page.waitForSelector(".decision");
    const tools = page.locator("section.tools table.data tbody tr");
    const before = await tools.count();
    expect(before).toBe(80);
    const statuses = await page.locator('section.tools td[data-label="status"]').allTextContents();
    expect(new Set(statuses)).toEqual(new Set(["always loaded", "deferred"]));
    await page.fill('input[name="filter"]', "weather");
    await expect.poll(() => tools.count()).toBeLessThan(before);
    const rows = await tools.allTextContents();
    for (const row of rows) expect(row.toLowerCase()).toContain("weather");
    await page.fill('input[name="context_window"]', "20000");
    await page.click('form.inline-form button:text-is("Plan")');
    await expect.poll(() => page.locator(".decision").textContent()).toContain("20000");
    expect(await page.locator("figure.chart").count()).toBe(2);
    expect(await unlabelled(page)).toEqual([]);
    await shoot(page, "catalog");
  });

  it("shows the doctor's findings for the planted faults", async () => {
    await page.click('nav a[href="#/doctor"]');
    await page.waitForSelector("table.data");
    const rows = await page.locator("table.data tbody tr").allTextContents();
    const has = (code: string, tool: string) => rows.some((r) => r.includes(code) && r.includes(tool));
    expect(has("description-empty", "notes::scratch")).toBe(true);
    expect(has("near-duplicate", "bugs::file_issue")).toBe(true);
    expect(has("unreachable", "misc::do_it")).toBe(true);
    expect(has("param-undocumented", "notes::append_note")).toBe(true);
    await page.selectOption('select[name="code"]', "unreachable");
    await expect.poll(() => page.locator("table.data tbody tr").count()).toBe(1);
    await shoot(page, "doctor");
  });

  it("shows usage: the no-match query the test sent, and what learning from use added", async () => {
    await page.click('nav a[href="#/usage"]');
    await page.waitForSelector(".learning table");
    const tables = await page.locator("table.data").allTextContents();
    expect(tables.some((t) => t.includes("open a zendesk ticket"))).toBe(true);
    const learning = page.locator(".learning");
    expect(await learning.textContent()).toContain("github::merge-pull-request");
    // The words it learned come from GET .../learned (this key has the admin scope).
    await expect
      .poll(() => learning.locator('td[data-label^="words learned"]').first().textContent())
      .toContain("ship");
    expect(await page.locator("figure.chart canvas").count()).toBe(2);
    expect(await unlabelled(page)).toEqual([]);
    await shoot(page, "usage");
  });

  it("follows the system's dark theme, and fits a phone's width", async () => {
    const background = "getComputedStyle(document.body).backgroundColor";
    const light = await inPage(page, background);
    await page.emulateMedia({ colorScheme: "dark" });
    const dark = await inPage(page, background);
    expect(dark).not.toBe(light);
    await shoot(page, "usage-dark");
    await page.emulateMedia({ colorScheme: "light" });
    for (const name of ["playground", "catalog", "doctor", "usage"]) {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.click(`nav a[href="#/${name}"]`);
      await page.waitForSelector(name === "playground" ? 'input[name="query"]' : "table.data, figure.chart");
      const overflow = await inPage(page, "document.documentElement.scrollWidth - window.innerWidth");
      expect(overflow, name).toBeLessThanOrEqual(0);
      await shoot(page, `${name}-phone`);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it("can be used from the keyboard: tab to the query, type, enter", async () => {
    await page.click('nav a[href="#/playground"]');
    await page.waitForSelector('input[name="query"]');
    await inPage(page, "document.activeElement?.blur()");
    for (let i = 0; i < 12; i++) {
      if ((await inPage(page, FOCUSED_NAME)) === "query") break;
      await page.keyboard.press("Tab");
    }
    expect(await inPage(page, FOCUSED_NAME)).toBe("query");
    await page.keyboard.type("weather forecast");
    await page.keyboard.press("Enter");
    await page.waitForSelector('.result[data-tool-id="weather::getForecast"]');
  });

  it("takes the operator token with a tenant, and switches tenants from the header", async () => {
    const other = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await watch(other, worker.url, problems);
    const op = await other.newPage();
    const second = await seedConsoleTenant(worker.url, worker.adminToken, "beta");
    await signIn(op, worker.adminToken, seeded.tenant);
    expect(await op.inputValue("#switch-tenant")).toBe(seeded.tenant);
    await op.fill("#switch-tenant", second.tenant);
    await op.click('form.switch button[type="submit"]');
    await expect.poll(() => op.evaluate(() => sessionStorage.getItem("tool-search-console"))).toContain('"beta"');
    await op.click('nav a[href="#/catalog"]');
    await op.waitForSelector("section.tools table.data");
    await other.close();
  });

  it("renders the API reference on /docs offline: every operation of /openapi.json", async () => {
    await page.goto(`${worker.url}/docs`);
    await page.waitForSelector(".operation");
    const doc = (await (await fetch(`${worker.url}/openapi.json`)).json()) as {
      paths: Record<string, object>;
      components: { schemas: object };
    };
    const operations = Object.values(doc.paths as Record<string, object>).reduce(
      (n: number, item) =>
        n + Object.keys(item).filter((k) => ["get", "post", "put", "patch", "delete"].includes(k)).length,
      0,
    );
    expect(await page.locator(".operation").count()).toBe(operations);
    expect(await page.locator(".schema-def").count()).toBe(Object.keys(doc.components.schemas).length);
    await page.fill("#filter", "usage");
    const visible = await page.locator(".toc li:visible").allTextContents();
    expect(visible).toContain("GET …/usage");
    expect(visible).not.toContain("POST …/search");
    await page.fill("#filter", "");
    await page.click('.toc a[href="#op-post-v1-tenants-tenant-search"]');
    await expect.poll(() => page.url()).toContain("#op-post-v1-tenants-tenant-search");
    expect(await unlabelled(page)).toEqual([]);
    await shoot(page, "docs");
  });

  it("had no console error, failed request or request to another host in any page", () => {
    expect(problems).toEqual([]);
  });
});
