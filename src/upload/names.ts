/**
 * Server names from file names and MCP configuration keys. The service's rule is 1-64 characters
 * of A-Z a-z 0-9 _ - (catalog/tool.ts); anything else is made to fit the same way every time, so a
 * second upload of the same file or config lands on the same server.
 */
import { SERVER_NAME } from "../catalog/tool.ts";

/**
 * Each run of characters outside A-Z a-z 0-9 _ - becomes one `-`, leading and trailing `-` go,
 * and the result is cut to 64 characters: `my.server` -> `my-server`, `@acme/github mcp` ->
 * `acme-github-mcp`. Null when nothing usable is left.
 */
export function serverNameFrom(raw: string): string | null {
  const name = raw
    .replace(/[^A-Za-z0-9_-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 64)
    .replace(/-+$/, "");
  return SERVER_NAME.test(name) ? name : null;
}
