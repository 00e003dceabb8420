/**
 * The scope each route requires, read from the routes' own declarations (`requires(...)` in their
 * OpenAPI definitions, the one place a route's scope is written), so that the Worker can check a
 * key's scope before it reads the body. The tenant object checks the scope again on every call.
 */
import type { Scope } from "../tenancy/keys.ts";

interface RouteDefinition {
  type: string;
  route?: { method?: string; path?: string; security?: Record<string, string[]>[] };
}

interface CompiledRoute {
  method: string;
  pattern: RegExp;
  /** Literal segments: when two routes match, the more literal one is the route (as the router decides). */
  literal: number;
  scope: Scope | null;
  /** Declared for the operator token alone (restore, a tenant's deletion): no tenant key may use it. */
  operator: boolean;
}

const SCOPES: ReadonlySet<string> = new Set(["search", "write", "admin"]);

function compile(definitions: readonly RouteDefinition[]): CompiledRoute[] {
  const routes: CompiledRoute[] = [];
  for (const d of definitions) {
    const { method, path, security } = d.route ?? {};
    if (d.type !== "route" || !method || !path) continue;
    const role = security?.[0]?.bearer?.[0];
    const segments = path.split("/");
    const pattern = segments.map((s) => (/^\{\w+\}$/.test(s) ? "[^/]+" : s.replace(/[.*+?^$()|[\]\\]/g, "\\$&")));
    routes.push({
      method: method.toUpperCase(),
      pattern: new RegExp(`^${pattern.join("/")}/?$`),
      literal: segments.filter((s) => !s.startsWith("{")).length,
      // The operator token passes every scope check.
      scope: role && SCOPES.has(role) ? (role as Scope) : null,
      operator: role === "operator",
    });
  }
  return routes.sort((a, b) => b.literal - a.literal);
}

/** A lookup over the app's route definitions, compiled once on first use (after every route is registered). */
export function routeScopes(definitions: () => readonly RouteDefinition[]): {
  of(method: string, path: string): Scope | null;
  operatorOnly(method: string, path: string): boolean;
} {
  let routes: CompiledRoute[] | null = null;
  const find = (method: string, path: string) => {
    routes ??= compile(definitions());
    const m = method.toUpperCase() === "HEAD" ? "GET" : method.toUpperCase();
    return routes.find((r) => r.method === m && r.pattern.test(path));
  };
  return {
    /** The scope `method path` requires; null when no declared route matches (then only validity matters). */
    of(method, path) {
      return find(method, path)?.scope ?? null;
    },
    /** Whether `method path` is the operator's alone (a tenant key, valid or not, is then refused with 403). */
    operatorOnly(method, path) {
      return find(method, path)?.operator ?? false;
    },
  };
}
