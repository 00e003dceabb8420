/** Worker entry point: the HTTP app and the Durable Object class it routes tenants to. */
import { handle } from "./http/app.ts";

export { TenantObject } from "./durable/tenant-object.ts";

export default { fetch: handle } satisfies ExportedHandler<Env>;
