/**
 * The slice of a Durable Object's `SqlStorage` that the tenant's storage code uses (`exec` with
 * bound parameters, returning a cursor with `toArray`, `one` and iteration), over Node's built-in
 * SQLite. With it the bench runs the worker's own schema, catalog repo and index cache (snapshot
 * chunks, checksums, restore, rebuild from rows) instead of an imitation of them.
 */
import type { DatabaseSync, SQLInputValue } from "node:sqlite";

export function nodeSqlStorage(db: DatabaseSync): SqlStorage {
  const statements = new Map<string, ReturnType<DatabaseSync["prepare"]>>();
  const exec = (query: string, ...bindings: unknown[]) => {
    let statement = statements.get(query);
    if (!statement) {
      statement = db.prepare(query);
      statements.set(query, statement);
    }
    const params = bindings.map(toSql);
    if (!statement.columns().length) {
      statement.run(...params);
      return cursor([]);
    }
    return cursor(statement.all(...params).map(fromSql));
  };
  return { exec } as unknown as SqlStorage;
}

/** Durable Object SQL takes ArrayBuffers and views for BLOBs; node:sqlite wants Uint8Array. */
function toSql(value: unknown): SQLInputValue {
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value) && !(value instanceof Uint8Array))
    return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  return value as SQLInputValue;
}

/** BLOBs come back as ArrayBuffer, as in a Durable Object. */
function fromSql(row: Record<string, unknown>): Record<string, unknown> {
  for (const [key, value] of Object.entries(row)) {
    if (!(value instanceof Uint8Array)) continue;
    const whole = value.byteOffset === 0 && value.byteLength === value.buffer.byteLength;
    row[key] = whole ? value.buffer : value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength);
  }
  return row;
}

function cursor(rows: Record<string, unknown>[]) {
  return {
    toArray: () => rows,
    one: () => {
      if (rows.length !== 1) throw new Error(`expected one row, got ${rows.length}`);
      return rows[0];
    },
    [Symbol.iterator]: () => rows[Symbol.iterator](),
  };
}
