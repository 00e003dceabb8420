/**
 * Taking a backup (GET .../backup): the tenant at one revision R, read a page at a time, the same bytes every time it
 * is read, so that the Worker can read it once to checksum it and again to stream it under a header that carries
 * the checksum, without holding it.
 *
 * - The catalog at R is the live catalog overlaid with the history's before-images (catalog-history.ts), so writes
 *   made while the backup is read do not show in it; the prune keeps R while the backup is open.
 * - What has no history (settings, synonyms, key records, what tools learned from use) is frozen when the backup
 *   begins: its lines are written to `backup_lines` and read from there. Learned terms are those of the tools at R:
 *   a tool leaving the catalog forgets them in the same transaction as its revision.
 * - An open backup expires after BACKUP_TTL_MS; the alarm drops what expired backups left.
 *
 * Tool lines are built from the stored JSON text, never parsed and serialised again, so a page costs the reading.
 */
import { BACKUP_FORMAT, BACKUP_VERSION, type BackupHeader } from "../contract/backup.ts";
import { fail, ok, type Result } from "../errors.ts";
import type { StoredTool } from "./catalog-history.ts";
import type { TenantParts } from "./tenant-parts.ts";
import type { TenantSettings } from "./tenant-settings.ts";

/** How long a backup stays readable after it begins. */
const BACKUP_TTL_MS = 60 * 60 * 1000;
/** A page holds about this many bytes of lines (one more line may pass it). */
const PAGE_BYTES = 1024 * 1024;
const TOOLS_PER_READ = 200;

/** The header without its checksum, which the Worker adds once it has read every line. */
export type PendingHeader = Omit<BackupHeader, "checksum">;

const J = JSON.stringify;

/** A tool's line, from its stored columns (JSON fields as stored text). */
function toolLine(t: StoredTool): string {
  return (
    `{"type":"tool","id":${J(t.id)},"server":${J(t.server)},"name":${J(t.name)},"model_name":${J(t.model_name)},` +
    `"title":${J(t.title)},"description":${J(t.description)},"inputSchema":${t.input_schema},` +
    `"outputSchema":${t.output_schema ?? "null"},"annotations":${t.annotations ?? "null"},"keywords":${t.keywords},` +
    `"defer":${J(t.defer)},"vendor":${t.vendor ?? "null"},"hash":${J(t.hash)},"revision":${t.revision}}`
  );
}

const hex = (bytes: ArrayBuffer) => Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");

type Parts = Pick<TenantParts, "sql" | "meta" | "repo" | "history" | "learned" | "transaction">;

interface BackupSql {
  revision: number;
  expires_at: number;
  header: string;
  [key: string]: SqlStorageValue;
}

export class TenantBackups {
  private readonly tenant: Parts;
  private readonly settings: TenantSettings;

  constructor(tenant: Parts, settings: TenantSettings) {
    this.tenant = tenant;
    this.settings = settings;
  }

  /** Opens a backup of the tenant as it is now: its id and the header its lines will have (but the checksum). */
  begin(now: number): { id: string; header: PendingHeader } {
    const { sql, meta, repo, history } = this.tenant;
    const id = crypto.randomUUID();
    const revision = meta.number("revision");
    const keys = sql
      .exec<{
        id: string;
        hash: ArrayBuffer;
        scopes: string;
        label: string | null;
        created_at: number;
        revoked_at: number | null;
      }>(`SELECT id, hash, scopes, label, created_at, revoked_at FROM keys ORDER BY created_at, id`)
      .toArray()
      .map((k) =>
        J({
          type: "key",
          id: k.id,
          hash: hex(k.hash),
          scopes: JSON.parse(k.scopes) as string[],
          label: k.label,
          created_at: k.created_at,
          revoked_at: k.revoked_at,
        }),
      );
    const learned: string[] = [];
    for (const t of this.tenant.learned.all())
      learned.push(
        J({
          type: "learned",
          tool_id: t.id,
          day: t.day,
          credits: t.credits,
          credited_at: t.creditedAt,
          terms: t.terms.map(({ term, weight }) => ({ term, weight })),
        }),
      );
    const frozen = [
      J({ type: "settings", settings: this.settings.current() }),
      J({ type: "synonyms", synonyms: this.settings.synonyms().map }),
      ...keys,
      ...learned,
    ];
    const servers = history.serversAt(revision).size;
    const tools = repo.countTools();
    const header: PendingHeader = {
      type: "header",
      format: BACKUP_FORMAT,
      version: BACKUP_VERSION,
      tenant: meta.tenantId()!,
      revision,
      taken_at: new Date(now).toISOString(),
      counts: {
        lines: frozen.length + servers + tools,
        settings: 1,
        synonyms: 1,
        keys: keys.length,
        learned: learned.length,
        servers,
        tools,
      },
    };
    this.tenant.transaction(() => {
      this.dropExpired(now);
      sql.exec(
        `INSERT INTO backups (id, revision, created_at, expires_at, header) VALUES (?, ?, ?, ?, ?)`,
        id,
        revision,
        now,
        now + BACKUP_TTL_MS,
        J(header),
      );
      for (const [seq, line] of frozen.entries())
        sql.exec(`INSERT INTO backup_lines (backup_id, seq, line) VALUES (?, ?, ?)`, id, seq, line);
    });
    return { id, header };
  }

