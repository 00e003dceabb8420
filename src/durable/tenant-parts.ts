/**
 * What a tenant object wires together: the storage over its one SQLite database, what only the
 * object itself can give (configuration, transactions, the alarm), and the services built on
 * them. Each service takes the parts it uses, named in a `Pick` of this, so its dependencies show
 * at its head.
 */
import type { ServiceConfig } from "../config/env.ts";
import type { Alarms } from "./alarms.ts";
import type { AuditLog } from "./audit-log.ts";
import type { CatalogReads } from "./catalog-reads.ts";
import type { CatalogRepo } from "./catalog-repo.ts";
import type { CatalogViews } from "./catalog-views.ts";
import type { IndexCache } from "./index-cache.ts";
import type { Meta } from "./meta.ts";
import type { SessionService } from "./session-service.ts";
import type { SessionStore } from "./session-store.ts";
import type { TenantSettings } from "./tenant-settings.ts";

export interface TenantParts {
  sql: SqlStorage;
  meta: Meta;
  repo: CatalogRepo;
  views: CatalogViews;
  sessionStore: SessionStore;
  index: IndexCache;
  auditLog: AuditLog;

  /** The deployment's configuration, read when needed: a bad one fails the request that needs it. */
  config(): ServiceConfig;
  /** The object's `transactionSync`: all of `work` is committed, or none of it. */
  transaction<T>(work: () => T): T;
  setAlarm(at: number): Promise<void>;

  settings: TenantSettings;
  alarms: Alarms;
  sessions: SessionService;
  reads: CatalogReads;
}
