/** What every handler can read from the request context. */
import type { ServiceConfig } from "../config/env.ts";
import type { Caller } from "../tenancy/keys.ts";
import type { TenantObject } from "../durable/tenant-object.ts";
import type { TenantRegistry } from "../durable/registry.ts";

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

/** The tenant registry's RPC methods, viewed the same way. */
export type RegistryApi = {
  [K in keyof TenantRegistry as TenantRegistry[K] extends (...args: never[]) => unknown ? K : never]: (
    ...args: Parameters<Extract<TenantRegistry[K], (...args: never[]) => unknown>>
  ) => Promise<Awaited<ReturnType<Extract<TenantRegistry[K], (...args: never[]) => unknown>>>>;
};

export function registryStub(env: Env): RegistryApi {
  return env.REGISTRY.get(env.REGISTRY.idFromName("registry")) as unknown as RegistryApi;
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
