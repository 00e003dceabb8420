/**
 * The soak's mixed workload against one tenant: searches (plain, by id, in sessions), agent sessions (create, search,
 * resolve, next turn, tool list, end), catalog reads, and catalog churn: uploads that add and rewrite tools, server
 * replaces (now and then with an empty list), deletes of tools and servers, and rollbacks to recent revisions.
 *
 * Writes go one at a time (a queue), so that each acknowledged write is one step of the model (model.ts); reads run
 * beside them at any time. Every response's status is checked against what its operation may answer: anything else
 * is a violation, and the soak fails.
 */
import { int, pick, type Random } from "../random.ts";
import { type CatalogModel, type ModelTool, toolId } from "./model.ts";

export interface Reply {
  status: number;
  json: any;
}

/** One request: its operation's name is what the statistics group by. */
export type Api = (op: string, method: string, path: string, body?: unknown) => Promise<Reply>;

const NOUNS = [
  "invoice",
  "customer",
  "ticket",
  "report",
  "calendar",
  "message",
  "repository",
  "branch",
  "file",
  "folder",
  "database",
  "table",
  "metric",
  "alert",
  "deployment",
  "user",
  "order",
  "payment",
  "document",
  "image",
];
const VERBS = ["list", "create", "update", "delete", "search", "export", "import", "archive", "sync", "review"];
const EXTRA = ["quickly", "securely", "in bulk", "by date", "with filters", "for a team", "from a template"];

const SERVERS = 20;

export class Workload {
  readonly violations: string[] = [];
  private readonly model: CatalogModel;
  private readonly base: string;
  private readonly target: number;
  private next = 0;
  private version = 0;
  private writes: Promise<unknown> = Promise.resolve();
  counts = { upserts: 0, replaces: 0, emptied: 0, toolDeletes: 0, serverDeletes: 0, rollbacks: 0 };

  /** `base` is the tenant's path (`/v1/tenants/<id>`); `target` the catalog size the churn hovers around. */
  constructor(model: CatalogModel, base: string, target: number) {
    this.model = model;
    this.base = base;
    this.target = target;
  }

  tool(server: string, name: string, rand: Random): ModelTool {
    const verb = pick(rand, VERBS);
    const noun = pick(rand, NOUNS);
    const properties: ModelTool["inputSchema"]["properties"] = {};
    for (let p = int(rand, 1, 3); p > 0; p--)
      properties[`${pick(rand, NOUNS)}_${p}`] = { type: "string", description: `The ${pick(rand, NOUNS)} to use` };
    return {
      server,
      name,
      description: `${verb} ${noun}s ${pick(rand, EXTRA)} (${pick(rand, NOUNS)}, v${++this.version})`,
      inputSchema: { type: "object", properties },
      ...(rand() < 0.3 ? { keywords: [pick(rand, NOUNS), pick(rand, VERBS)] } : {}),
    };
  }

  /** A new tool on a server. */
  fresh(server: string, rand: Random): ModelTool {
    return this.tool(server, `${pick(rand, VERBS)}_${pick(rand, NOUNS)}_${++this.next}`, rand);
  }

  /** The seed: `target` tools over SERVERS servers, each server's set put whole. */
  async seed(api: Api, rand: Random): Promise<void> {
    for (let s = 0; s < SERVERS; s++) {
      const server = `srv${s}`;
      const tools = Array.from({ length: Math.ceil(this.target / SERVERS) }, () => this.fresh(server, rand));
      await this.send(api, "seed", "PUT", `/servers/${server}/tools`, { tools }, () =>
        this.model.replaceServer(server, tools),
      );
    }
  }

  /** One step of a virtual user. */
  async step(api: Api, rand: Random): Promise<void> {
    const r = rand();
    if (r < 0.45) return this.search(api, rand);
    if (r < 0.75) return this.conversation(api, rand);
    if (r < 0.87) return this.read(api, rand);
    return this.churn(api, rand);
  }

  private query(rand: Random): string {
    const ids = [...this.model.tools.values()];
    if (rand() < 0.15 && ids.length > 0) return pick(rand, ids).name;
    return `${pick(rand, VERBS)} ${pick(rand, NOUNS)}${rand() < 0.5 ? ` ${pick(rand, EXTRA)}` : ""}`;
  }

  private expect(op: string, reply: Reply, allowed: number[]): void {
    if (!allowed.includes(reply.status))
      this.violations.push(`${op}: ${reply.status} ${JSON.stringify(reply.json).slice(0, 200)}`);
  }

  private async search(api: Api, rand: Random): Promise<void> {
    if (rand() < 0.2) {
      // By id: a tool that exists now may be gone by the time the search runs (404).
      const tools = [...this.model.tools.keys()];
      if (tools.length === 0) return;
      const reply = await api("search", "POST", `${this.base}/search`, { tool_id: pick(rand, tools) });
      return this.expect("search by id", reply, [200, 404]);
    }
    const reply = await api("search", "POST", `${this.base}/search`, { query: this.query(rand), max_results: 5 });
    this.expect("search", reply, [200]);
  }

