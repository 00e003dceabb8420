/** Small key/value facts of a tenant object (tenant id, settings, catalog revision, snapshot state). */
export class Meta {
  private readonly sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.sql = sql;
  }

  get(key: string): string | null {
    return this.sql.exec<{ value: string }>(`SELECT value FROM meta WHERE key = ?`, key).toArray()[0]?.value ?? null;
  }

  /** Null until the operator creates the tenant: an object that has none serves nobody. */
  tenantId(): string | null {
    return this.get("tenant_id");
  }

  number(key: string): number {
    return Number(this.get(key) ?? 0);
  }

  delete(key: string): void {
    this.sql.exec(`DELETE FROM meta WHERE key = ?`, key);
  }

  set(key: string, value: string | number): void {
    this.sql.exec(
      `INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
      key,
      String(value),
    );
  }
}
