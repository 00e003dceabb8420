/**
 * The tenant's query log and usage counts (GET .../usage, the console's usage page).
 *
 * A search never writes storage for the log: `record` appends to a buffer in memory. The buffer is written in one
 * transaction by `flush`, which runs from the tenant object's alarm a few seconds after the first entry of a batch
 * (FLUSH_DELAY_MS), when the buffer holds FLUSH_AT entries, and before usage is read. Planning that alarm is a storage
 * write of its own, made only when no alarm is already due sooner; under steady traffic the alarm plans itself again
 * from the alarm, so searches never do.
 *
 * What a crash can lose: the entries of the buffer, at most FLUSH_DELAY_MS of searches (or FLUSH_AT of them), from
 * both the log and the counts. Nothing else depends on them: the catalog, sessions and answers are unaffected.
 *
 * What is kept: per UTC day, the number of query searches, those that matched nothing, tool_id lookups and searches
 * refused for a spent budget; per day and tool, how often it was returned; and, while the tenant's `log_queries`
 * setting is on, one row per query search with the first `query_log_text_chars` characters of its text, its length,
 * how many results it had and the first of them. Rows older than `query_log_max_age_days` and beyond the newest
 * `query_log_max_entries` are dropped on every flush; days older than the age limit too.
 */
import type { ServiceConfig } from "../config/env.ts";
import type { Limits } from "../config/limits.ts";

const DAY_MS = 24 * 3600 * 1000;
/** How long the first entry of a batch waits for the alarm that writes it. */
export const FLUSH_DELAY_MS = 5_000;
/** A buffer this full is written at once, by the search that filled it. */
const FLUSH_AT = 500;
/** Tool ids listed by `neverReturned`, at most. */
const NEVER_RETURNED_LISTED = 1_000;

type Kind = "query" | "lookup" | "exhausted";

interface Entry {
  at: number;
  kind: Kind;
  /** The kept prefix of a query's text; null when log_queries is off (or not a query). */
  text: string | null;
  chars: number;
  results: number;
  /** Ids of the tools returned. */
  returned: string[];
}

export interface DayCounts {
  day: number;
  searches: number;
  no_match: number;
  lookups: number;
  budget_exhausted: number;
}

export interface NoMatchQuery {
  query: string;
  chars: number;
  count: number;
  last_at: number;
}

/** What the log needs of the tenant object (as TenantParts has them; that file imports this one, not the reverse). */
interface Parts {
  sql: SqlStorage;
  config(): ServiceConfig;
  transaction<T>(work: () => T): T;
}

export function dayOf(ms: number): number {
  return Math.floor(ms / DAY_MS);
}

export class QueryLog {
  private readonly tenant: Parts;
  private readonly onPending: () => void;
  private buffer: Entry[] = [];

  /** `onPending` is called when the buffer gets its first entry: plan a flush (the alarm). */
  constructor(tenant: Parts, onPending: () => void) {
    this.tenant = tenant;
    this.onPending = onPending;
  }

  get pending(): number {
    return this.buffer.length;
  }

  private limits(): Limits {
    return this.tenant.config().limits;
  }

  /** A query search and what it returned; `keepText` is the tenant's log_queries. */
  query(query: string, returned: string[], keepText: boolean): void {
    const max = this.limits().query_log_text_chars;
    // Cut on a code point boundary: never half of a surrogate pair.
    let text = query.length > max ? query.slice(0, max) : query;
    if (text.length < query.length && /[\uD800-\uDBFF]$/.test(text)) text = text.slice(0, -1);
    this.push({
      at: Date.now(),
      kind: "query",
      text: keepText ? text : null,
      chars: query.length,
      results: returned.length,
      returned,
    });
  }

  lookup(returned: string[]): void {
    this.push({ at: Date.now(), kind: "lookup", text: null, chars: 0, results: returned.length, returned });
  }

  exhausted(): void {
    this.push({ at: Date.now(), kind: "exhausted", text: null, chars: 0, results: 0, returned: [] });
  }

  private push(entry: Entry): void {
    this.buffer.push(entry);
    if (this.buffer.length === 1) this.onPending();
    else if (this.buffer.length >= FLUSH_AT) this.flush();
  }

