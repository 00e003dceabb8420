/**
 * Builds the Worker's static assets (wrangler.toml `[assets]`, served by Cloudflare before the Worker runs) into
 * build/assets/: the console's and the API reference's scripts and styles (src/console/, bundled by esbuild, with uPlot
 * and the typed client). The HTML pages themselves are the Worker's (src/http/pages.ts), which sends them with their
 * Content-Security-Policy.
 *
 * wrangler runs this before `wrangler dev` and `wrangler deploy` (`[build]` in wrangler.toml). Several may run at once
 * (end-to-end tests start several workers): each file is written to a temporary name and renamed into place, and left
 * alone when its content is already there.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync, existsSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { build } from "esbuild";
import { parseArgsWith, type CommandHelp } from "../src/cli/usage.ts";

const HELP: CommandHelp = {
  summary: "Build the Worker's static assets (the console's and /docs' scripts and styles) into build/assets/.",
  usage: ["node scripts/build-assets.ts"],
  flags: {},
  examples: ["node scripts/build-assets.ts"],
  notes: "wrangler runs it before `wrangler dev` and `wrangler deploy` ([build] in wrangler.toml).",
};
parseArgsWith(HELP)({ options: {} });

const root = resolve(import.meta.dirname, "..");
const out = join(root, "build", "assets");

/** Writes one file unless it already holds these bytes; whether it wrote. */
function put(path: string, content: Uint8Array): boolean {
  const target = join(out, path);
  const bytes = Buffer.from(content);
  if (existsSync(target) && readFileSync(target).equals(bytes)) return false;
  mkdirSync(dirname(target), { recursive: true });
  const temporary = `${target}.${process.pid}.${createHash("sha1").update(bytes).digest("hex").slice(0, 8)}.tmp`;
  writeFileSync(temporary, bytes);
  renameSync(temporary, target);
  return true;
}

const bundled = await build({
  entryPoints: {
    // main.ts imports console.css: esbuild writes it beside the script, as console/console.css.
    "console/console": join(root, "src/console/main.ts"),
    "docs/docs": join(root, "src/console/docs.ts"),
  },
  bundle: true,
  format: "esm",
  target: "es2022",
  minify: true,
  sourcemap: "linked",
  legalComments: "linked",
  write: false,
  outdir: out,
  logLevel: "warning",
});
let written = 0;
for (const file of bundled.outputFiles) if (put(file.path.slice(out.length + 1), file.contents)) written++;
const sizes = bundled.outputFiles
  .filter((f) => !f.path.endsWith(".map"))
  .map((f) => `${relative(out, f.path)} ${(f.contents.length / 1024).toFixed(1)} KB`);
console.log(`build-assets: ${sizes.join(", ")} in build/assets/ (${written} files changed)`);
