/**
 * The demo catalog (demo/catalog: one MCP tools/list file per server) and how it is uploaded: by
 * `npm start` for the demo tenant, and by the tests that run the examples against a fresh worker.
 */
import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TenantClient, ToolInput } from "../src/client/index.ts";

export const DEMO_TENANT = "demo";
const DEMO_CATALOG = fileURLToPath(new URL("../demo/catalog", import.meta.url));
/** Servers whose tools are always loaded in the demo (deferTools: "never"). */
const ALWAYS_LOADED_SERVERS = new Set(["filesystem"]);

/** Replaces each demo server's tools with its file's; returns how many tools and servers. */
export async function uploadDemoCatalog(tenant: TenantClient): Promise<{ tools: number; servers: number }> {
  let tools = 0;
  const files = readdirSync(DEMO_CATALOG)
    .filter((f) => f.endsWith(".json"))
    .sort();
  for (const file of files) {
    const server = basename(file, ".json");
    const list = JSON.parse(readFileSync(join(DEMO_CATALOG, file), "utf8")) as { tools: ToolInput[] };
    await tenant.servers.replaceTools(server, {
      tools: list.tools,
      defer_tools: ALWAYS_LOADED_SERVERS.has(server) ? "never" : "auto",
    });
    tools += list.tools.length;
  }
  return { tools, servers: files.length };
}
