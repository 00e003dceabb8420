/**
 * The tenant object's one alarm, which serves every timed duty: writing the index snapshot once
 * catalog writes settle, writing the query log's buffer, and ending expired sessions. A Durable Object
 * has a single alarm, so the planned time only ever moves earlier, and the alarm plans itself again
 * for what remains.
 */
import { FLUSH_DELAY_MS } from "./query-log.ts";
import type { TenantParts } from "./tenant-parts.ts";

/** After a catalog change, the snapshot is rewritten this long after the last write (writes batch up). */
const SNAPSHOT_DELAY_MS = 2_000;
/** A planned alarm this far overdue is taken as lost and planned again. */
const ALARM_OVERDUE_MS = 60_000;

type Parts = Pick<TenantParts, "meta" | "index" | "sessionStore" | "queryLog" | "transaction" | "setAlarm">;

export class Alarms {
  private readonly tenant: Parts;

  constructor(tenant: Parts) {
    this.tenant = tenant;
  }

  /**
   * Plans the alarm for `at` unless it is already planned earlier. The planned time is kept in
   * `meta` and decided synchronously, so two concurrent calls cannot interleave between reading
   * and setting the alarm and leave the later time in place.
   */
  async schedule(at: number): Promise<void> {
    const planned = this.tenant.meta.get("alarm_at");
    const current = planned === null || Number(planned) < Date.now() - ALARM_OVERDUE_MS ? null : Number(planned);
    if (current !== null && current <= at) return;
    this.tenant.meta.set("alarm_at", at);
    await this.tenant.setAlarm(at);
  }

  /** After a catalog change or a rebuild from rows: a snapshot soon, so the next cold start restores. */
  snapshotSoon(): void {
    void this.schedule(Date.now() + SNAPSHOT_DELAY_MS);
  }

  /**
   * The query log's buffer got its first entry: write it soon. A storage write only when no alarm is due sooner;
   * while searches keep coming, the alarm that writes the log plans the next one itself (see `ring`).
   */
  logSoon(): void {
    void this.schedule(Date.now() + FLUSH_DELAY_MS);
  }

  /**
   * Writes the query log's buffer, the index snapshot if it is stale, ends expired sessions, and plans itself for the
   * next session to expire (or the next log write, while searches keep coming). Alarms are delivered at least once:
   * every step is safe to repeat.
   */
  async ring(): Promise<void> {
    const { meta, index, sessionStore, queryLog } = this.tenant;
    meta.delete("alarm_at");
    if (!meta.tenantId()) return;
    const logged = queryLog.flush();
    if (index.needsSnapshot()) index.writeSnapshot();
    this.tenant.transaction(() => sessionStore.deleteExpired(Date.now()));
    const expiry = sessionStore.nextExpiry();
    const log = logged > 0 ? Date.now() + FLUSH_DELAY_MS : null;
    const next = expiry === null ? log : log === null ? expiry : Math.min(expiry, log);
    if (next !== null) await this.schedule(next);
  }
}
