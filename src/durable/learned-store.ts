/**
 * SQL for what tools learned from use: per tool the day of its last credit, how many credits it received and when
 * the last came; per (tool, term) the term's weight as of that day. These rows are the source of truth of every
 * tool's `usage` field; the index holds a copy (search/usage.ts), restored with its snapshot or reloaded from here.
 * Every change to these rows bumps the learned-state version (`learned_version` in meta), which tells the index cache
 * whether a snapshot's copy is current. The rules (credit, decay, caps) live in search/learning.ts; callers run these
 * inside the object's transactions.
 */
import { decayed, WEIGHT_FLOOR, type LearnedTerm } from "../search/learning.ts";
import type { LearnedTool } from "../search/usage.ts";
import type { Meta } from "./meta.ts";

/** SQLite in Durable Objects binds at most 100 parameters per statement. */
const IN_CHUNK = 90;

/** What one tool learned, as stored. */
export interface LearnedRecord extends LearnedTool {
  id: string;
  credits: number;
  creditedAt: number;
}

interface ToolSql {
  tool_id: string;
  day: number;
  credits: number;
  credited_at: number;
  [key: string]: SqlStorageValue;
}

export class LearnedStore {
  private readonly sql: SqlStorage;
  private readonly meta: Meta;

  constructor(sql: SqlStorage, meta: Meta) {
    this.sql = sql;
    this.meta = meta;
  }

  /** The learned-state version: bumped by every change to these rows. */
  version(): number {
    return this.meta.number("learned_version");
  }

  private changed(): void {
    this.meta.set("learned_version", this.version() + 1);
  }

  get(toolId: string): LearnedRecord | null {
    const tool = this.sql.exec<ToolSql>(`SELECT * FROM learned_tools WHERE tool_id = ?`, toolId).toArray()[0];
    return tool ? { ...this.record(tool), terms: this.terms(toolId) } : null;
  }

  /** Replaces what a tool learned after a credit on `day` (at `now`). */
  put(toolId: string, day: number, terms: readonly LearnedTerm[], now: number): void {
    this.sql.exec(
      `INSERT INTO learned_tools (tool_id, day, credits, credited_at) VALUES (?, ?, 1, ?)
       ON CONFLICT (tool_id) DO UPDATE SET
         day = excluded.day, credits = credits + 1, credited_at = excluded.credited_at`,
      toolId,
      day,
      now,
    );
    this.sql.exec(`DELETE FROM learned_terms WHERE tool_id = ?`, toolId);
    for (const t of terms)
      this.sql.exec(`INSERT INTO learned_terms (tool_id, term, weight) VALUES (?, ?, ?)`, toolId, t.term, t.weight);
    this.changed();
  }

  /** Forgets what these tools learned (they left the catalog); returns how many had learned something. */
  forget(toolIds: readonly string[]): number {
    let forgotten = 0;
    for (let i = 0; i < toolIds.length; i += IN_CHUNK) {
      const part = toolIds.slice(i, i + IN_CHUNK);
      const marks = part.map(() => "?").join(", ");
      this.sql.exec(`DELETE FROM learned_terms WHERE tool_id IN (${marks})`, ...part);
      forgotten += this.sql.exec(`DELETE FROM learned_tools WHERE tool_id IN (${marks})`, ...part).rowsWritten;
    }
    if (forgotten > 0) this.changed();
    return forgotten;
  }

  /** Forgets everything; returns how many tools and terms there were. */
  forgetAll(): { tools: number; terms: number } {
    const counts = this.counts();
    this.sql.exec(`DELETE FROM learned_terms`);
    this.sql.exec(`DELETE FROM learned_tools`);
    this.changed();
    return counts;
  }

  counts(): { tools: number; terms: number } {
    return {
      tools: this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM learned_tools`).one().n,
      terms: this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM learned_terms`).one().n,
    };
  }

  /** How much was learned: tools and terms kept, credits received in all, and the `top` most credited tools. */
  summary(top: number): { tools: number; terms: number; credits: number; most: Omit<LearnedRecord, "terms">[] } {
    const credits = this.sql.exec<{ n: number }>(`SELECT COALESCE(SUM(credits), 0) AS n FROM learned_tools`).one().n;
    const most = this.sql
      .exec<ToolSql>(`SELECT * FROM learned_tools ORDER BY credits DESC, tool_id LIMIT ?`, top)
      .toArray()
      .map((r) => this.record(r));
    return { ...this.counts(), credits, most };
  }

  /** Every tool that learned something, with its terms, by tool id (for loading the index's usage field). */
  *all(): Generator<LearnedRecord> {
    let tool: LearnedRecord | null = null;
    for (const r of this.sql.exec<ToolSql & { term: string; weight: number }>(
      `SELECT t.tool_id, t.day, t.credits, t.credited_at, m.term, m.weight
       FROM learned_tools t JOIN learned_terms m ON m.tool_id = t.tool_id ORDER BY t.tool_id`,
    )) {
      if (tool?.id !== r.tool_id) {
        if (tool) yield tool;
        tool = { ...this.record(r), terms: [] };
      }
      tool.terms.push({ term: r.term, weight: r.weight });
    }
    if (tool) yield tool;
  }

  /** A page of tools that learned something, by tool id after `after`, with their terms; `more` if others follow. */
  page(after: string | null, limit: number): { tools: LearnedRecord[]; more: boolean } {
    const rows = this.sql
      .exec<ToolSql>(`SELECT * FROM learned_tools WHERE tool_id > ? ORDER BY tool_id LIMIT ?`, after ?? "", limit + 1)
      .toArray();
    return {
      tools: rows.slice(0, limit).map((r) => ({ ...this.record(r), terms: this.terms(r.tool_id) })),
      more: rows.length > limit,
    };
  }

  /**
   * Deletes the terms whose weight has decayed below WEIGHT_FLOOR by `day` (they score nothing already), and the
   * tools left with none. Returns how many terms went. Safe to repeat.
   */
  prune(day: number, halfLifeDays: number): number {
    let pruned = 0;
    for (const tool of [...this.all()]) {
      const gone = tool.terms.filter((t) => decayed(t.weight, tool.day, day, halfLifeDays) < WEIGHT_FLOOR);
      if (gone.length === 0) continue;
      pruned += gone.length;
      if (gone.length === tool.terms.length) {
        this.forget([tool.id]);
        continue;
      }
      for (const t of gone) this.sql.exec(`DELETE FROM learned_terms WHERE tool_id = ? AND term = ?`, tool.id, t.term);
    }
    if (pruned > 0) this.changed();
    return pruned;
  }

  private record(r: ToolSql): Omit<LearnedRecord, "terms"> {
    return { id: r.tool_id, day: r.day, credits: r.credits, creditedAt: r.credited_at };
  }

  private terms(toolId: string): LearnedTerm[] {
    return this.sql
      .exec<{ term: string; weight: number }>(
        `SELECT term, weight FROM learned_terms WHERE tool_id = ? ORDER BY weight DESC, term`,
        toolId,
      )
      .toArray()
      .map((r) => ({ term: r.term, weight: r.weight }));
  }
}
