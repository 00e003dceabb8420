/**
 * GET .../doctor: the catalog doctor (search/doctor.ts) over this tenant's rows and index, with its search settings.
 * The report of a catalog revision and settings is kept until either changes, so the console's visits are cheap. It
 * runs in the tenant's object: about 0.15 ms per tool, plus a search or two per reach check (at most
 * doctor_reach_checks of them, about 1 ms each on a catalog of thousands), during which the object answers nothing
 * else.
 */
import { tokenCounter } from "../catalog/tokens.ts";
import type { DoctorReport } from "../contract/console-schemas.ts";
import { diagnose, type Diagnosis, type FindingCode } from "../search/doctor.ts";
import { ok, type Result } from "../errors.ts";
import type { SearchService } from "./search-service.ts";
import type { TenantParts } from "./tenant-parts.ts";
import type { TenantSettings } from "./tenant-settings.ts";

export interface DoctorRequest {
  code?: FindingCode | undefined;
  limit: number;
}

type Parts = Pick<TenantParts, "meta" | "repo" | "index" | "config"> & {
  settings: TenantSettings;
  searches: SearchService;
};

export class DoctorService {
  private readonly tenant: Parts;
  private cached: (Diagnosis & { key: string; threshold: number; limit: number }) | null = null;

  constructor(tenant: Parts) {
    this.tenant = tenant;
  }

  async report(request: DoctorRequest): Promise<Result<DoctorReport>> {
    const countTokens = await tokenCounter();
    const { meta, repo, index, settings } = this.tenant;
    const search = this.tenant.searches.options();
    const revision = meta.number("revision");
    const key = JSON.stringify([revision, settings.current(), settings.synonyms().map]);
    if (this.cached?.key !== key) {
      const diagnosis = diagnose(repo.allTools(), {
        index: index.get(),
        search,
        reachChecks: this.tenant.config().limits.doctor_reach_checks,
        countTokens,
        nameOwner: (name) => repo.modelNameOwner(name),
      });
      this.cached = { ...diagnosis, key, threshold: search.threshold, limit: search.limit };
    }
    const { findings, reach, threshold, limit } = this.cached;
    const counts: Partial<Record<FindingCode, number>> = {};
    for (const f of findings) counts[f.code] = (counts[f.code] ?? 0) + 1;
    const chosen = request.code === undefined ? findings : findings.filter((f) => f.code === request.code);
    return ok({
      revision,
      tools: index.get().size,
      threshold,
      max_results: limit,
      reach,
      counts,
      findings: chosen.slice(0, request.limit),
      more: chosen.length > request.limit,
    });
  }
}
