/**
 * The tenant object's one alarm, which serves every timed duty: writing the index snapshot once
 * catalog writes settle, writing the query log's buffer, ending expired sessions, and once a day, while
 * tools have learned something, deleting learned terms that have decayed away. A Durable Object has a
 * single alarm, so the planned time only ever moves earlier, and the alarm plans itself again for what
 * remains.
 */
import type { TenantReport } from "./registry.ts";
import { dayOf } from "../search/learning.ts";
import { FLUSH_DELAY_MS } from "./query-log.ts";
import type { TenantParts } from "./tenant-parts.ts";
import type { TenantSettings } from "./tenant-settings.ts";

/** After a catalog change, the snapshot is rewritten this long after the last write (writes batch up). */
const SNAPSHOT_DELAY_MS = 2_000;
/** A planned alarm this far overdue is taken as lost and planned again. */
const ALARM_OVERDUE_MS = 60_000;
/** While tools have learned something, the alarm comes back this often to prune what decayed away. */
const PRUNE_INTERVAL_MS = 24 * 3600 * 1000;

type Parts = Pick<
  TenantParts,
  | "meta"
  | "repo"
  | "index"
  | "sessionStore"
  | "queryLog"
  | "learned"
  | "history"
  | "transaction"
  | "setAlarm"
  | "report"
> & {
  settings: TenantSettings;
};

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

  /** What this tenant tells the registry about itself. */
  registryReport(): TenantReport {
    const { meta, repo, history } = this.tenant;
    if (!meta.tenantId()) return { exists: false, created_at: null, tools: 0, revision: 0, last_write_at: null };
    const revision = meta.number("revision");
    return {
      exists: true,
      created_at: meta.number("created_at"),
      tools: repo.countTools(),
      revision,
      last_write_at: history.get(revision)?.at ?? null,
    };
  }

  /**
   * Reports to the registry when the catalog moved since the last report (or the registry never heard of this
   * tenant). A failed report is tried again at the next alarm; the figures are a few seconds behind the writes.
   */
  private async reportIfChanged(): Promise<void> {
    const { meta } = this.tenant;
    const revision = meta.number("revision");
    if (meta.get("reported_revision") === String(revision)) return;
    try {
      await this.tenant.report(this.registryReport());
      meta.set("reported_revision", revision);
    } catch (e) {
      console.error(`registry report failed: ${e instanceof Error ? e.name : "error"}`);
    }
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
   * Writes the query log's buffer, prunes decayed learned terms (once a day), writes the index snapshot if it is
   * stale, ends expired sessions, prunes the catalog history retention no longer keeps (and backups nobody finished
   * reading), and plans itself for the next of these duties (the next session to expire, the next log write while
   * searches keep coming, the next day's pruning of learned terms). Alarms are delivered at least once: every step
   * is safe to repeat.
   */
  async ring(): Promise<void> {
    const { meta, index, sessionStore, history, queryLog } = this.tenant;
    meta.delete("alarm_at");
    if (!meta.tenantId()) return;
    const logged = queryLog.flush();
    const now = Date.now();
    this.pruneLearned(now);
    if (index.needsSnapshot()) index.writeSnapshot();
    this.tenant.transaction(() => sessionStore.deleteExpired(now));
    const pruned = this.tenant.transaction(() => history.prune(now));
    await this.reportIfChanged();
    const prune = this.tenant.learned.counts().tools > 0 ? now + PRUNE_INTERVAL_MS : null;
    const log = logged > 0 ? now + FLUSH_DELAY_MS : null;
    const next = [sessionStore.nextExpiry(), pruned.again, prune, log].filter((t) => t !== null);
    if (next.length > 0) await this.schedule(Math.min(...next));
  }

  /**
   * Deletes learned terms whose weight decayed below the floor (they already score nothing), at most once a day,
   * and reloads the index's usage field from the rows when any went.
   */
  private pruneLearned(now: number): void {
    const { meta, learned, index } = this.tenant;
    const day = dayOf(now);
    if (meta.number("learned_pruned_day") >= day) return;
    const halfLife = this.tenant.settings.current().learn_half_life_days;
    const pruned = this.tenant.transaction(() => {
      meta.set("learned_pruned_day", day);
      return learned.prune(day, halfLife);
    });
    if (pruned > 0) index.reloadLearned();
  }
}
