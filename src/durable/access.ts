/**
 * Who may call a tenant object, and the keys that say so: authorisation of every call, and the
 * admin side of keys (create, list, revoke). Key records are cached in memory, so a request with
 * a valid key costs a hash and no SQL read.
 */
import { limitNote } from "../config/limits.ts";
import type { KeyInfo } from "../contract/schemas.ts";
import { fail, ok, type Result } from "../errors.ts";
import { type Caller, digestsEqual, generateKey, hashSecret, type Scope } from "../tenancy/keys.ts";
import type { TenantParts } from "./tenant-parts.ts";

export interface KeyRecord {
  hash: Uint8Array;
  scopes: Scope[];
  revoked: boolean;
}

/** What an authorised caller may do here: its scopes, and who it is as the owner of sessions. */
export interface Grant {
  scopes: readonly Scope[];
  /** `operator` or `key:<key id>`. */
  owner: string;
}

const ALL_SCOPES: readonly Scope[] = ["search", "write", "admin"];

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

type Parts = Pick<TenantParts, "sql" | "meta" | "auditLog" | "sessionStore" | "config" | "transaction">;

export class Access {
  private readonly tenant: Parts;
  private readonly records: Map<string, KeyRecord>;

  constructor(tenant: Parts, records: Map<string, KeyRecord>) {
    this.tenant = tenant;
    this.records = records;
  }

  /**
   * What the caller may do when it may act with `scope` on this tenant (any valid key when `scope` is
   * null), else the refusal to answer. `exists` is false for an object whose tenant was never created:
   * it is refused without a read of its (absent) tables, so that it writes nothing, not even a schema.
   */
  async authorize(caller: Caller, scope: Scope | null, exists: boolean): Promise<Result<Grant>> {
    const tenantId = exists ? this.tenant.meta.tenantId() : null;
    if (caller.kind === "operator") {
      // The Worker verified the operator token; only it can reach this object.
      return tenantId
        ? ok({ scopes: ALL_SCOPES, owner: "operator" })
        : fail("not-found", "No such tenant. Create it with POST /v1/tenants.");
    }
    const record = tenantId ? this.keyRecord(caller.keyId) : null;
    if (!record || record.revoked || !digestsEqual(record.hash, await hashSecret(caller.secret))) {
      return fail("unauthorized", "The API key is not valid for this tenant (unknown, revoked or mistyped).");
    }
    if (scope !== null && !record.scopes.includes(scope)) {
      return fail("forbidden", `This key lacks the '${scope}' scope. Ask an admin for a key with it.`, {
        required_scope: scope,
      });
    }
    return ok({ scopes: record.scopes, owner: `key:${caller.keyId}` });
  }

  /**
   * A key's stored record. Only keys that exist are cached (at most the keys table): caching misses
   * would let a flood of forged key ids, which costs the sender nothing, grow this object's memory
   * without bound.
   */
  private keyRecord(keyId: string): KeyRecord | null {
    const cached = this.records.get(keyId);
    if (cached) return cached;
    const r = this.tenant.sql
      .exec<{ hash: ArrayBuffer; scopes: string; revoked_at: number | null }>(
        `SELECT hash, scopes, revoked_at FROM keys WHERE id = ?`,
        keyId,
      )
      .toArray()[0];
    if (!r) return null;
    const record = {
      hash: new Uint8Array(r.hash),
      scopes: JSON.parse(r.scopes) as Scope[],
      revoked: r.revoked_at !== null,
    };
    this.records.set(keyId, record);
    return record;
  }

