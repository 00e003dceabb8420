/**
 * What a tenant object gives every service it wires: the storage over its one SQLite database and what only the
 * object itself can give (configuration, transactions, the alarm). Each service takes the parts it uses, named in a
 * `Pick` of this, plus the other services it calls, by their own types, so its dependencies show at its head. The
 * services call one another in one direction (settings and alarms, then learning, then sessions, then catalog reads,
 * then search), so no file imports one that imports it back.
 */
import type { ServiceConfig } from "../config/env.ts";
import type { AuditLog } from "./audit-log.ts";
import type { CatalogHistory } from "./catalog-history.ts";
import type { CatalogRepo } from "./catalog-repo.ts";
import type { CatalogViews } from "./catalog-views.ts";
import type { IndexCache } from "./index-cache.ts";
import type { LearnedStore } from "./learned-store.ts";
import type { Meta } from "./meta.ts";
import type { QueryLog } from "./query-log.ts";
import type { TenantReport } from "./registry.ts";
import type { SessionStore } from "./session-store.ts";

export interface TenantParts {
  sql: SqlStorage;
  meta: Meta;
  repo: CatalogRepo;
  views: CatalogViews;
  sessionStore: SessionStore;
  /** What tools learned from use (the rows behind the index's usage field). */
  learned: LearnedStore;
  index: IndexCache;
  auditLog: AuditLog;
  /** The query log's buffer and its aggregates (query-log.ts). */
  queryLog: QueryLog;
  history: CatalogHistory;

  /** The deployment's configuration, read when needed: a bad one fails the request that needs it. */
  config(): ServiceConfig;
  /** The object's `transactionSync`: all of `work` is committed, or none of it. */
  transaction<T>(work: () => T): T;
  setAlarm(at: number): Promise<void>;
  /** Tells the tenant registry this tenant's figures (tools, revision, last write). */
  report(report: TenantReport): Promise<void>;
}
