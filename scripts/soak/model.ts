/**
 * The soak's model of the catalog: what every acknowledged write must have made of it. Writes are sent one at a time,
 * so each response's revision names exactly one state of the model; the states of the last revisions are kept, so
 * that a rollback to one of them can be modelled too.
 */

/** A tool as the soak uploads it (MCP format), and as the service must give it back. */
export interface ModelTool {
  server: string;
  name: string;
  description: string;
  inputSchema: { type: "object"; properties: Record<string, { type: string; description: string }> };
  keywords?: string[];
}

export const toolId = (t: { server: string; name: string }) => `${t.server}::${t.name}`;

export class CatalogModel {
  /** Tools by id, as the catalog holds them now. */
  tools = new Map<string, ModelTool>();
  /** Servers the catalog holds now (a server may hold no tools after an empty replace). */
  servers = new Set<string>();
  revision = 0;
  private readonly states = new Map<number, { tools: Map<string, ModelTool>; servers: Set<string> }>();
  private readonly keep: number;

  constructor(keep: number) {
    this.keep = keep;
    this.remember();
  }

  /** Revisions a rollback may go to (kept by the model, not the current one). */
  revisions(): number[] {
    return [...this.states.keys()].filter((r) => r !== this.revision);
  }

  /** After an acknowledged write: the catalog is now at `revision`. */
  committed(revision: number): void {
    this.revision = revision;
    this.remember();
  }

  upsert(tools: readonly ModelTool[]): void {
    for (const t of tools) {
      this.tools.set(toolId(t), t);
      this.servers.add(t.server);
    }
  }

  replaceServer(server: string, tools: readonly ModelTool[]): void {
    for (const [id, t] of this.tools) if (t.server === server) this.tools.delete(id);
    this.upsert(tools);
    this.servers.add(server);
  }

  deleteServer(server: string): void {
    for (const [id, t] of this.tools) if (t.server === server) this.tools.delete(id);
    this.servers.delete(server);
  }

  deleteTool(id: string): void {
    this.tools.delete(id);
  }

  /** The catalog becomes what it was at `target`. */
  rollback(target: number): void {
    const state = this.states.get(target);
    if (!state) throw new Error(`the model does not keep revision ${target}`);
    this.tools = new Map(state.tools);
    this.servers = new Set(state.servers);
  }

  serverTools(server: string): ModelTool[] {
    return [...this.tools.values()].filter((t) => t.server === server);
  }

  private remember(): void {
    this.states.set(this.revision, { tools: new Map(this.tools), servers: new Set(this.servers) });
    for (const r of this.states.keys()) if (this.states.size > this.keep && r !== this.revision) this.states.delete(r);
  }
}
