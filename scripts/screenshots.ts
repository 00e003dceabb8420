/**
 * The console's screenshots in docs/ (docs/console.md, the README): a fresh local worker, a tenant with the demo
 * catalog, planted faults, searches and one learning session (console-browser.ts), then each page in Debian's Chromium
 * at 1280x800 in the light theme, the playground in the dark one too, and the doctor at a phone's width.
 */
import { mkdirSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import type { Page } from "playwright-core";
import { parseArgsWith, type CommandHelp } from "../src/cli/usage.ts";
import { launch, seedConsoleTenant, watch } from "./console-browser.ts";
import { startLocalWorker } from "./local-worker.ts";

const HELP: CommandHelp = {
  summary: "Take the console's screenshots for docs/ with Debian's Chromium against a fresh local worker.",
  usage: ["npm run screenshots -- [--out <dir>]"],
  flags: {
    out: { text: "where the PNG files go", value: "<dir>", default: "docs/images" },
  },
  examples: ["npm run screenshots", "npm run screenshots -- --out /tmp/shots"],
  notes: "Needs Debian's chromium package (apt-get install -y chromium) or CHROMIUM_PATH; downloads nothing.",
};
const { values } = parseArgsWith(HELP)({ options: { out: { type: "string", default: "docs/images" } } });

const root = resolve(import.meta.dirname, "..");
const out = resolve(root, values.out as string);
mkdirSync(out, { recursive: true });

const shots: string[] = [];
/** The viewport, or the whole page where what matters is below the fold (catalog, usage). */
async function shoot(page: Page, name: string, fullPage = false): Promise<void> {
  const path = join(out, `${name}.png`);
  await page.screenshot({ path, fullPage });
  shots.push(relative(root, path));
  console.log(`  ${relative(root, path)}`);
}

console.log("Starting a local worker…");
const worker = await startLocalWorker();
const browser = await launch();
try {
  console.log("Seeding a tenant (demo catalog, planted faults, searches, a learning session)…");
  const { key } = await seedConsoleTenant(worker.url, worker.adminToken, "acme");
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: "light" });
  const problems = await watch(context, worker.url);
  const page = await context.newPage();
  await page.goto(`${worker.url}/console`);
  await page.fill('input[name="key"]', key);
  await page.click('form.sign-in button[type="submit"]');
  await page.waitForSelector('input[name="query"]');

  console.log("Taking screenshots…");
  // Words of the tools' own text (merge), a thesaurus synonym (PR: pull request) and a word learned from use (pr).
  await page.fill('input[name="query"]', "merge my PR");
  await page.press('input[name="query"]', "Enter");
  await page.waitForSelector(".result");
  await page.click(".result details.explain summary");
  await shoot(page, "console-playground");

  await page.click('nav a[href="#/catalog"]');
  await page.waitForSelector("figure.chart canvas");
  await page.waitForSelector(".decision");
  await shoot(page, "console-catalog", true);

  await page.click('nav a[href="#/doctor"]');
  await page.waitForSelector("table");
  await shoot(page, "console-doctor");

  await page.click('nav a[href="#/usage"]');
  await page.waitForSelector(".learning table");
  // The words tools learned arrive in a second request (GET .../learned).
  await page.locator('.learning td[data-label^="words learned"]').filter({ hasText: /\w/ }).first().waitFor();
  await shoot(page, "console-usage", true);

  await page.goto(`${worker.url}/docs#op-post-v1-tenants-tenant-search`);
  await page.waitForSelector(".operation");
  await shoot(page, "docs-reference");

  const dark = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: "dark" });
  await watch(dark, worker.url, problems);
  const night = await dark.newPage();
  await night.goto(`${worker.url}/console`);
  await night.fill('input[name="key"]', key);
  await night.click('form.sign-in button[type="submit"]');
  await night.fill('input[name="query"]', "open a zendesk ticket");
  await night.press('input[name="query"]', "Enter");
  await night.waitForSelector(".no-match");
  await shoot(night, "console-playground-dark");

  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: "light" });
  await watch(phone, worker.url, problems);
  const small = await phone.newPage();
  await small.goto(`${worker.url}/console`);
  await small.fill('input[name="key"]', key);
  await small.click('form.sign-in button[type="submit"]');
  await small.waitForSelector('input[name="query"]');
  await small.click('nav a[href="#/doctor"]');
  await small.waitForSelector("table");
  await shoot(small, "console-doctor-phone");

  if (problems.length) throw new Error(`The pages had problems:\n${problems.join("\n")}`);
  console.log(`Done: ${shots.length} screenshots in ${relative(root, out) || "."}.`);
} finally {
  await browser.close();
  await worker.stop();
}
