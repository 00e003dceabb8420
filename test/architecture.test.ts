/**
 * The pure core runs in the Worker, in Node scripts (eval, bench, upload) and in tests alike only if
 * it never imports the Workers runtime. The type checker and the Workers pool both resolve such an
 * import happily, so this test reads the sources as text and fails on any `cloudflare:` import.
 */
import { describe, expect, it } from "vitest";

const PURE = {
  ...import.meta.glob("../src/search/**/*.ts", { query: "?raw", import: "default", eager: true }),
  ...import.meta.glob("../src/catalog/**/*.ts", { query: "?raw", import: "default", eager: true }),
  ...import.meta.glob("../src/sessions/**/*.ts", { query: "?raw", import: "default", eager: true }),
  ...import.meta.glob("../src/config/**/*.ts", { query: "?raw", import: "default", eager: true }),
} as Record<string, string>;

describe("the pure core", () => {
  it("is read as text, every file of it", () => {
    expect(Object.keys(PURE).length).toBeGreaterThan(20);
    expect(Object.keys(PURE)).toContain("../src/search/tool-index.ts");
  });

  it.each(Object.entries(PURE))("%s imports nothing from cloudflare:*", (_path, source) => {
    expect(source).not.toMatch(/from\s+["']cloudflare:|import\(\s*["']cloudflare:|require\(\s*["']cloudflare:/);
  });
});
