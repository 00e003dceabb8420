/**
 * The import graph of the sources, computed from their text, and the layering rules checked over it. Pure: the
 * test feeds it the files (read with Vite's import.meta.glob) or a planted graph.
 */

/** One import of a file: the module it names, resolved to a repository path when relative, and whether only types. */
interface Edge {
  to: string;
  typeOnly: boolean;
}

export type Graph = Map<string, Edge[]>;

/** `import ... from "x"`, `export ... from "x"`, `import "x"`; group 1 is `type ` on a type-only import. */
const STATIC = /^\s*(?:import|export)\s+(type\s+)?(?:[^;"'`]*?\sfrom\s+)?["']([^"']+)["']/gm;
const DYNAMIC = /\bimport\(\s*["']([^"']+)["']\s*\)/g;

/** Every import of every file; `sources` maps repository paths (`src/http/app.ts`) to their text. */
export function importGraph(sources: Record<string, string>): Graph {
  const graph: Graph = new Map();
  for (const [path, text] of Object.entries(sources)) {
    const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
    const edges: Edge[] = [];
    for (const m of code.matchAll(STATIC)) {
      // `import { type A, type B } from` is type-only too: every named binding says `type`.
      const named = /^\s*(?:import|export)\s+\{([^}]*)\}\s*from/.exec(m[0])?.[1];
      const allTyped = named?.split(",").every((n) => !n.trim() || n.trim().startsWith("type ")) ?? false;
      edges.push({ to: resolve(path, m[2]!), typeOnly: m[1] !== undefined || allTyped });
    }
    for (const m of code.matchAll(DYNAMIC)) edges.push({ to: resolve(path, m[1]!), typeOnly: false });
    graph.set(path, edges);
  }
  return graph;
}

/** A relative specifier as a repository path; a package or `cloudflare:` specifier as it is. */
function resolve(from: string, specifier: string): string {
  if (!specifier.startsWith(".")) return specifier;
  const parts = from.split("/").slice(0, -1);
  for (const part of specifier.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== ".") parts.push(part);
  }
  return parts.join("/");
}

/** A layering rule: files under any of `from` may not import modules under any of `forbid`, unless `allow` says. */
export interface Rule {
  name: string;
  /** Why the rule holds: docs/architecture.md says the same. */
  why: string;
  from: readonly string[];
  forbid: readonly string[];
  /** Imports that stay allowed: exact modules, or `type-only` for imports of types alone. */
  allow?: readonly string[] | "type-only";
  /** Files under `from` the rule does not apply to. */
  exempt?: readonly string[];
}

export interface Violation {
  rule: string;
  file: string;
  imports: string;
}

const under = (path: string, prefixes: readonly string[]) =>
  prefixes.some((p) => path === p || path.startsWith(p.endsWith("/") || p.endsWith(":") ? p : `${p}/`));

export function violations(graph: Graph, rules: readonly Rule[]): Violation[] {
  const out: Violation[] = [];
  for (const rule of rules) {
    for (const [file, edges] of graph) {
      if (!under(file, rule.from) || rule.exempt?.includes(file)) continue;
      for (const edge of edges) {
        if (!under(edge.to, rule.forbid)) continue;
        if (rule.allow === "type-only" ? edge.typeOnly : rule.allow?.includes(edge.to)) continue;
        out.push({ rule: rule.name, file, imports: edge.to });
      }
    }
  }
  return out;
}

/** Every cycle of imports between files (type-only imports count), each as the files in order, deduplicated. */
export function cycles(graph: Graph): string[][] {
  const found = new Map<string, string[]>();
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, "open");
    stack.push(file);
    for (const { to } of graph.get(file) ?? []) {
      if (!graph.has(to)) continue;
      if (state.get(to) === "open") {
        const cycle = stack.slice(stack.indexOf(to));
        const key = [...cycle].sort().join(" ");
        if (!found.has(key)) found.set(key, cycle);
      } else if (!state.has(to)) visit(to);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
  return [...found.values()];
}
