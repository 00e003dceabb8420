/**
 * The mixed workload of `npm run load`: tenants seeded with a catalog, and virtual users that each
 * run agent conversations against one tenant: create a session, search in it (sometimes once more
 * than the budget allows, which must be answered 429 search-budget-exhausted), resolve a tool they
 * found, fetch the tool list, start the next turn, end the session, and now and then upload a new
 * tool. Everything acknowledged is recorded, so the checks can prove it afterwards.
 */
import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { pick, type Random } from "../random.ts";

export type Api = (
  token: string,
  method: string,
  path: string,
  body?: unknown,
  op?: string,
) => Promise<{ status: number; json: any }>;

export interface Tenant {
  id: string;
  /** Revision once seeded. */
  seededRevision: number;
  /** tools.upsert audit entries once seeded. */
  seededUpserts: number;
  /** Every tool id in the catalog (the seed, then each acknowledged upload). */
  toolIds: Set<string>;
  queries: string[];
}

/** What the virtual users saw that the checks need. */
export interface Observed {
  /** tool ids whose upload was acknowledged (200), per tenant. */
  upserts: Map<string, string[]>;
  /** Sessions per tenant, with the key that made them, and whether they were ended. */
  sessions: { tenant: string; key: string; id: string; ended: boolean }[];
  /** Searches answered 200 per `tenant/session/turn`, and the cap each session ran under. */
  searchesPerTurn: Map<string, number>;
  caps: Map<string, number>;
  /** Activated ids reported by search answers, per tenant. */
  activated: Map<string, Set<string>>;
  /** Things that must never happen (a resolve of a tool just found refused, a budget 429 too early...). */
  violations: string[];
}

const root = join(import.meta.dirname, "..", "..");
const WORDS = [
  "report",
  "invoice",
  "customer",
  "ticket",
  "backup",
  "schedule",
  "translate",
  "archive",
  "metric",
  "alert",
  "deploy",
  "review",
  "export",
  "import",
  "sync",
  "audit",
];

/** The demo catalog (every naming style, four input shapes) plus synthetic tools up to `total`. */
export function catalogFor(total: number): { server: string; tools: unknown[]; defer_tools: "auto" | "never" }[] {
  const dir = join(root, "demo", "catalog");
  const servers = readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((file) => ({
      server: basename(file, ".json"),
      tools: (JSON.parse(readFileSync(join(dir, file), "utf8")) as { tools: unknown[] }).tools,
      defer_tools: basename(file, ".json") === "filesystem" ? ("never" as const) : ("auto" as const),
    }));
  const demo = servers.reduce((n, s) => n + s.tools.length, 0);
  const synthetic = Math.max(0, total - demo);
  for (let s = 0; s * 200 < synthetic; s++) {
    const tools = Array.from({ length: Math.min(200, synthetic - s * 200) }, (_, i) => {
      const n = s * 200 + i;
      const [a, b, c] = [
        WORDS[n % WORDS.length]!,
        WORDS[(n * 7 + 3) % WORDS.length]!,
        WORDS[(n * 11 + 5) % WORDS.length]!,
      ];
      return {
        name: `${a}_${b}_${n}`,
        description: `${a} the ${b} records and ${c} them for the team (tool ${n})`,
        inputSchema: { type: "object", properties: { id: { type: "string", description: `${c} identifier` } } },
      };
    });
    servers.push({ server: `synthetic${s}`, tools, defer_tools: "auto" });
  }
  return servers;
}

/** Queries a model might send: a few words of a tool's description, an exact name, or words nothing matches. */
export function queriesFor(catalog: ReturnType<typeof catalogFor>): string[] {
  const out: string[] = [];
  for (const { tools } of catalog) {
    for (const tool of tools.slice(0, 30) as { name?: string; function?: { name: string }; description?: string }[]) {
      const name = tool.function?.name ?? tool.name ?? "";
      const words = (tool.description ?? "").split(/\W+/).filter((w) => w.length > 3);
      out.push(words.slice(0, 3).join(" "), name);
    }
  }
  out.push("zebra migration pattern", "quantum knitting");
  return out.filter(Boolean);
}

export interface UserOptions {
  api: Api;
  tenant: Tenant;
  /** The user's own key (search + write): rate limits are per key. */
  key: string;
  user: number;
  deadline: number;
  observed: Observed;
  random: Random;
  /** Share of steps that upload a new tool. */
  upsertShare: number;
}

