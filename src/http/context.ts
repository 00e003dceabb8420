/** What every handler can read from the request context. */
import type { ServiceConfig } from "../config/env.ts";
import type { Caller } from "../tenancy/keys.ts";
import type { TenantObject } from "../durable/tenant-object.ts";

/**
 * The tenant object's RPC methods as the Worker sees them. Their arguments and results are plain
 * data that structured clone carries unchanged; workers-types' own stub typing cannot express
 * `unknown` JSON values (tool schemas), so the stub is viewed through this type instead.
 */
export type TenantApi = {
  [K in keyof TenantObject as TenantObject[K] extends (...args: never[]) => Promise<unknown>
    ? K
    : never]: TenantObject[K];
};

export function tenantStub(env: Env, tenant: string): TenantApi {
  return env.TENANTS.get(env.TENANTS.idFromName(tenant)) as unknown as TenantApi;
}

export type AppEnv = {
  Bindings: Env;
  Variables: {
    config: ServiceConfig;
    caller: Caller;
    tenant: TenantApi;
    tenantId: string;
  };
};
