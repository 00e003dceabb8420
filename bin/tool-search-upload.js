#!/usr/bin/env node
// The package's `tool-search-upload` command. Plain JavaScript so that any Node can start it: on a
// Node that runs TypeScript (22.18+), it loads scripts/upload.ts directly; on an older one (the
// machine's Node 20, say, after `npm link`), it hands over to the project's own Node 22, the `node`
// devDependency.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const script = new URL("../scripts/upload.ts", import.meta.url);
if (process.features.typescript) {
  await import(script.href);
} else {
  const node = fileURLToPath(new URL("../node_modules/node/bin/node", import.meta.url));
  const run = spawnSync(node, [fileURLToPath(script), ...process.argv.slice(2)], { stdio: "inherit" });
  if (run.error) {
    console.error(
      `tool-search-upload needs Node.js 22.18 or newer, or the project's own (npm install in ` +
        `${fileURLToPath(new URL("..", import.meta.url))}): ${run.error.message}`,
    );
    process.exit(2);
  }
  process.exit(run.status ?? 1);
}
