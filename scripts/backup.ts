/**
 * `npm run backup -- --tenant acme`: saves a tenant's backup (GET /v1/tenants/{tenant}/backup) to a file, with a
 * progress bar, then checks the file (header, counts, checksum) and prints a summary. Written to `<file>.partial`
 * and renamed only once checked, so a file of that name is always a whole backup.
 */
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { rename, rm, stat } from "node:fs/promises";
import { parseArgsWith, type CommandHelp } from "../src/cli/usage.ts";
import { createProgress } from "../src/upload/progress.ts";
import { BackupProblem, describeCounts, verifyBackupFile } from "./recovery/verify.ts";

const HELP: CommandHelp = {
  usage: ["npm run backup -- --tenant <id> [options]"],
  summary:
    "Saves the whole tenant (tools, servers, settings, synonyms, key records as hashes, learned terms) as an NDJSON " +
    "backup file, checked after writing. Restore it with npm run restore.",
  flags: {
    url: { text: "the service", default: "$TOOL_SEARCH_URL, else http://localhost:8787", value: "<url>" },
    tenant: { text: "the tenant to back up", default: "$TOOL_SEARCH_TENANT", value: "<id>" },
    token: {
      text: "an API key of the tenant with the admin scope, or the operator token",
      default: "$TOOL_SEARCH_KEY, else $ADMIN_TOKEN",
      value: "<token>",
    },
    out: { text: "the file to write", default: "<tenant>-r<revision>-<time taken>.ndjson here", value: "<file>" },
  },
  examples: [
    "npm run backup -- --tenant acme",
    "npm run backup -- --url https://tools.example.com --tenant acme --out acme.ndjson",
  ],
  notes:
    "Exit status: 0 when the backup was written and checked, 1 when the service refused or the file did not check " +
    "out (nothing is left under the file's name), 2 on a usage error.",
};

const { values } = parseArgsWith(HELP)({
  options: {
    url: { type: "string" },
    tenant: { type: "string" },
    token: { type: "string" },
    out: { type: "string" },
  },
});

function usage(message: string): never {
  process.stderr.write(`${message}\n(npm run backup -- --help for usage)\n`);
  process.exit(2);
}

const url = (values.url ?? process.env.TOOL_SEARCH_URL ?? "http://localhost:8787").replace(/\/+$/, "");
const tenant = values.tenant ?? process.env.TOOL_SEARCH_TENANT ?? usage("give the tenant: --tenant <id>");
const token =
  values.token ??
  process.env.TOOL_SEARCH_KEY ??
  process.env.ADMIN_TOKEN ??
  usage("give a token: --token (an admin key of the tenant, or the operator token)");

async function main(): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${url}/v1/tenants/${encodeURIComponent(tenant)}/backup`, {
    headers: { authorization: `Bearer ${token}` },
  });
  if (!res.ok || !res.body) {
    const text = await res.text();
    let message = text;
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? text;
    } catch {}
    process.stderr.write(`backup refused: ${res.status} ${message}\n`);
    return 1;
  }
  const total = Number(res.headers.get("x-backup-lines") ?? "0");
  const disposition = /filename="([^"]+)"/.exec(res.headers.get("content-disposition") ?? "")?.[1];
  const out = values.out ?? disposition ?? `${tenant}.ndjson`;
  const partial = `${out}.partial`;
  const file = createWriteStream(partial);
  const progress = createProgress("backup", process.stdout, "lines");
  progress.start(total);
  let lines = 0;
  try {
    for await (const chunk of res.body) {
      const bytes = chunk as Uint8Array;
      let n = 0;
      for (const b of bytes) if (b === 10) n += 1;
      lines += n;
      progress.advance(n);
      if (!file.write(bytes)) await once(file, "drain");
    }
    file.end();
    await once(file, "finish");
    progress.stop();
    const checked = await verifyBackupFile(partial);
    await rename(partial, out);
    const size = (await stat(out)).size;
    const { header } = checked;
    const seconds = (performance.now() - started) / 1000;
    process.stdout.write(
      `\nbacked up tenant ${header.tenant} at revision ${header.revision} (taken ${header.taken_at})\n` +
        `  ${describeCounts(header.counts)}\n` +
        `  ${out}: ${checked.lines} lines, ${(size / 1024).toFixed(1)} KB, ${header.checksum}, checked\n` +
        `  in ${seconds.toFixed(1)} s\n`,
    );
    return 0;
  } catch (e) {
    progress.stop();
    file.destroy();
    await rm(partial, { force: true });
    const why = e instanceof BackupProblem ? e.message : e instanceof Error ? e.message : String(e);
    process.stderr.write(`\nbackup failed after ${lines} lines: ${why}; nothing was written to ${out}\n`);
    return 1;
  }
}

process.exitCode = await main();
