/**
 * The layering of docs/architecture.md, checked on the import graph computed from the sources' text (type-only
 * imports count: they tie files together as much as any other). The rules are data: each names what it forbids and
 * why, and the last tests show the checker failing on planted imports that break them.
 */
import { describe, expect, it } from "vitest";
import { cycles, type Graph, importGraph, type Rule, violations } from "./architecture/import-graph.ts";

const FILES = {
  ...import.meta.glob("../src/**/*.ts", { query: "?raw", import: "default", eager: true }),
  ...import.meta.glob("../scripts/**/*.ts", { query: "?raw", import: "default", eager: true }),
  ...import.meta.glob("../examples/**/*.ts", { query: "?raw", import: "default", eager: true }),
} as Record<string, string>;
/** Repository paths (`src/http/app.ts`) to source text. */
const SOURCES = Object.fromEntries(Object.entries(FILES).map(([path, text]) => [path.replace(/^\.\.\//, ""), text]));

/** The pure core, lowest layer first: a layer imports only from the layers before it, never from its siblings. */
const CORE_LAYERS = [
  ["src/config", "src/errors.ts"],
  ["src/catalog"],
  ["src/search", "src/sessions"],
  ["src/tenancy"],
  ["src/contract"],
] as const;
const CORE = CORE_LAYERS.flat();
const OUTER = ["src/durable", "src/http", "src/mcp", "src/upload", "src/client"];

const RULES: Rule[] = [
  {
    name: "the pure core knows nothing of storage, requests or the clients built on it",
    why: "it runs the same in the Worker, in Node scripts (eval, bench, upload) and in tests",
    from: CORE,
    forbid: OUTER,
  },
  {
    name: "the pure core imports nothing from the Workers runtime",
    why: "type checkers and the Workers pool both resolve cloudflare:* happily; Node does not",
    from: CORE,
    forbid: ["cloudflare:"],
  },
  ...CORE_LAYERS.flatMap((layer, i) =>
    layer.map(
      (member): Rule => ({
        name: `${member} imports only from the core layers below it`,
        why:
          "config is the deployment's, catalog a tool's, search and sessions rules over tools (meeting only in " +
          "durable/), tenancy a tenant's, contract the API's",
        from: [member],
        forbid: [...layer.filter((m) => m !== member), ...CORE_LAYERS.slice(i + 1).flat()],
      }),
    ),
  ),
  {
    name: "http reaches the index only through the tenant object",
    why: "the index lives in the tenant's Durable Object; the Worker only routes to it",
    from: ["src/http"],
    forbid: ["src/search"],
  },
  {
    name: "http takes only types from durable: the tenant object is called over RPC",
    why: "no storage code runs in the Worker's request path",
    from: ["src/http"],
    forbid: ["src/durable"],
    allow: "type-only",
  },
  {
    name: "durable and mcp know nothing of http, upload or the client",
    why: "requests end in http/; the tenant object and the MCP server take plain calls",
    from: ["src/durable", "src/mcp"],
    forbid: ["src/http", "src/upload", "src/client"],
  },
  {
    name: "mcp does not reach into durable",
    why: "the MCP server calls the tenant object through the backend http/ gives it",
    from: ["src/mcp"],
    forbid: ["src/durable"],
  },
  {
    name: "the upload CLI talks to the service over HTTP, through the client",
    why: "it runs in Node against any deployment",
    from: ["src/upload"],
    forbid: ["src/durable", "src/http", "src/mcp", "src/search", "src/contract"],
  },
  {
    name: "the client takes only types from the rest of src",
    why: "it ships as tool-search/client and needs nothing but fetch at run time",
    from: ["src/client"],
    forbid: [...CORE, ...OUTER.filter((f) => f !== "src/client"), "src/index.ts"],
    allow: "type-only",
  },
  {
    name: "the console talks to the service over HTTP only, through the client",
    why: "it runs in a browser (src/console/, bundled into the Worker's static assets); the API is its only way in",
    from: ["src/console"],
    forbid: [...CORE, ...OUTER, "src/cli", "src/index.ts"],
    allow: ["src/client/index.ts"],
  },
  {
    name: "nothing else imports the console",
    why: "it is a browser bundle: the Worker serves its built files, never runs its code",
    from: [...CORE, ...OUTER, "src/cli", "src/index.ts", "scripts", "examples"],
    forbid: ["src/console"],
  },
  {
    name: "scripts use the pure core or HTTP; the storage path only through src/durable/index-storage.ts",
    why: "a bench of the storage path measures the worker's own code through one documented entry point",
    from: ["scripts"],
    forbid: ["src/durable", "src/http", "src/mcp"],
    allow: ["src/durable/index-storage.ts"],
  },
  {
    name: "examples use only the client",
    why: "they show what an agent backend writes",
    from: ["examples"],
    forbid: ["src/"],
    allow: ["src/client/index.ts"],
  },
  {
    name: "Orama is imported by one module, the seam",
    why: "its internals are relied on in one place, checked by test/search/orama.test.ts",
    from: ["src"],
    forbid: ["@orama/orama"],
    exempt: ["src/search/orama.ts"],
  },
];

const GRAPH = importGraph(SOURCES);

describe("the import graph", () => {
  it("is computed from every source file", () => {
    expect(Object.keys(SOURCES).length).toBeGreaterThan(120);
    expect(GRAPH.get("src/http/app.ts")).toContainEqual({ to: "src/http/auth.ts", typeOnly: false });
    expect(GRAPH.get("src/http/context.ts")).toContainEqual({ to: "src/durable/tenant-object.ts", typeOnly: true });
  });

  it.each(RULES.map((r) => [r.name, r] as const))("%s", (_name, rule) => {
    expect(violations(GRAPH, [rule])).toEqual([]);
  });

  it("has no import cycles between files", () => {
    expect(cycles(GRAPH)).toEqual([]);
  });
});

describe("the checker", () => {
  const planted = (edges: Record<string, { to: string; typeOnly?: boolean }[]>): Graph =>
    new Map(Object.entries(edges).map(([file, es]) => [file, es.map((e) => ({ typeOnly: false, ...e }))]));
  const broken = (graph: Graph) => violations(graph, RULES).map((v) => `${v.file} -> ${v.imports}`);

  it("fails on a forbidden import: the core importing durable, http importing search", () => {
    const graph = planted({
      "src/catalog/tool.ts": [{ to: "src/durable/meta.ts" }],
      "src/http/app.ts": [{ to: "src/search/tool-index.ts", typeOnly: true }],
    });
    expect(broken(graph)).toEqual([
      "src/catalog/tool.ts -> src/durable/meta.ts",
      "src/http/app.ts -> src/search/tool-index.ts",
    ]);
  });

  it("fails on a value import where only types are allowed, and on a second door into durable for scripts", () => {
    const graph = planted({
      "src/http/auth.ts": [{ to: "src/durable/access.ts" }, { to: "src/durable/tenant-object.ts", typeOnly: true }],
      "scripts/bench/engines.ts": [{ to: "src/durable/index-storage.ts" }, { to: "src/durable/meta.ts" }],
    });
    expect(broken(graph)).toEqual([
      "src/http/auth.ts -> src/durable/access.ts",
      "scripts/bench/engines.ts -> src/durable/meta.ts",
    ]);
  });

  it("fails on Orama outside the seam and on cloudflare:* in the core", () => {
    const graph = planted({
      "src/search/postings.ts": [{ to: "@orama/orama", typeOnly: true }],
      "src/search/orama.ts": [{ to: "@orama/orama" }],
      "src/sessions/budget.ts": [{ to: "cloudflare:workers" }],
    });
    expect(broken(graph)).toEqual([
      "src/sessions/budget.ts -> cloudflare:workers",
      "src/search/postings.ts -> @orama/orama",
    ]);
  });

  it("finds a cycle, type-only edges included", () => {
    const graph = planted({
      "src/durable/a.ts": [{ to: "src/durable/b.ts", typeOnly: true }],
      "src/durable/b.ts": [{ to: "src/durable/a.ts" }],
    });
    expect(cycles(graph)).toEqual([["src/durable/a.ts", "src/durable/b.ts"]]);
  });

  it("reads type-only imports as such, in both spellings", () => {
    const graph = importGraph({
      "src/x.ts": [
        'import type { A } from "./a.ts";',
        'import { type B, type C } from "./b.ts";',
        'import { type D, e } from "./d.ts";',
        'export { f } from "./f.ts";',
        'const g = await import("./g.ts");',
      ].join("\n"),
    });
    expect(graph.get("src/x.ts")).toEqual([
      { to: "src/a.ts", typeOnly: true },
      { to: "src/b.ts", typeOnly: true },
      { to: "src/d.ts", typeOnly: false },
      { to: "src/f.ts", typeOnly: false },
      { to: "src/g.ts", typeOnly: false },
    ]);
  });
});
