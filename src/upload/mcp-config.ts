/**
 * Uploading straight from MCP servers: reads the `mcpServers` configuration MCP clients use
 * (Copilot CLI, Claude Desktop), starts or connects to each server with the official SDK client,
 * and collects its tools from `tools/list`, following `nextCursor` page by page.
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { z } from "zod";
import { issueReasons } from "../catalog/batch.ts";
import { DeferSchema } from "../catalog/tool.ts";
import { serverNameFrom } from "./names.ts";
import { InputError } from "./sources.ts";

/**
 * One server entry. Keys other MCP clients add (`disabled`, `autoApprove`, `timeout`...) are
 * allowed and ignored, except `disabled: true`, which skips the server as its client would.
 */
const ServerEntrySchema = z
  .looseObject({
    type: z
      .enum(["stdio", "local", "http", "sse"])
      .optional()
      .describe('"local" is Copilot CLI\'s name for stdio; default: stdio with a command, http with a url'),
    command: z.string().min(1).optional(),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).default({}),
    cwd: z.string().optional(),
    url: z.url().optional(),
    headers: z.record(z.string(), z.string()).default({}),
    deferTools: DeferSchema.optional(),
    tools: z.array(z.string()).optional().describe('Allow-list of tool names; ["*"] or absent: every tool'),
    disabled: z.boolean().optional(),
  })
  .superRefine((entry, ctx) => {
    const kind = transportKind(entry);
    if (kind === "stdio" && !entry.command) ctx.addIssue({ code: "custom", message: "a stdio server needs a command" });
    if (kind !== "stdio" && !entry.url) ctx.addIssue({ code: "custom", message: `an ${kind} server needs a url` });
  });

type ServerEntry = z.infer<typeof ServerEntrySchema>;

const ConfigSchema = z.looseObject({ mcpServers: z.record(z.string(), ServerEntrySchema) });

function transportKind(entry: { type?: string | undefined; url?: string | undefined }): "stdio" | "http" | "sse" {
  if (entry.type === "http" || entry.type === "sse") return entry.type;
  if (entry.type === "stdio" || entry.type === "local") return "stdio";
  return entry.url ? "http" : "stdio";
}

export interface ConfiguredServer {
  /** The configuration key. */
  key: string;
  /** The key made a valid server name (see names.ts). */
  server: string;
  entry: ServerEntry;
  /** A relative `cwd` resolves from the configuration file's folder (without one, the server runs in ours). */
  baseDir: string;
}

/** The servers to upload, in the file's order; disabled ones are listed in `skipped`. */
export function readMcpConfig(file: string): { servers: ConfiguredServer[]; skipped: string[] } {
  let body: unknown;
  try {
    body = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new InputError(`${file}: cannot read it as JSON (${e instanceof Error ? e.message : e})`);
  }
  const parsed = ConfigSchema.safeParse(body);
  if (!parsed.success)
    throw new InputError(`${file}: not an MCP configuration: ${issueReasons(parsed.error.issues).join("; ")}`);
  const servers: ConfiguredServer[] = [];
  const skipped: string[] = [];
  const owners = new Map<string, string>();
  for (const [key, entry] of Object.entries(parsed.data.mcpServers)) {
    if (entry.disabled) {
      skipped.push(key);
      continue;
    }
    const server = serverNameFrom(key);
    if (!server)
      throw new InputError(`${file}: the server key '${key}' has no letters or digits to make a server name from`);
    const other = owners.get(server);
    if (other)
      throw new InputError(
        `${file}: the keys '${other}' and '${key}' both become the server name '${server}'; rename one`,
      );
    owners.set(server, key);
    servers.push({ key, server, entry, baseDir: dirname(resolve(file)) });
  }
  return { servers, skipped };
}

function transportFor(configured: ConfiguredServer, stderrTail: string[]): Transport {
  const { entry } = configured;
  const kind = transportKind(entry);
  if (kind === "stdio") {
    const transport = new StdioClientTransport({
      command: entry.command!,
      args: entry.args,
      env: entry.env,
      ...(entry.cwd ? { cwd: resolve(configured.baseDir, entry.cwd) } : {}),
      stderr: "pipe",
    });
    // The server's own log stays out of the upload's output; its last lines explain a failure.
    transport.stderr?.on("data", (chunk: Buffer) => {
      stderrTail.push(
        ...chunk
          .toString()
          .split("\n")
          .filter((l) => l.trim()),
      );
      stderrTail.splice(0, Math.max(0, stderrTail.length - 5));
    });
    return transport;
  }
  const requestInit = { headers: entry.headers };
  return kind === "http"
    ? new StreamableHTTPClientTransport(new URL(entry.url!), { requestInit })
    : new SSEClientTransport(new URL(entry.url!), { requestInit });
}

export interface ListedTools {
  tools: unknown[];
  pages: number;
  /** Names in the allow-list that the server does not have. */
  missing: string[];
}

/** Connects, lists every page of tools, keeps the allowed ones, disconnects. */
export async function listServerTools(configured: ConfiguredServer, clientVersion: string): Promise<ListedTools> {
  const stderrTail: string[] = [];
  const client = new Client({ name: "tool-search-upload", version: clientVersion });
  try {
    await client.connect(transportFor(configured, stderrTail));
    const tools: unknown[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.listTools(cursor ? { cursor } : {});
      tools.push(...page.tools);
      pages += 1;
      cursor = page.nextCursor || undefined;
    } while (cursor);
    const allow = configured.entry.tools;
    if (!allow || allow.includes("*")) return { tools, pages, missing: [] };
    const wanted = new Set(allow);
    const names = new Set(tools.map((t) => (t as { name: string }).name));
    return {
      tools: tools.filter((t) => wanted.has((t as { name: string }).name)),
      pages,
      missing: allow.filter((n) => !names.has(n)),
    };
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    const stdio = transportKind(configured.entry) === "stdio";
    const hint = stdio
      ? "; a stdio server sees only its `env` and a safe minimum of ours (PATH, HOME, ...): add " +
        "what it needs (tokens, proxy or CA settings) to `env`"
      : "";
    throw new Error(`${why}${stderrTail.length ? ` (server stderr: ${stderrTail.join(" | ")})` : ""}${hint}`);
  } finally {
    await client.close().catch(() => undefined);
  }
}
