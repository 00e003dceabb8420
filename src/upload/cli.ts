/**
 * `npm run upload` / `tool-search-upload`: bulk upload of tool catalogs from files, folders or the
 * MCP servers of an MCP client configuration. See HELP below (also docs/upload.md).
 */
import { readFileSync } from "node:fs";
import { readCommandLine, type CommandHelp } from "../cli/usage.ts";
import { ToolSearchClient } from "../client/index.ts";
import { SERVER_NAME } from "../catalog/tool.ts";
import { DEFAULT_LIMITS } from "../config/limits.ts";
import { parseKey } from "../tenancy/keys.ts";
import { listServerTools, readMcpConfig } from "./mcp-config.ts";
import { planUploads, groupByServer, type ServerUpload } from "./plan.ts";
import { createProgress } from "./progress.ts";
import { formatSummary } from "./report.ts";
import { emptyOutcome, sendUploads, type ServerOutcome } from "./send.ts";
import { InputError, inputFiles, readSource } from "./sources.ts";

const EXIT = { ok: 0, problems: 1, usage: 2 } as const;

const DEFAULTS = { url: "http://localhost:8787", concurrency: 4, batchSize: 1000, retries: 5 };

const HELP: CommandHelp = {
  summary: "Upload tool catalogs to tool-search.",
  usage: [
    "npm run upload -- [options] <file|folder>...",
    "npm run upload -- [options] --mcp-config <file>",
    "(or: npx tool-search-upload ...)",
  ],
  flags: {
    url: { text: "the service", default: `$TOOL_SEARCH_URL, else ${DEFAULTS.url}`, value: "<url>" },
    key: { text: "an API key with the write scope", default: "$TOOL_SEARCH_KEY", value: "<key>" },
    tenant: {
      text: "the tenant (needed with the operator token)",
      default: "$TOOL_SEARCH_TENANT, else the key's own tenant",
      value: "<id>",
    },
    server: { text: "upload every tool of the input to this server", value: "<name>" },
    "mcp-config": {
      text: "read an MCP client configuration and replace each of its servers' sets (see below)",
      value: "<file>",
    },
    replace:
      "replace each server's whole set (PUT .../servers/{server}/tools): tools the server holds that are not in " +
      "the input are removed; each server goes in one request, so a server larger than one request is refused " +
      "(--mcp-config always replaces)",
    "dry-run": "validate everything locally with the service's own schemas; send nothing",
    concurrency: { text: "requests (and MCP servers) at a time", default: String(DEFAULTS.concurrency), value: "<n>" },
    "batch-size": {
      text: `tools per request, at most ${DEFAULT_LIMITS.max_tools_per_batch}`,
      default: String(DEFAULTS.batchSize),
      value: "<n>",
    },
    "max-body-bytes": {
      text: "bytes per request",
      default: `${DEFAULT_LIMITS.max_body_bytes}, the service's default limit`,
      value: "<n>",
    },
    retries: {
      text: "retries of a request answered 429 or 5xx, or not answered; waits what Retry-After asks, else backs off",
      default: String(DEFAULTS.retries),
      value: "<n>",
    },
  },
  notes: `Input:
  <file>       an MCP tools/list result {"tools": [...], "nextCursor"?} (bare or inside a JSON-RPC
               response), a PUT body {"tools": [...], "defer_tools"?}, a JSON array of tools in any
               accepted format (MCP, Anthropic, OpenAI Chat, OpenAI Responses, Responses namespaces),
               or NDJSON (one tool per line; .ndjson or .jsonl)
  <folder>     its .json, .ndjson and .jsonl files (not sub-folders), one server per file
  A tool's server: --server if given, else the tool's own "server" field (a namespace's name), else
  the file's name (characters outside A-Z a-z 0-9 _ - become "-": my.server.json -> my-server).

  --mcp-config reads {"mcpServers": {...}} (the Copilot CLI and Claude Desktop shape), starts or
  connects to each server (type stdio|local|http|sse, command, args, env, cwd, url, headers), lists
  its tools (following pagination), keeps those in its "tools" allow-list ("*" = all) and replaces
  the server's set with them, carrying "deferTools" over. Server names come from the configuration
  keys, made to fit like file names. Entries with "disabled": true are skipped.

Every server's tools are validated before anything is sent; a server with an invalid tool is
rejected whole (nothing of it is sent) and its reasons are printed. A second run of the same
input reports every tool unchanged.

Exit codes:
  0  everything uploaded (or, with --dry-run, valid)
  1  some tools were rejected or could not be delivered, or an MCP server could not be listed
  2  wrong usage or unreadable input: nothing was sent`,
  examples: [
    "npm run upload -- demo/catalog",
    "npm run upload -- --replace --server notes notes.ndjson",
    "npm run upload -- --dry-run exports/",
    "npx tool-search-upload --mcp-config ~/.copilot/mcp-config.json",
  ],
};

