/**
 * Who may call a tenant object, and the keys that say so: authorisation of every call, and the
 * admin side of keys (create, list, revoke). Key records are cached in memory, so a request with
 * a valid key costs a hash and no SQL read.
 */
import { limitNote } from "../config/limits.ts";
import type { KeyInfo } from "../contract/schemas.ts";
import { fail, ok, type ApiError, type Result } from "../errors.ts";
import { type Caller, digestsEqual, generateKey, hashSecret, type Scope } from "../tenancy/keys.ts";
import type { TenantParts } from "./tenant-parts.ts";

export interface KeyRecord {
  hash: Uint8Array;
  scopes: Scope[];
  revoked: boolean;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

type Parts = Pick<TenantParts, "sql" | "meta" | "auditLog" | "config" | "transaction">;

export class Access {
  private readonly tenant: Parts;
  private readonly records: Map<string, KeyRecord>;

  constructor(tenant: Parts, records: Map<string, KeyRecord>) {
    this.tenant = tenant;
    this.records = records;
  }

  /** Null when the caller may act with `scope` (any, when null) on this tenant, else the refusal to answer. */
  async authorize(caller: Caller, scope: Scope | null): Promise<ApiError | null> {
    const tenantId = this.tenant.meta.tenantId();
    if (caller.kind === "operator") {
      // The Worker verified the operator token; only it can reach this object.
      return tenantId ? null : fail("not-found", "No such tenant. Create it with POST /v1/tenants.").error;
    }
    const record = tenantId ? this.keyRecord(caller.keyId) : null;
    if (!record || record.revoked || !digestsEqual(record.hash, await hashSecret(caller.secret))) {
      return fail("unauthorized", "The API key is not valid for this tenant (unknown, revoked or mistyped).").error;
    }
    if (scope !== null && !record.scopes.includes(scope)) {
      return fail("forbidden", `This key lacks the '${scope}' scope. Ask an admin for a key with it.`, {
        required_scope: scope,
      }).error;
    }
    return null;
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
    const fresh = generateKey(this.tenant.meta.tenantId()!);
    const hash = await hashSecret(fresh.secret);
    const limits = this.tenant.config().limits;
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
   * Revokes a key with immediate effect. Revoked keys stay listed, the newest
   * `max_keys_per_tenant` of them: older ones are deleted (a deleted key is refused like a revoked
   * one), so creating and revoking keys forever cannot grow the table without bound.
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
      this.tenant.auditLog.record(caller, "key.revoke", { key_id: keyId });
    });
    this.records.clear(); // takes effect on the very next request (and forgets keys the cleanup deleted)
    return ok(null);
  }
}
