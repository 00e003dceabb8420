/**
 * The Origin rule, for the API and the MCP endpoint alike (MCP's specification asks servers to check Origin, against
 * DNS rebinding). A request is let through when:
 *
 * - it carries no Origin header: servers, CLIs and SDK clients send none, and browsers send one on every
 *   cross-origin request and on every POST, PUT, PATCH and DELETE;
 * - its Origin is the service's own origin, so pages the Worker serves itself (the console) work: the origin of the
 *   request's URL, trusted when it came over HTTPS (a certificate proves the host name) or to a loopback host
 *   (`localhost`, `127.0.0.1`, `[::1]`, as under `wrangler dev`). Over plain HTTP to any other host name the Host
 *   header proves nothing: a rebinding page at http://evil.example sends Host and Origin evil.example to the
 *   service's address;
 * - its Origin is in the tenant's `allowed_origins` setting (default: none), asked of the tenant's object only for
 *   such requests.
 *
 * Anything else is 403 `forbidden` before the route does any work. Routes outside /v1 (health, the OpenAPI document,
 * the reference page) serve no tenant data and are not checked.
 */
import { normalizedOrigin } from "../tenancy/settings.ts";

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** Whether an Origin header names the service itself (see above). */
export function isOwnOrigin(origin: string, requestUrl: string): boolean {
  const own = new URL(requestUrl);
  if (normalizedOrigin(origin) !== own.origin) return false;
  return own.protocol === "https:" || LOOPBACK.has(own.hostname);
}

/** The Origin header a route must check against the tenant's allowed_origins, or null when none needs checking. */
export function foreignOrigin(request: Request): string | null {
  const origin = request.headers.get("origin");
  return origin === null || isOwnOrigin(origin, request.url) ? null : origin;
}