class UsageError extends Error {}

function positiveInt(name: string, value: string | undefined, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > max)
    throw new UsageError(`--${name} must be a whole number from 1 to ${max}`);
  return n;
}

interface Options {
  paths: string[];
  mcpConfig?: string;
  url: string;
  key?: string;
  tenant?: string;
  server?: string;
  replace: boolean;
  dryRun: boolean;
  concurrency: number;
  batchSize: number;
  maxBodyBytes: number;
  retries: number;
}

/** The command line as node:util's parseArgs reads it, with --help and usage errors (src/cli/usage.ts). */
function readArgv(argv: string[]) {
  return readCommandLine(
    {
      args: argv,
      allowPositionals: true,
      options: {
        url: { type: "string" },
        key: { type: "string" },
        tenant: { type: "string" },
        server: { type: "string" },
        replace: { type: "boolean", default: false },
        "dry-run": { type: "boolean", default: false },
        concurrency: { type: "string" },
        "batch-size": { type: "string" },
        "max-body-bytes": { type: "string" },
        retries: { type: "string" },
        "mcp-config": { type: "string" },
      },
    },
    HELP,
  );
}

type Parsed = Extract<ReturnType<typeof readArgv>, { kind: "run" }>["parsed"];

function parseOptions(parsed: Parsed, env: NodeJS.ProcessEnv): Options {
  const v = parsed.values;
  const paths = parsed.positionals;
  const mcpConfig = v["mcp-config"];
  if (!mcpConfig && paths.length === 0) throw new UsageError("give a file or folder to upload, or --mcp-config <file>");
  if (mcpConfig && paths.length > 0) throw new UsageError("give either files and folders or --mcp-config, not both");
  if (mcpConfig && v.server)
    throw new UsageError("--server does not apply to --mcp-config: server names come from the configuration's keys");
  if (v.server && !SERVER_NAME.test(v.server))
    throw new UsageError("--server: server names are 1-64 characters of A-Z a-z 0-9 _ -");
  const retries = v.retries === undefined ? DEFAULTS.retries : Number(v.retries);
  if (!Number.isInteger(retries) || retries < 0 || retries > 20)
    throw new UsageError("--retries must be a whole number from 0 to 20");
  const key = v.key ?? env.TOOL_SEARCH_KEY;
  const tenant = v.tenant ?? env.TOOL_SEARCH_TENANT ?? (key ? parseKey(key)?.tenant : undefined);
  const dryRun = v["dry-run"];
  if (!dryRun && !key)
    throw new UsageError("give an API key with the write scope: --key or TOOL_SEARCH_KEY (or use --dry-run)");
  if (!dryRun && !tenant)
    throw new UsageError("give the tenant: --tenant or TOOL_SEARCH_TENANT (a tenant key names its own tenant)");
  return {
    paths,
    ...(mcpConfig ? { mcpConfig } : {}),
    url: v.url ?? env.TOOL_SEARCH_URL ?? DEFAULTS.url,
    ...(key ? { key } : {}),
    ...(tenant ? { tenant } : {}),
    ...(v.server ? { server: v.server } : {}),
    replace: v.replace || Boolean(mcpConfig),
    dryRun,
    concurrency: positiveInt("concurrency", v.concurrency, DEFAULTS.concurrency, 64),
    batchSize: positiveInt("batch-size", v["batch-size"], DEFAULTS.batchSize, DEFAULT_LIMITS.max_tools_per_batch),
    maxBodyBytes: positiveInt("max-body-bytes", v["max-body-bytes"], DEFAULT_LIMITS.max_body_bytes),
    retries,
  };
}

function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string })
    .version;
}

/** Groups from files and folders. */
function fromFiles(options: Options, note: (line: string) => void): ServerUpload[] {
  const { files, skipped } = inputFiles(options.paths);
  if (files.length === 0) throw new InputError(`no .json, .ndjson or .jsonl files in ${options.paths.join(", ")}`);
  for (const path of skipped) note(`skipped ${path} (not .json, .ndjson or .jsonl)`);
  const sources = files.map(readSource);
  for (const source of sources) {
    for (const line of source.notes) note(`note: ${line}`);
    if (source.deferTools && !options.replace)
      note(`note: ${source.file} sets defer_tools, which only a replacement carries (--replace); ignored`);
  }
  return groupByServer(sources, options.server);
}

