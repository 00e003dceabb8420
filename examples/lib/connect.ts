/**
 * Where the examples find the service: TOOL_SEARCH_URL (default http://localhost:8787, what
 * `npm start` serves), TOOL_SEARCH_KEY (default: the demo key `npm start` saved in
 * .wrangler/demo-key) and TOOL_SEARCH_TENANT (default demo).
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export interface ExampleTarget {
  url: string;
  key: string;
  tenant: string;
}

const DEMO_KEY_FILE = fileURLToPath(new URL("../../.wrangler/demo-key", import.meta.url));

export function targetFromEnv(): ExampleTarget {
  const key =
    process.env.TOOL_SEARCH_KEY ?? (existsSync(DEMO_KEY_FILE) ? readFileSync(DEMO_KEY_FILE, "utf8").trim() : undefined);
  if (!key)
    throw new Error(
      "No API key: run `npm start` first (it saves the demo key in .wrangler/demo-key), or set TOOL_SEARCH_KEY.",
    );
  return {
    url: process.env.TOOL_SEARCH_URL ?? "http://localhost:8787",
    key,
    tenant: process.env.TOOL_SEARCH_TENANT ?? "demo",
  };
}

/** Whether this module is the script Node was started with (so an example runs when executed, not when imported). */
export function isMain(moduleUrl: string): boolean {
  return process.argv[1] !== undefined && fileURLToPath(moduleUrl) === process.argv[1];
}