/** Thrown when the deadline passes: a user stops at its next request, mid-conversation. */
const STOP = Symbol("stop");

/** One virtual user: conversations back to back until the deadline. */
export async function runUser(o: UserOptions): Promise<void> {
  try {
    await conversations(o);
  } catch (e) {
    if (e !== STOP) throw e;
  }
}

async function conversations(o: UserOptions): Promise<void> {
  const { tenant, key, observed, random } = o;
  const api: Api = (...args) => (Date.now() < o.deadline ? o.api(...args) : Promise.reject(STOP));
  const base = `/v1/tenants/${tenant.id}`;
  let uploads = 0;
  let conversation = 0;
  for (;;) {
    conversation += 1;
    const cap = 2 + Math.floor(random() * 3);
    const created = await api(
      key,
      "POST",
      `${base}/sessions`,
      { session_id: `u${o.user}-c${conversation}`, budget_cap: cap },
      "session create",
    );
    if (created.status !== 201) continue;
    const session = { tenant: tenant.id, key, id: created.json.session_id as string, ended: false };
    observed.sessions.push(session);
    observed.caps.set(`${tenant.id}/${session.id}`, cap);
    const turns = 1 + Math.floor(random() * 4);
    for (let turn = 1; turn <= turns; turn++) {
      // Sometimes one search more than the budget: that one must be refused with the budget 429.
      const searches = random() < 0.2 ? cap + 1 : 1 + Math.floor(random() * cap);
      for (let s = 0; s < searches; s++) {
        const byId = random() < 0.15 && tenant.toolIds.size > 0;
        const body = byId
          ? { tool_id: pick(random, [...tenant.toolIds]) }
          : { query: pick(random, tenant.queries), max_results: 3 };
        const found = await api(
          key,
          "POST",
          `${base}/search`,
          { ...body, session_id: session.id },
          byId ? "search tool_id" : "search query",
        );
        const slot = `${tenant.id}/${session.id}/${turn}`;
        if (found.status === 200) {
          observed.searchesPerTurn.set(slot, (observed.searchesPerTurn.get(slot) ?? 0) + 1);
          const activated = observed.activated.get(tenant.id) ?? new Set<string>();
          for (const id of found.json.activated as string[]) activated.add(id);
          observed.activated.set(tenant.id, activated);
          const first = found.json.results[0];
          if (first && random() < 0.7) {
            const resolved = await api(
              key,
              "POST",
              `${base}/sessions/${session.id}/resolve`,
              { name: first.model_name },
              "resolve",
            );
            if (resolved.status !== 200)
              observed.violations.push(
                `resolve of ${first.tool_id}, just found in session ${session.id}, answered ${resolved.status}`,
              );
          }
        } else if (found.status === 429 && found.json?.error === "search-budget-exhausted") {
          const used = observed.searchesPerTurn.get(slot) ?? 0;
          if (used < cap)
            observed.violations.push(`session ${session.id} turn ${turn}: budget 429 after ${used} of ${cap} searches`);
        }
        if (random() < o.upsertShare) {
          uploads += 1;
          const name = `u${o.user}_tool_${uploads}`;
          const tool = {
            server: "load",
            name,
            description: `Load test tool ${uploads} of user ${o.user}: ${pick(random, WORDS)} ${pick(random, WORDS)}`,
            inputSchema: { type: "object" },
          };
          const up = await api(key, "POST", `${base}/tools`, { tools: [tool] }, "upsert");
          if (up.status === 200) {
            observed.upserts.set(tenant.id, [...(observed.upserts.get(tenant.id) ?? []), `load::${name}`]);
            tenant.toolIds.add(`load::${name}`);
          }
        }
      }
      if (random() < 0.5)
        await api(
          key,
          "GET",
          `${base}/sessions/${session.id}/tools?format=${pick(random, ["mcp", "anthropic", "openai"])}`,
          undefined,
          "tool list",
        );
      if (turn < turns) await api(key, "POST", `${base}/sessions/${session.id}/turns`, { turn: turn + 1 }, "turn");
    }
    if (random() < 0.6) {
      const ended = await api(key, "DELETE", `${base}/sessions/${session.id}`, undefined, "session end");
      session.ended = ended.status === 204;
    }
  }
}

export function emptyObserved(): Observed {
  return {
    upserts: new Map(),
    sessions: [],
    searchesPerTurn: new Map(),
    caps: new Map(),
    activated: new Map(),
    violations: [],
  };
}