/** Groups from the servers of an MCP configuration; a server that cannot be listed is a failed outcome. */
async function fromMcpConfig(
  file: string,
  options: Options,
  note: (line: string) => void,
): Promise<{ uploads: ServerUpload[]; unreachable: ServerOutcome[] }> {
  const { servers, skipped } = readMcpConfig(file);
  for (const key of skipped) note(`skipped '${key}' (disabled)`);
  const version = packageVersion();
  const uploads: ServerUpload[] = [];
  const unreachable: ServerOutcome[] = [];
  let next = 0;
  const worker = async () => {
    while (next < servers.length) {
      const configured = servers[next++]!;
      try {
        const listed = await listServerTools(configured, version);
        const pages = `${listed.pages} page${listed.pages === 1 ? "" : "s"}`;
        const renamed = configured.server !== configured.key ? ` -> server '${configured.server}'` : "";
        note(`${configured.key}: ${listed.tools.length} tools listed (${pages})${renamed}`);
        if (listed.missing.length)
          note(`note: '${configured.key}' allows tools it does not have: ${listed.missing.join(", ")}`);
        uploads.push({
          server: configured.server,
          tools: listed.tools.length,
          items: listed.tools.map((raw, i) => ({ raw, where: `${configured.key} tools[${i}]` })),
          ...(configured.entry.deferTools ? { deferTools: configured.entry.deferTools } : {}),
          batches: [],
          rejected: [],
        });
      } catch (e) {
        const outcome = emptyOutcome({ server: configured.server, tools: 0, items: [], batches: [], rejected: [] });
        outcome.failed.push(
          `cannot list the tools of '${configured.key}': ${e instanceof Error ? e.message : String(e)}`,
        );
        unreachable.push(outcome);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, servers.length) }, worker));
  const order = new Map(servers.map((s, i) => [s.server, i]));
  uploads.sort((a, b) => order.get(a.server)! - order.get(b.server)!);
  return { uploads, unreachable };
}

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const line = readArgv(argv);
  if (line.kind === "help") {
    process.stdout.write(line.text);
    return EXIT.ok;
  }
  if (line.kind === "usage-error") {
    process.stderr.write(`upload: ${line.text}`);
    return EXIT.usage;
  }
  let options: Options;
  try {
    options = parseOptions(line.parsed, env);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`upload: ${e.message}\nRun with --help for usage.\n`);
    return EXIT.usage;
  }
  const progress = createProgress("uploading");
  try {
    const read = options.mcpConfig
      ? await fromMcpConfig(options.mcpConfig, options, progress.note)
      : { uploads: fromFiles(options, progress.note), unreachable: [] };
    const uploads = await planUploads(read.uploads, { ...options, limits: DEFAULT_LIMITS });
    let outcomes: ServerOutcome[];
    if (options.dryRun) {
      outcomes = uploads.map(emptyOutcome);
    } else {
      const client = new ToolSearchClient({
        url: options.url,
        token: options.key!,
        retry: { retries: options.retries },
        onRetry: (e) =>
          progress.note(
            `retrying ${e.method} ${e.path} in ${(e.delayMs / 1000).toFixed(1)} s (${e.reason}; ` +
              `retry ${e.attempt} of ${options.retries})`,
          ),
      });
      process.stdout.write(
        `Uploading to ${options.url}, tenant ` +
          `'${options.tenant}'${options.replace ? ", replacing each server's set" : ""}\n`,
      );
      progress.start(uploads.reduce((n, u) => n + u.batches.reduce((m, b) => m + b.items.length, 0), 0));
      outcomes = await sendUploads(uploads, client.tenant(options.tenant!), {
        replace: options.replace,
        concurrency: options.concurrency,
        onSettled: progress.advance,
      });
      progress.stop();
    }
    outcomes.push(...read.unreachable);
    process.stdout.write(`${formatSummary(outcomes, options.dryRun)}\n`);
    return outcomes.some((o) => o.rejected.length || o.failed.length) ? EXIT.problems : EXIT.ok;
  } catch (e) {
    progress.stop();
    if (!(e instanceof InputError)) throw e;
    process.stderr.write(`upload: ${e.message}\n`);
    return EXIT.usage;
  }
}
