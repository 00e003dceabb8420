/**
 * A tenant's index on its storage path, for scripts: the tenant schema, the catalog rows and the index cache
 * (checksummed snapshot chunks, restore, rebuild from rows) over any SqlStorage, wired as the tenant object wires
 * them. The bench measures the worker's own storage code through this one entry point, over node:sqlite; scripts
 * import nothing else from durable/, and the Worker does not import this.
 */
import { CatalogRepo } from "./catalog-repo.ts";
import { IndexCache } from "./index-cache.ts";
import { LearnedStore } from "./learned-store.ts";
import { Meta } from "./meta.ts";
import { migrate } from "./schema.ts";

export interface IndexStorage {
  meta: Meta;
  repo: CatalogRepo;
  /** A cold object's index cache: it restores the current snapshot, or rebuilds from the rows. */
  indexCache(): IndexCache;
}

/** The tenant schema on `sql` (created or migrated), and the storage parts over it. */
export function openIndexStorage(sql: SqlStorage): IndexStorage {
  migrate(sql);
  const meta = new Meta(sql);
  const repo = new CatalogRepo(sql);
  return { meta, repo, indexCache: () => new IndexCache(sql, repo, new LearnedStore(sql, meta), meta) };
}
