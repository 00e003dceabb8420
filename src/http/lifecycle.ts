/**
 * Creating, restoring and deleting a tenant, kept in step with the tenant registry (src/durable/registry.ts): the
 * registry records the intent, the tenant's object does the work, the registry settles. An interruption between the
 * steps leaves an intent the registry's alarm settles (and a retry settles at once); the registry lists only settled
 * tenants, so it never lists one that is being created or deleted.
 */
import type { OperatorAction } from "../durable/registry.ts";
import type { Result } from "../errors.ts";
import { registryStub, tenantStub } from "./context.ts";
import { expectOk } from "./errors.ts";

/** Finishes a deletion the registry says is unfinished: the erase is safe to repeat. */
async function finishDeletion(env: Env, id: string): Promise<void> {
  const erased = await tenantStub(env, id).eraseTenant();
  await registryStub(env).deleted(id, { tools: erased.tools, finished_by: "a new creation" });
}

/**
 * Runs `work`, which creates tenant `id` in its object (a creation or a restore), between the registry's intent and
 * its settlement. A refusal because the tenant exists keeps it listed; any other refusal drops the intent.
 */
export async function registeredCreation<T>(
  env: Env,
  id: string,
  action: OperatorAction,
  work: () => Promise<Result<T>>,
  details: (value: T) => Record<string, unknown> = () => ({}),
): Promise<T> {
  const registry = registryStub(env);
  if ((await registry.intendCreate(id)) === "deleting") await finishDeletion(env, id);
  const result = await work();
  const tenant = tenantStub(env, id);
  if (!result.ok) {
    if (result.error.error === "conflict") await registry.report(id, await tenant.registryReport());
    else await registry.abandoned(id);
    return expectOk(result);
  }
  await registry.created(id, await tenant.registryReport(), action, details(result.value));
  return result.value;
}

/** Deletes tenant `id` everywhere; false when there was nothing to delete (no tenant, no unfinished deletion). */
export async function deleteTenant(env: Env, id: string): Promise<boolean> {
  const registry = registryStub(env);
  const before = await registry.intendDelete(id);
  const erased = await tenantStub(env, id).eraseTenant();
  const found = erased.existed || before === "deleting";
  await registry.deleted(id, found ? { tools: erased.tools } : null);
  return found;
}
