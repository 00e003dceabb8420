/**
 * The pages the Worker serves itself, /console and /docs: HTML whose every script and style is one of the Worker's own
 * assets (same origin), sent with a Content-Security-Policy that names no other host. The Workers pool does not serve
 * static assets: the browser test (test/e2e/console.test.ts) checks them, and what a real page loads, under wrangler
 * dev.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

const ORIGIN = "http://tool-search.test";

describe.each(["/console", "/docs"])("%s", (path) => {
  it("is HTML with a strict Content-Security-Policy: its own origin only, no inline script", async () => {
    const r = await exports.default.fetch(new Request(`${ORIGIN}${path}`));
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const csp = r.headers.get("content-security-policy")!;
    const directives = new Map(
      csp.split(";").map((d) => {
        const [name, ...values] = d.trim().split(/\s+/);
        return [name!, values] as const;
      }),
    );
    expect(directives.get("default-src")).toEqual(["'self'"]);
    expect(directives.get("script-src")).toEqual(["'self'"]);
    expect(directives.get("style-src")).toEqual(["'self'"]);
    expect(directives.get("connect-src")).toEqual(["'self'"]);
    expect(directives.get("object-src")).toEqual(["'none'"]);
    expect(directives.get("frame-ancestors")).toEqual(["'none'"]);
    // No host, scheme or wildcard anywhere in the policy: sources are keywords only.
    for (const values of directives.values()) for (const v of values) expect(v).toMatch(/^'[a-z-]+'$/);
    const html = await r.text();
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(html).not.toMatch(/\sstyle=/);
    // Its script and stylesheet are root-relative: the page's own origin, whatever host serves it.
    const refs = [...html.matchAll(/\s(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.filter((ref) => /\.(js|css)$/.test(ref))).toHaveLength(2);
    for (const ref of refs) expect(ref).toMatch(/^\/[a-z]/);
  });
});

describe("POST /console", () => {
  it("sends the browser back to the page without reading the form (a key never lands in a URL)", async () => {
    const r = await exports.default.fetch(
      new Request(`${ORIGIN}/console`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "key=tsk_x",
      }),
    );
    expect(r.status).toBe(303);
    expect(r.headers.get("location")).toBe("/console");
  });
});
