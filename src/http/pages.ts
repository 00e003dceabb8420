/**
 * The pages the Worker serves itself: the console (`/console`) and the API reference (`/docs`). Each is a small HTML
 * document whose scripts and styles are the Worker's static assets (wrangler.toml `[assets]`, built by
 * scripts/build-assets.ts): nothing loads from another host, so both work offline, and each is sent with a
 * Content-Security-Policy that names no other host and allows no inline script.
 */
import type { Hono } from "hono";
import type { AppEnv } from "./context.ts";

/**
 * Both pages' policy: their own origin only, no inline script or style, no plugins, no framing, no base-URI tricks,
 * forms post only to their own origin. Charts are drawn on canvas (uPlot): no images from anywhere.
 */
const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
};

const CONSOLE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>tool-search console</title>
<link rel="stylesheet" href="/console/console.css">
<script type="module" src="/console/console.js"></script>
</head>
<body>
<div id="app"><noscript>The console needs JavaScript.</noscript></div>
</body>
</html>
`;

const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>tool-search API reference</title>
<link rel="stylesheet" href="/docs/docs.css">
<script type="module" src="/docs/docs.js"></script>
</head>
<body>
<div id="app"><noscript>The reference needs JavaScript; the document itself is at
<a href="/openapi.json">/openapi.json</a>.</noscript></div>
</body>
</html>
`;

export function registerPages(app: Hono<AppEnv>): void {
  app.get("/console", (c) => c.body(CONSOLE_HTML, 200, { ...HEADERS, "content-security-policy": PAGE_CSP }));
  // The sign-in form posts here only if its script did not run (so the key never lands in a URL): back to the page.
  app.post("/console", (c) => c.redirect("/console", 303));
  app.get("/docs", (c) => c.body(DOCS_HTML, 200, { ...HEADERS, "content-security-policy": PAGE_CSP }));
}
