#!/usr/bin/env node
// The package's `tool-search-upload` command. Plain JavaScript so that any Node can start it.
// - In a checkout (scripts/upload.ts is there), it runs the current source: on a Node that runs TypeScript (22.18+)
//   directly, on an older one (the machine's Node 20, say, after `npm link`) through the project's own Node 22, the
//   `node` devDependency.
// - Installed from the package, it runs the compiled CLI in dist/ (built by `npm pack`), on any Node 20+.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const path = (relative) => fileURLToPath(new URL(relative, import.meta.url));
const script = path("../scripts/upload.ts");
const projectNode = path("../node_modules/node/bin/node");

if (existsSync(script) && process.features.typescript) {
  await import(new URL("../scripts/upload.ts", import.meta.url).href);
} else if (existsSync(script) && existsSync(projectNode)) {
  const run = spawnSync(projectNode, [script, ...process.argv.slice(2)], { stdio: "inherit" });
  process.exit(run.status ?? 1);
} else if (existsSync(path("../dist/upload/cli.js"))) {
  const { main } = await import(new URL("../dist/upload/cli.js", import.meta.url).href);
  process.exitCode = await main(process.argv.slice(2));
} else {
  console.error(
    "tool-search-upload needs Node.js 22.18 or newer, or the project's own (npm install in " +
      `${path("..")}), or a build (npm run build).`,
  );
  process.exit(2);
}
