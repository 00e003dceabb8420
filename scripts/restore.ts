/**
 * `npm run restore -- acme.ndjson --tenant acme-copy`: checks a backup file (header, counts, checksum), then streams
 * it to POST /v1/tenants/{tenant}/restore with a progress bar and prints what was restored. `--rekey <key>` prints a
 * key of the backed-up tenant as it is spelled for the tenant restored into (the same key id and secret).
 */
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { parseArgsWith, type CommandHelp } from "../src/cli/usage.ts";
import { rekey } from "../src/tenancy/keys.ts";
import { createProgress } from "../src/upload/progress.ts";
import { BackupProblem, describeCounts, verifyBackupFile } from "./recovery/verify.ts";

const HELP: CommandHelp = {
  usage: ["npm run restore -- <backup file> [options]", "npm run restore -- --rekey <key> --tenant <id>"],
  summary:
    "Loads a backup (from npm run backup or GET .../backup) into a tenant that does not exist yet or is empty, all " +
    "or nothing. The file is checked before anything is sent.",
  flags: {
    url: { text: "the service", default: "$TOOL_SEARCH_URL, else http://localhost:8787", value: "<url>" },
    tenant: { text: "the tenant to restore into", default: "the backup's own tenant", value: "<id>" },
    token: { text: "the operator token", default: "$ADMIN_TOKEN", value: "<token>" },
    "dry-run": "check the file and say what would be restored; send nothing",
    rekey: {
      text: "print this key of the backed-up tenant as spelled for --tenant, and exit (sends nothing)",
      value: "<key>",
    },
  },
  examples: [
    "npm run restore -- acme-r12.ndjson",
    "npm run restore -- acme-r12.ndjson --tenant acme-copy --url https://tools.example.com",
    "npm run restore -- --rekey tsk_acme_k3x9q2mzt7ab_<secret> --tenant acme-copy",
  ],
  notes:
    "Keys: a key names its tenant (tsk_<tenant>_<key id>_<secret>). Restored under its own id, a tenant's keys work " +
    "unchanged; under another id the same key id and secret work as tsk_<new tenant>_<key id>_<secret> (--rekey).\n" +
    "Exit status: 0 when restored (or checked, with --dry-run), 1 when the file did not check out or the service " +
    "refused (nothing was restored), 2 on a usage error.",
};

const { values, positionals } = parseArgsWith(HELP)({
  allowPositionals: true,
  options: {
    url: { type: "string" },
    tenant: { type: "string" },
    token: { type: "string" },
    "dry-run": { type: "boolean", default: false },
    rekey: { type: "string" },
  },
});

function usage(message: string): never {
  process.stderr.write(`${message}\n(npm run restore -- --help for usage)\n`);
  process.exit(2);
}

const url = (values.url ?? process.env.TOOL_SEARCH_URL ?? "http://localhost:8787").replace(/\/+$/, "");

async function main(): Promise<number> {
  if (values.rekey !== undefined) {
    if (!values.tenant) usage("--rekey needs --tenant: the tenant the backup was restored into");
    const key = rekey(values.rekey, values.tenant);
    if (!key) usage("--rekey takes a tenant API key (tsk_...) and --tenant a tenant id");
    process.stdout.write(`${key}\n`);
    return 0;
  }
  if (positionals.length !== 1) usage("give one backup file");
  const file = positionals[0]!;
  const size = (await stat(file).catch(() => usage(`no file ${file}`))).size;
  const started = performance.now();
  const kb = (n: number) => Math.ceil(n / 1024);

  const checking = createProgress("checking ", process.stdout, "KB");
  checking.start(kb(size));
  let checked: Awaited<ReturnType<typeof verifyBackupFile>>;
  let seen = 0;
  try {
    checked = await verifyBackupFile(file, (bytes) => {
      checking.advance(kb(bytes) - seen);
      seen = kb(bytes);
    });
  } catch (e) {
    checking.stop();
    if (!(e instanceof BackupProblem)) throw e;
    process.stderr.write(`\n${file} is not a whole backup: ${e.message}. Nothing was sent.\n`);
    return 1;
  }
  checking.stop();
  const { header } = checked;
  const tenant = values.tenant ?? header.tenant;
  const what = `${describeCounts(header.counts)} of tenant ${header.tenant} at revision ${header.revision}`;
  if (values["dry-run"]) {
    process.stdout.write(`\n${file} checks out: ${what} (taken ${header.taken_at}); would restore into ${tenant}\n`);
    return 0;
  }
  const token = values.token ?? process.env.ADMIN_TOKEN ?? usage("give the operator token: --token or ADMIN_TOKEN");

  const sending = createProgress("restoring", process.stdout, "KB");
  sending.start(kb(size));
  let sent = 0;
  const chunks = createReadStream(file)[Symbol.asyncIterator]();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = (await chunks.next()) as IteratorResult<Buffer>;
      if (done) {
        controller.close();
        return;
      }
      const before = kb(sent);
      sent += value.byteLength;
      sending.advance(kb(sent) - before);
      controller.enqueue(value);
    },
  });
  let res: Response;
  try {
    res = await fetch(`${url}/v1/tenants/${encodeURIComponent(tenant)}/restore`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/x-ndjson" },
      body,
      duplex: "half",
    } as RequestInit);
  } catch (e) {
    sending.stop();
    process.stderr.write(`\nthe service could not be reached at ${url}: ${e instanceof Error ? e.message : e}\n`);
    return 1;
  }
  sending.stop();
  const reply = (await res.json().catch(() => ({}))) as {
    error?: string;
    message?: string;
    tenant?: string;
    created?: boolean;
    revision?: number;
    restored?: { tools: number; servers: number; keys: number; learned: number };
    keys?: string;
  };
  if (!res.ok) {
    process.stderr.write(`\nrestore refused: ${res.status} ${reply.error ?? ""}: ${reply.message ?? ""}\n`);
    return 1;
  }
  const seconds = (performance.now() - started) / 1000;
  const r = reply.restored!;
  process.stdout.write(
    `\nrestored ${what} (taken ${header.taken_at})\n` +
      `  into tenant ${reply.tenant} (${reply.created ? "created" : "was empty"}), ` +
      `now at revision ${reply.revision}\n` +
      `  ${r.tools} tools, ${r.servers} servers, ${r.keys} keys, ${r.learned} tools with learned terms\n` +
      `  keys: ${reply.keys}\n` +
      `  ${(checked.bytes / 1024).toFixed(1)} KB in ${seconds.toFixed(1)} s\n`,
  );
  return 0;
}

process.exitCode = await main();