  private async conversation(api: Api, rand: Random): Promise<void> {
    const created = await api("session", "POST", `${this.base}/sessions`, { budget_cap: 3 });
    this.expect("session create", created, [201]);
    if (created.status !== 201) return;
    const session = created.json.session_id as string;
    const path = `${this.base}/sessions/${session}`;
    for (let turn = int(rand, 1, 3); turn > 0; turn--) {
      let found: string | null = null;
      for (let s = int(rand, 1, 4); s > 0; s--) {
        const reply = await api("session search", "POST", `${this.base}/search`, {
          query: this.query(rand),
          session_id: session,
        });
        // The fourth search of a turn is over the budget of 3.
        this.expect("session search", reply, [200, 429]);
        if (reply.status === 200 && reply.json.results.length > 0) found = reply.json.results[0].tool_id;
      }
      if (found) {
        // A tool found may leave the catalog (and the activated set) before it is resolved: 409 tool-not-active.
        const resolved = await api("resolve", "POST", `${path}/resolve`, { name: found });
        this.expect("resolve", resolved, [200, 409]);
      }
      if (rand() < 0.3) this.expect("session tools", await api("session tools", "GET", `${path}/tools`), [200]);
      this.expect("turn", await api("turn", "POST", `${path}/turns`, {}), [200]);
    }
    this.expect("session end", await api("session end", "DELETE", path), [204]);
  }

  private async read(api: Api, rand: Random): Promise<void> {
    const r = rand();
    if (r < 0.4) {
      const tools = [...this.model.tools.keys()];
      if (tools.length === 0) return;
      const reply = await api("get tool", "GET", `${this.base}/tools/${encodeURIComponent(pick(rand, tools))}`);
      return this.expect("get tool", reply, [200, 404]);
    }
    if (r < 0.7) {
      const server = `srv${int(rand, 0, SERVERS - 1)}`;
      return this.expect("list tools", await api("list tools", "GET", `${this.base}/tools?server=${server}`), [200]);
    }
    this.expect("revisions", await api("revisions", "GET", `${this.base}/catalog/revisions?limit=20`), [200]);
  }

  /** A catalog write, chosen when its turn in the queue comes, against the model as it is then. */
  private churn(api: Api, rand: Random): Promise<void> {
    const run = async () => {
      const m = this.model;
      const size = m.tools.size;
      const r = rand();
      const servers = Array.from({ length: SERVERS }, (_, s) => `srv${s}`);
      if (r < 0.4) {
        // Rewrite some tools and add some (fewer when the catalog has grown past its target).
        const ids = [...m.tools.values()];
        const batch: ModelTool[] = [];
        for (let n = int(rand, 1, 15); n > 0 && ids.length > 0; n--) {
          const t = pick(rand, ids);
          batch.push(this.tool(t.server, t.name, rand));
        }
        for (let n = size > this.target * 1.1 ? 0 : int(rand, 0, 8); n > 0; n--)
          batch.push(this.fresh(pick(rand, servers), rand));
        const unique = [...new Map(batch.map((t) => [toolId(t), t])).values()];
        this.counts.upserts++;
        return this.send(api, "upsert", "POST", "/tools", { tools: unique }, () => m.upsert(unique));
      }
      if (r < 0.6) {
        // Replace a server's set: most of it kept, some rewritten, a few new; one in twenty emptied.
        const server = pick(rand, servers);
        const current = m.serverTools(server);
        let tools: ModelTool[];
        if (rand() < 0.05 && current.length > 0) {
          tools = [];
          this.counts.emptied++;
        } else {
          const kept = current.filter(() => rand() < (size > this.target ? 0.85 : 0.95));
          tools = kept.map((t) => (rand() < 0.2 ? this.tool(server, t.name, rand) : t));
          const wanted = Math.ceil(this.target / SERVERS);
          for (let n = Math.max(0, wanted - tools.length) + int(rand, 0, 3); n > 0; n--)
            tools.push(this.fresh(server, rand));
        }
        this.counts.replaces++;
        return this.send(api, "replace", "PUT", `/servers/${server}/tools`, { tools }, () =>
          m.replaceServer(server, tools),
        );
      }
      if (r < 0.85) {
        const ids = [...m.tools.keys()];
        if (ids.length === 0) return;
        const id = pick(rand, ids);
        this.counts.toolDeletes++;
        return this.send(api, "delete tool", "DELETE", `/tools/${encodeURIComponent(id)}`, undefined, () =>
          m.deleteTool(id),
        );
      }
      if (r < 0.9) {
        const server = pick(rand, [...m.servers]);
        if (!server) return;
        this.counts.serverDeletes++;
        return this.send(api, "delete server", "DELETE", `/servers/${server}`, undefined, () => m.deleteServer(server));
      }
      const revisions = m.revisions();
      if (revisions.length === 0) return;
      const target = pick(rand, revisions);
      this.counts.rollbacks++;
      return this.send(api, "rollback", "POST", "/catalog/rollback", { revision: target }, () => m.rollback(target));
    };
    const done = this.writes.then(run);
    this.writes = done.catch(() => {});
    return done;
  }

  /** Sends a write whose turn has come (inside the queue). */
  private async send(
    api: Api,
    op: string,
    method: string,
    path: string,
    body: unknown,
    apply: () => void,
  ): Promise<void> {
    const reply = await api(op, method, `${this.base}${path}`, body);
    this.expect(op, reply, [200]);
    if (reply.status !== 200) return;
    apply();
    this.model.committed(reply.json.revision as number);
  }

  /** One last write (a tool rewritten), so that the index snapshot is written with everything as it is now. */
  touch(api: Api, rand: Random): Promise<void> {
    const done = this.writes.then(async () => {
      const t = pick(rand, [...this.model.tools.values()]);
      const tool = this.tool(t.server, t.name, rand);
      await this.send(api, "upsert", "POST", "/tools", { tools: [tool] }, () => this.model.upsert([tool]));
    });
    this.writes = done.catch(() => {});
    return done;
  }

  /** Waits for the writes in the queue. */
  async settle(): Promise<void> {
    await this.writes;
  }
}
