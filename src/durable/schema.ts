/**
 * The tenant object's SQLite schema, as ordered migrations. The first runs when the tenant is
 * created; later ones run once, inside the constructor's blockConcurrencyWhile, for a tenant that
 * exists. The applied count is kept in `_migrations`. An object whose tenant was never created has
 * no tables at all, and stays that way: nothing is written for a tenant that does not exist.
 */
const MIGRATIONS: string[][] = [
  [
    `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
    `CREATE TABLE keys (
       id TEXT PRIMARY KEY, hash BLOB NOT NULL, scopes TEXT NOT NULL, label TEXT,
       created_at INTEGER NOT NULL, revoked_at INTEGER)`,
    `CREATE TABLE servers (name TEXT PRIMARY KEY, defer_tools TEXT NOT NULL DEFAULT 'auto')`,
    `CREATE TABLE tools (
       id TEXT PRIMARY KEY, server TEXT NOT NULL, name TEXT NOT NULL, model_name TEXT NOT NULL UNIQUE,
       title TEXT, description TEXT NOT NULL, input_schema TEXT NOT NULL, output_schema TEXT,
       annotations TEXT, keywords TEXT NOT NULL, defer TEXT, hash TEXT NOT NULL,
       revision INTEGER NOT NULL)`,
    `CREATE INDEX tools_by_server ON tools (server, id)`,
    `CREATE TABLE snapshot_chunks (seq INTEGER PRIMARY KEY, data BLOB NOT NULL, crc INTEGER NOT NULL)`,
  ],
  // Sessions (issue 3): state, activated tools, client tools; token counts cached per tool.
  [
    `CREATE TABLE sessions (
       id TEXT PRIMARY KEY, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL,
       ttl_seconds INTEGER NOT NULL, budget_cap INTEGER, turn INTEGER NOT NULL DEFAULT 1,
       turn_searches INTEGER NOT NULL DEFAULT 0, inline TEXT, deferred_tool_loading INTEGER NOT NULL DEFAULT 0,
       tools_version INTEGER NOT NULL DEFAULT 0, fingerprint TEXT NOT NULL)`,
    `CREATE INDEX sessions_by_expiry ON sessions (expires_at)`,
    `CREATE TABLE session_activations (
       session_id TEXT NOT NULL, tool_id TEXT NOT NULL, seq INTEGER NOT NULL, turn INTEGER NOT NULL,
       PRIMARY KEY (session_id, tool_id)) WITHOUT ROWID`,
    `CREATE INDEX activations_by_tool ON session_activations (tool_id)`,
    `CREATE TABLE session_tools (
       session_id TEXT NOT NULL, position INTEGER NOT NULL, name TEXT NOT NULL, content TEXT NOT NULL,
       PRIMARY KEY (session_id, position)) WITHOUT ROWID`,
    `CREATE TABLE tool_tokens (id TEXT PRIMARY KEY, hash TEXT NOT NULL, definition INTEGER ` +
      `NOT NULL, line INTEGER NOT NULL) WITHOUT ROWID`,
    `CREATE INDEX tools_by_name ON tools (name)`,
  ],
  // Turns for clients that cannot announce them (MCP, issue 7): a quiet spell starts the next one.
  [
    `ALTER TABLE sessions ADD COLUMN turn_idle_seconds INTEGER`,
    `ALTER TABLE sessions ADD COLUMN last_search_at INTEGER`,
  ],
  // Audit trail (issue 6): one row per change to keys, settings or the catalog. AUTOINCREMENT so
  // a sequence number is never reused once retention drops old rows (page cursors rely on it).
  [
    `CREATE TABLE audit_log (
       seq INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, actor TEXT NOT NULL,
       action TEXT NOT NULL, revision INTEGER NOT NULL, details TEXT NOT NULL)`,
    `CREATE INDEX audit_by_time ON audit_log (at)`,
  ],
  // Vendor options (issue 13): strict, input_examples, allowed_callers, per vendor, as JSON (catalog/tool.ts).
  [`ALTER TABLE tools ADD COLUMN vendor TEXT`],
  // Learning from use (issue 10). What a session's searches left for crediting in its current turn, as analysed terms
  // (`kind` 'search'; a turn's message can be recorded the same way), and which tools it credited; both end with the
  // session. What each tool learned: its terms' weights as of `day`, the day of its last credit.
  [
    `CREATE TABLE session_terms (
       session_id TEXT NOT NULL, turn INTEGER NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL,
       terms TEXT NOT NULL, PRIMARY KEY (session_id, seq)) WITHOUT ROWID`,
    `CREATE TABLE session_credits (
       session_id TEXT NOT NULL, turn INTEGER NOT NULL, tool_id TEXT NOT NULL,
       PRIMARY KEY (session_id, turn, tool_id)) WITHOUT ROWID`,
    `CREATE TABLE learned_tools (
       tool_id TEXT PRIMARY KEY, day INTEGER NOT NULL, credits INTEGER NOT NULL, credited_at INTEGER NOT NULL)
       WITHOUT ROWID`,
    `CREATE TABLE learned_terms (
       tool_id TEXT NOT NULL, term TEXT NOT NULL, weight REAL NOT NULL, PRIMARY KEY (tool_id, term)) WITHOUT ROWID`,
  ],
  // Suggestions (issue 11): the last turn whose user message was ranked (a retried turn does not suggest again), and
  // which activations a message suggested (only those learn the message's words when resolved in their turn).
  [
    `ALTER TABLE sessions ADD COLUMN message_turn INTEGER`,
    `ALTER TABLE session_activations ADD COLUMN suggested INTEGER NOT NULL DEFAULT 0`,
  ],
  // Catalog history (issue 14): one row per catalog revision, and what each revision replaced (before-images of the
  // tools and servers it changed; `present` 0: it did not exist), so any kept revision can be rebuilt. A tenant that
  // existed before history starts it at its current revision. `*_scratch` tables hold a rollback's plan and a
  // backup's frozen non-catalog lines. Rowid tables: history rows can be large (a tool's schema), which WITHOUT
  // ROWID tables store badly.
  [
    `CREATE TABLE catalog_revisions (
       revision INTEGER PRIMARY KEY, at INTEGER NOT NULL, actor TEXT NOT NULL, action TEXT NOT NULL,
       added INTEGER NOT NULL, updated INTEGER NOT NULL, removed INTEGER NOT NULL, details TEXT NOT NULL,
       bytes INTEGER NOT NULL DEFAULT 0)`,
    `CREATE INDEX catalog_revisions_by_time ON catalog_revisions (at)`,
    `CREATE TABLE tool_history (
       seq INTEGER PRIMARY KEY, revision INTEGER NOT NULL, id TEXT NOT NULL, present INTEGER NOT NULL,
       server TEXT, name TEXT, model_name TEXT, title TEXT, description TEXT, input_schema TEXT,
       output_schema TEXT, annotations TEXT, keywords TEXT, defer TEXT, hash TEXT, vendor TEXT, row_revision INTEGER)`,
    `CREATE UNIQUE INDEX tool_history_by_id ON tool_history (id, revision)`,
    `CREATE INDEX tool_history_by_revision ON tool_history (revision)`,
    `CREATE TABLE server_history (
       seq INTEGER PRIMARY KEY, revision INTEGER NOT NULL, name TEXT NOT NULL, present INTEGER NOT NULL,
       defer_tools TEXT)`,
    `CREATE UNIQUE INDEX server_history_by_name ON server_history (name, revision)`,
    `CREATE INDEX server_history_by_revision ON server_history (revision)`,
    `INSERT INTO catalog_revisions (revision, at, actor, action, added, updated, removed, details)
       SELECT CAST(value AS INTEGER), CAST(strftime('%s', 'now') AS INTEGER) * 1000, 'system', 'history.start',
              0, 0, 0, '{}'
         FROM meta WHERE key = 'revision'`,
    `CREATE TABLE rollback_scratch (id TEXT PRIMARY KEY) WITHOUT ROWID`,
    `CREATE TABLE backups (
       id TEXT PRIMARY KEY, revision INTEGER NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL,
       header TEXT NOT NULL)`,
    `CREATE TABLE backup_lines (
       backup_id TEXT NOT NULL, seq INTEGER NOT NULL, line TEXT NOT NULL, PRIMARY KEY (backup_id, seq))`,
  ],
  // Hostile clients (issue 16): sessions belong to the key that made them (null: made before owners);
  // key events in the audit trail are kept by age, outside the count that bounds other entries.
  [
    `ALTER TABLE sessions ADD COLUMN owner TEXT`,
    `CREATE INDEX sessions_by_owner ON sessions (owner, expires_at)`,
    `ALTER TABLE audit_log ADD COLUMN key_event INTEGER NOT NULL DEFAULT 0`,
    `UPDATE audit_log SET key_event = 1 WHERE action IN ('key.create', 'key.revoke')`,
    `CREATE INDEX audit_by_kind ON audit_log (key_event, seq)`,
    `CREATE INDEX audit_by_kind_time ON audit_log (key_event, at)`,
  ],
  // Query log and usage (issue 12), written in batches by query-log.ts: one row per search whose text is kept
  // (log_queries), counts per UTC day, and how often each tool was returned per day.
  [
    `CREATE TABLE query_log (
       seq INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, query TEXT NOT NULL, chars INTEGER NOT NULL,
       results INTEGER NOT NULL, top TEXT)`,
    `CREATE INDEX query_log_by_time ON query_log (at)`,
    `CREATE TABLE usage_days (
       day INTEGER PRIMARY KEY, searches INTEGER NOT NULL, no_match INTEGER NOT NULL, lookups INTEGER NOT NULL,
       budget_exhausted INTEGER NOT NULL)`,
    `CREATE TABLE usage_returned (
       day INTEGER NOT NULL, tool_id TEXT NOT NULL, returned INTEGER NOT NULL, PRIMARY KEY (day, tool_id))
       WITHOUT ROWID`,
    `CREATE INDEX usage_returned_by_tool ON usage_returned (tool_id, day)`,
  ],
];

/** Whether this object's database holds the schema, i.e. its tenant was created. Reads only. */
export function schemaExists(sql: SqlStorage): boolean {
  return sql.exec(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_migrations'`).toArray().length > 0;
}

export function migrate(sql: SqlStorage): void {
  sql.exec(`CREATE TABLE IF NOT EXISTS _migrations (applied INTEGER NOT NULL)`);
  const row = sql.exec<{ applied: number }>(`SELECT applied FROM _migrations`).toArray()[0];
  const applied = row?.applied ?? 0;
  for (let i = applied; i < MIGRATIONS.length; i++) for (const statement of MIGRATIONS[i]!) sql.exec(statement);
  if (!row) sql.exec(`INSERT INTO _migrations (applied) VALUES (?)`, MIGRATIONS.length);
  else if (applied < MIGRATIONS.length) sql.exec(`UPDATE _migrations SET applied = ?`, MIGRATIONS.length);
}