  async createKey(caller: Caller, scopes: Scope[], label: string | null): Promise<Result<KeyInfo & { key: string }>> {
    // Hashed before the check, so that nothing awaits between counting and inserting: two
    // concurrent creations cannot both take the last free place.
    const config = this.tenant.config();
    const fresh = await generateKey(this.tenant.meta.tenantId()!, config.keySigningSecrets[0] ?? null);
    const hash = await hashSecret(fresh.secret);
    const limits = config.limits;
    const active = this.tenant.sql
      .exec<{ n: number }>(`SELECT COUNT(*) AS n FROM keys WHERE revoked_at IS NULL`)
      .one().n;
    if (active >= limits.max_keys_per_tenant) {
      return fail(
        "conflict",
        `This tenant holds ${active} active keys, the most it may hold ` +
          `${limitNote("max_keys_per_tenant", limits)}. Revoke unused keys first.`,
      );
    }
    const created = Date.now();
    const unique = [...new Set(scopes)];
    this.tenant.transaction(() => {
      this.tenant.sql.exec(
        `INSERT INTO keys (id, hash, scopes, label, created_at) VALUES (?, ?, ?, ?, ?)`,
        fresh.keyId,
        hash,
        JSON.stringify(unique),
        label,
        created,
      );
      this.tenant.auditLog.record(caller, "key.create", { key_id: fresh.keyId, scopes: unique });
    });
    this.records.delete(fresh.keyId);
    return ok({ id: fresh.keyId, key: fresh.key, scopes: unique, label, created_at: iso(created)!, revoked_at: null });
  }

  listKeys(): KeyInfo[] {
    return this.tenant.sql
      .exec<{ id: string; scopes: string; label: string | null; created_at: number; revoked_at: number | null }>(
        `SELECT id, scopes, label, created_at, revoked_at FROM keys ORDER BY created_at, id`,
      )
      .toArray()
      .map((r) => ({
        id: r.id,
        scopes: JSON.parse(r.scopes) as Scope[],
        label: r.label,
        created_at: iso(r.created_at)!,
        revoked_at: iso(r.revoked_at),
      }));
  }

  /**
   * Revokes a key with immediate effect, and ends every session it created. Revoked keys stay
   * listed, the newest `max_keys_per_tenant` of them: older ones are deleted (a deleted key is
   * refused like a revoked one), so creating and revoking keys forever cannot grow the table
   * without bound.
   */
  revokeKey(caller: Caller, keyId: string): Result<null> {
    const row = this.tenant.sql
      .exec<{ revoked_at: number | null }>(`SELECT revoked_at FROM keys WHERE id = ?`, keyId)
      .toArray()[0];
    if (!row) return fail("not-found", `No key '${keyId}' in this tenant.`);
    if (row.revoked_at !== null) return ok(null); // revoking twice changes nothing
    const limits = this.tenant.config().limits;
    this.tenant.transaction(() => {
      this.tenant.sql.exec(`UPDATE keys SET revoked_at = ? WHERE id = ?`, Date.now(), keyId);
      this.tenant.sql.exec(
        `DELETE FROM keys WHERE id IN (SELECT id FROM keys WHERE revoked_at IS NOT NULL ORDER BY ` +
          `revoked_at DESC, id LIMIT -1 OFFSET ?)`,
        limits.max_keys_per_tenant,
      );
      const ended = this.tenant.sessionStore.deleteOwnedBy(`key:${keyId}`);
      this.tenant.auditLog.record(caller, "key.revoke", { key_id: keyId, sessions_ended: ended });
    });
    this.records.clear(); // takes effect on the very next request (and forgets keys the cleanup deleted)
    return ok(null);
  }

  /** Ends every session a key created (admin), whether or not the key is still valid; returns how many. */
  purgeSessions(caller: Caller, keyId: string): Result<{ key_id: string; ended: number }> {
    const known = this.tenant.sql.exec(`SELECT 1 FROM keys WHERE id = ?`, keyId).toArray().length > 0;
    const owner = `key:${keyId}`;
    if (!known && this.tenant.sessionStore.countOwnedBy(owner, 0) === 0)
      return fail("not-found", `No key '${keyId}' in this tenant.`);
    let ended = 0;
    this.tenant.transaction(() => {
      ended = this.tenant.sessionStore.deleteOwnedBy(owner);
      if (ended > 0) this.tenant.auditLog.record(caller, "sessions.purge", { key_id: keyId, ended });
    });
    return ok({ key_id: keyId, ended });
  }
}
