/**
 * After the load: is what the service holds consistent with what it acknowledged? Each check reads
 * the service's own answers (catalog, listings, sessions, audit trail) and compares them with what
 * the virtual users observed.
 */
import type { Api, Observed, Tenant } from "./workload.ts";

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

/** Every tool id of a tenant (optionally of one server), through the paginated listing. */
export async function listToolIds(api: Api, token: string, tenant: string, server?: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const query = new URLSearchParams({ limit: "500", ...(server ? { server } : {}), ...(cursor ? { cursor } : {}) });
    const page = await api(token, "GET", `/v1/tenants/${tenant}/tools?${query}`, undefined, "check");
    if (page.status !== 200) throw new Error(`listing tools of ${tenant}: ${page.status}`);
    ids.push(...(page.json.tools as { tool_id: string }[]).map((t) => t.tool_id));
    cursor = page.json.next_cursor;
  } while (cursor);
  return ids;
}

async function auditUpserts(api: Api, token: string, tenant: string): Promise<number> {
  let count = 0;
  let cursor: string | null = null;
  do {
    const query = new URLSearchParams({ limit: "500", ...(cursor ? { cursor } : {}) });
    const page = await api(token, "GET", `/v1/tenants/${tenant}/audit?${query}`, undefined, "check");
    if (page.status !== 200) throw new Error(`reading the audit trail of ${tenant}: ${page.status}`);
    count += (page.json.entries as { action: string }[]).filter((e) => e.action === "tools.upsert").length;
    cursor = page.json.next_cursor;
  } while (cursor);
  return count;
}

export async function runChecks(api: Api, operator: string, tenants: Tenant[], observed: Observed): Promise<Check[]> {
  const checks: Check[] = [];
  const check = (name: string, problems: string[], good: string) =>
    checks.push({ name, ok: problems.length === 0, detail: problems.length ? problems.slice(0, 5).join("; ") : good });

  // Every acknowledged upload is in the catalog, each bumped the revision once, and each is in the audit trail.
  const missing: string[] = [];
  const revisions: string[] = [];
  const audits: string[] = [];
  let acknowledged = 0;
  for (const tenant of tenants) {
    const ups = observed.upserts.get(tenant.id) ?? [];
    acknowledged += ups.length;
    const listed = new Set(await listToolIds(api, operator, tenant.id, "load"));
    for (const id of ups) if (!listed.has(id)) missing.push(`${tenant.id}: ${id}`);
    if (listed.size !== ups.length)
      missing.push(`${tenant.id}: ${listed.size} tools on server 'load', ${ups.length} acknowledged`);
    const catalog = await api(operator, "GET", `/v1/tenants/${tenant.id}/catalog`, undefined, "check");
    if (catalog.json.revision !== tenant.seededRevision + ups.length) {
      revisions.push(
        `${tenant.id}: revision ${catalog.json.revision}, expected ${tenant.seededRevision} + ${ups.length}`,
      );
    }
    const upserts = await auditUpserts(api, operator, tenant.id);
    if (upserts !== tenant.seededUpserts + ups.length)
      audits.push(`${tenant.id}: ${upserts} tools.upsert entries, expected ${tenant.seededUpserts} + ${ups.length}`);
  }
  check(
    "acknowledged uploads present",
    missing,
    `${acknowledged} of ${acknowledged} acknowledged uploads are in the catalog`,
  );
  check("one revision per change", revisions, `every tenant's revision = seed + acknowledged uploads`);
  check("audit trail complete", audits, `one tools.upsert entry per acknowledged upload`);

  // Activated tools exist: what searches reported, and what live sessions hold now.
  const strays: string[] = [];
  const catalogs = new Map<string, Set<string>>();
  for (const tenant of tenants) catalogs.set(tenant.id, new Set(await listToolIds(api, operator, tenant.id)));
  for (const [tenant, ids] of observed.activated)
    for (const id of ids) if (!catalogs.get(tenant)!.has(id)) strays.push(`${tenant}: search activated ${id}`);
  const overspent: string[] = [];
  let live = 0;
  for (const session of observed.sessions.filter((s) => !s.ended)) {
    const state = await api(
      session.key,
      "GET",
      `/v1/tenants/${session.tenant}/sessions/${session.id}`,
      undefined,
      "check",
    );
    if (state.status !== 200) {
      strays.push(`${session.tenant}/${session.id}: session answered ${state.status}`);
      continue;
    }
    live += 1;
    for (const id of state.json.activated as string[])
      if (!catalogs.get(session.tenant)!.has(id)) strays.push(`${session.tenant}/${session.id}: activated ${id}`);
    if (state.json.budget.used > state.json.budget.cap)
      overspent.push(`${session.tenant}/${session.id}: ${state.json.budget.used} of ${state.json.budget.cap}`);
  }
  check("activated sets hold existing tools", strays, `${live} live sessions and every search answer checked`);

  // No turn ran more searches than its budget allowed.
  for (const [slot, count] of observed.searchesPerTurn) {
    const cap = observed.caps.get(slot.split("/").slice(0, 2).join("/"))!;
    if (count > cap) overspent.push(`${slot}: ${count} searches ran, cap ${cap}`);
  }
  check("budgets never exceeded", overspent, `${observed.searchesPerTurn.size} session turns within their caps`);
  check("no broken promises", observed.violations, "every tool found was resolvable at once; no budget 429 came early");
  return checks;
}