  /** Writes the buffer in one transaction and drops what retention no longer keeps. Returns the entries written. */
  flush(): number {
    const entries = this.buffer;
    if (entries.length === 0) return 0;
    this.buffer = [];
    const limits = this.limits();
    const now = Date.now();
    const days = new Map<number, DayCounts>();
    const returned = new Map<string, number>();
    for (const e of entries) {
      const day = dayOf(e.at);
      const counts = days.get(day) ?? { day, searches: 0, no_match: 0, lookups: 0, budget_exhausted: 0 };
      days.set(day, counts);
      if (e.kind === "query") {
        counts.searches += 1;
        if (e.results === 0) counts.no_match += 1;
      } else if (e.kind === "lookup") counts.lookups += 1;
      else counts.budget_exhausted += 1;
      for (const id of e.returned) {
        const key = `${day} ${id}`;
        returned.set(key, (returned.get(key) ?? 0) + 1);
      }
    }
    const { sql } = this.tenant;
    this.tenant.transaction(() => {
      let last = 0;
      for (const e of entries) {
        if (e.text === null) continue;
        last = sql
          .exec<{ seq: number }>(
            `INSERT INTO query_log (at, query, chars, results, top) VALUES (?, ?, ?, ?, ?) RETURNING seq`,
            e.at,
            e.text,
            e.chars,
            e.results,
            e.returned[0] ?? null,
          )
          .one().seq;
      }
      for (const c of days.values())
        sql.exec(
          `INSERT INTO usage_days (day, searches, no_match, lookups, budget_exhausted) VALUES (?, ?, ?, ?, ?)
             ON CONFLICT (day) DO UPDATE SET searches = searches + excluded.searches,
               no_match = no_match + excluded.no_match, lookups = lookups + excluded.lookups,
               budget_exhausted = budget_exhausted + excluded.budget_exhausted`,
          c.day,
          c.searches,
          c.no_match,
          c.lookups,
          c.budget_exhausted,
        );
      for (const [key, count] of returned) {
        const space = key.indexOf(" ");
        sql.exec(
          `INSERT INTO usage_returned (day, tool_id, returned) VALUES (?, ?, ?)
             ON CONFLICT (day, tool_id) DO UPDATE SET returned = returned + excluded.returned`,
          Number(key.slice(0, space)),
          key.slice(space + 1),
          count,
        );
      }
      if (last > 0) sql.exec(`DELETE FROM query_log WHERE seq <= ?`, last - limits.query_log_max_entries);
      const oldest = now - limits.query_log_max_age_days * DAY_MS;
      sql.exec(`DELETE FROM query_log WHERE at < ?`, oldest);
      sql.exec(`DELETE FROM usage_days WHERE day < ?`, dayOf(oldest));
      sql.exec(`DELETE FROM usage_returned WHERE day < ?`, dayOf(oldest));
    });
    return entries.length;
  }

  /** Deletes every query text kept, in memory and in storage (log_queries turned off); counts stay. */
  forgetTexts(): void {
    for (const e of this.buffer) e.text = null;
    this.tenant.sql.exec(`DELETE FROM query_log`);
  }

  /** Counts per day from `from` to `to` (day numbers, inclusive), days without searches included as zeros. */
  days(from: number, to: number): DayCounts[] {
    const stored = new Map(
      this.tenant.sql
        .exec<DayCounts & Record<string, SqlStorageValue>>(
          `SELECT day, searches, no_match, lookups, budget_exhausted FROM usage_days WHERE day BETWEEN ? AND ?`,
          from,
          to,
        )
        .toArray()
        .map((r) => [r.day, { ...r }]),
    );
    const out: DayCounts[] = [];
    for (let day = from; day <= to; day++)
      out.push(stored.get(day) ?? { day, searches: 0, no_match: 0, lookups: 0, budget_exhausted: 0 });
    return out;
  }

  /** The query texts that most often matched nothing between two times (ms, inclusive). */
  topNoMatch(fromMs: number, toMs: number, limit: number): NoMatchQuery[] {
    return this.tenant.sql
      .exec<NoMatchQuery & Record<string, SqlStorageValue>>(
        `SELECT query, MAX(chars) AS chars, COUNT(*) AS count, MAX(at) AS last_at FROM query_log
           WHERE results = 0 AND at BETWEEN ? AND ? GROUP BY query ORDER BY count DESC, last_at DESC LIMIT ?`,
        fromMs,
        toMs,
        limit,
      )
      .toArray()
      .map((r) => ({ query: r.query, chars: r.chars, count: r.count, last_at: r.last_at }));
  }

  /** Catalog tools no search or lookup returned between two days (inclusive): how many, and the first by id. */
  neverReturned(from: number, to: number, limit: number): { count: number; tools: string[] } {
    const where = `NOT EXISTS (SELECT 1 FROM usage_returned r WHERE r.tool_id = t.id AND r.day BETWEEN ? AND ?)`;
    const count = this.tenant.sql
      .exec<{ n: number }>(`SELECT COUNT(*) AS n FROM tools t WHERE ${where}`, from, to)
      .one().n;
    const tools = this.tenant.sql
      .exec<{ id: string }>(
        `SELECT id FROM tools t WHERE ${where} ORDER BY id LIMIT ?`,
        from,
        to,
        Math.min(limit, NEVER_RETURNED_LISTED),
      )
      .toArray()
      .map((r) => r.id);
    return { count, tools };
  }
}
