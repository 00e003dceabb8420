/** Worker entry point: the HTTP app, the Durable Object class it routes tenants to, and the tenant registry. */
import { handle } from "./http/app.ts";

export { TenantObject } from "./durable/tenant-object.ts";
export { TenantRegistry } from "./durable/registry.ts";

export default { fetch: handle } satisfies ExportedHandler<Env>;
