/**
 * `--help` on every script users run and on the package's bin: usage, every flag with its default, an example,
 * exit 0; an unknown flag prints the usage and exits 2 (src/cli/usage.ts). Each runs as a user runs it: the scripts
 * on the project's Node (npm scripts), the bin on whatever `node` is first on the PATH.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

const SCRIPTS: Record<string, { file: string; flags: string[] }> = {
  start: { file: "scripts/start.ts", flags: ["--port", "--ip", "--var", "--persist-to"] },
  upload: { file: "scripts/upload.ts", flags: ["--url", "--key", "--replace", "--dry-run", "--mcp-config"] },
  eval: { file: "scripts/eval.ts", flags: ["--data", "--threshold", "--sweep", "--http", "--json"] },
  bench: { file: "scripts/bench.ts", flags: ["--json", "--http", "--catalogs", "--queries"] },
  load: { file: "scripts/load.ts", flags: ["--concurrency", "--duration", "--tools", "--seed"] },
  soak: { file: "scripts/soak.ts", flags: ["--minutes", "--tools", "--users", "--every", "--seed"] },
  backup: { file: "scripts/backup.ts", flags: ["--url", "--tenant", "--token", "--out"] },
  restore: { file: "scripts/restore.ts", flags: ["--url", "--tenant", "--token", "--dry-run", "--rekey"] },
  "bin/tool-search-upload": { file: "bin/tool-search-upload.js", flags: ["--url", "--key", "--dry-run"] },
};

function run(file: string, args: string[]) {
  const r = spawnSync(process.execPath, ["--disable-warning=ExperimentalWarning", file, ...args], {
    cwd: root,
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, NO_COLOR: "1" },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("--help on every script and bin", () => {
  it.each(Object.entries(SCRIPTS))("%s --help prints usage, flags with defaults and examples; exit 0", (_n, s) => {
    const r = run(s.file, ["--help"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Usage:$/m);
    expect(r.stdout).toMatch(/^Options:$/m);
    expect(r.stdout).toMatch(/^Examples:\n {2}\S/m);
    expect(r.stdout).toContain("-h, --help");
    expect(r.stdout).not.toContain("(undocumented)");
    for (const flag of s.flags) expect(r.stdout).toMatch(new RegExp(`^ {2}${flag}\\b`, "m"));
    // Every flag's line says its default.
    const flagLines = r.stdout
      .split("Options:\n")[1]!
      .split("\n\n")[0]!
      .split(/\n(?= {2}-)/);
    for (const line of flagLines.filter((l) => !l.includes("--help"))) expect(line).toMatch(/\(default:\s+[^)]+\)/);
  });

  it.each(Object.entries(SCRIPTS))("%s with an unknown flag prints the usage and exits 2", (_n, s) => {
    const r = run(s.file, ["--no-such-flag"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("'--no-such-flag'");
    expect(r.stderr).toMatch(/^Usage:$/m);
    expect(r.stdout).toBe("");
  });
});