  /**
   * A page of the backup's lines, from `cursor` (null: the start); `next` is null after the last page. The same
   * cursor gives the same lines for as long as the backup is open.
   */
  page(id: string, cursor: string | null, now: number): Result<{ lines: string[]; next: string | null }> {
    const { sql, history } = this.tenant;
    const backup = sql
      .exec<BackupSql>(`SELECT revision, expires_at, header FROM backups WHERE id = ?`, id)
      .toArray()[0];
    if (!backup || backup.expires_at <= now)
      return fail("not-found", "This backup is no longer open (they stay open for an hour); take a new one.");
    if (history.oldest() > backup.revision)
      return fail("gone", `The catalog history no longer reaches revision ${backup.revision}; take a new backup.`);
    const lines: string[] = [];
    let bytes = 0;
    let at = cursor ?? "s:0";
    while (bytes < PAGE_BYTES) {
      if (at.startsWith("s:")) {
        const rows = sql
          .exec<{ seq: number; line: string }>(
            `SELECT seq, line FROM backup_lines WHERE backup_id = ? AND seq >= ? ORDER BY seq LIMIT 500`,
            id,
            Number(at.slice(2)),
          )
          .toArray();
        for (const r of rows) {
          lines.push(r.line);
          bytes += r.line.length;
        }
        at = rows.length === 500 ? `s:${rows.at(-1)!.seq + 1}` : "v:";
      } else if (at === "v:") {
        for (const [name, defer] of history.serversAt(backup.revision)) {
          const line = J({ type: "server", name, defer_tools: defer });
          lines.push(line);
          bytes += line.length;
        }
        at = "t:";
      } else if (at.startsWith("t:")) {
        const ids = history.idsAt(backup.revision, at === "t:" ? null : at.slice(2), TOOLS_PER_READ);
        for (const tool of history.states(ids, backup.revision).values()) {
          if (!tool) continue;
          const line = toolLine(tool);
          lines.push(line);
          bytes += line.length;
        }
        if (ids.length < TOOLS_PER_READ) return ok({ lines, next: null });
        at = `t:${ids.at(-1)!}`;
      } else {
        return fail("invalid-request", "This backup cursor is not one the service made.");
      }
    }
    return ok({ lines, next: at });
  }

  /** Closes a backup: its frozen lines go, and the history may be pruned past its revision again. */
  end(id: string): void {
    this.tenant.transaction(() => {
      this.tenant.sql.exec(`DELETE FROM backup_lines WHERE backup_id = ?`, id);
      this.tenant.sql.exec(`DELETE FROM backups WHERE id = ?`, id);
    });
  }

  /** Drops what expired backups left (in the caller's transaction). */
  dropExpired(now: number): void {
    const { sql } = this.tenant;
    sql.exec(`DELETE FROM backup_lines WHERE backup_id IN (SELECT id FROM backups WHERE expires_at <= ?)`, now);
    sql.exec(`DELETE FROM backups WHERE expires_at <= ?`, now);
  }

  /** When the next open backup expires, or null. */
  nextExpiry(): number | null {
    return this.tenant.sql.exec<{ at: number | null }>(`SELECT MIN(expires_at) AS at FROM backups`).one().at;
  }
}
