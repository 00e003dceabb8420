/**
 * Reading tool files for upload: an MCP `tools/list` result (`{tools, nextCursor?}`, bare or
 * inside a JSON-RPC response), a PUT body (`{tools, defer_tools?}`), a JSON array of tools in any
 * accepted format, or NDJSON (one tool per line: `.ndjson`, `.jsonl`). A folder is read one file
 * per server, not recursively.
 */
import { readdirSync, readFileSync, type Stats, statSync } from "node:fs";
import { basename, extname, join } from "node:path";
import type { Defer } from "../catalog/tool.ts";

/** One tool as read, with where it came from (for messages). */
export interface Item {
  raw: unknown;
  /** `github.json tools[3]`, `all.ndjson line 12`. */
  where: string;
}

/** One file's tools. */
export interface Source {
  file: string;
  /** The file name without its extension: the server name unless the tools or --server say otherwise. */
  stem: string;
  items: Item[];
  deferTools?: Defer;
  /** Things worth knowing that do not stop the upload. */
  notes: string[];
}

export class InputError extends Error {}

const JSON_EXTENSIONS = new Set([".json"]);
const NDJSON_EXTENSIONS = new Set([".ndjson", ".jsonl"]);

/** The files to read: each path itself, or a folder's JSON and NDJSON files (sorted, not recursive). */
export function inputFiles(paths: string[]): { files: string[]; skipped: string[] } {
  const files: string[] = [];
  const skipped: string[] = [];
  for (const path of paths) {
    let stat: Stats;
    try {
      stat = statSync(path);
    } catch {
      throw new InputError(`${path}: no such file or folder`);
    }
    if (!stat.isDirectory()) {
      files.push(path);
      continue;
    }
    const entries = readdirSync(path, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      const ext = extname(entry.name).toLowerCase();
      if (entry.isFile() && !entry.name.startsWith(".") && (JSON_EXTENSIONS.has(ext) || NDJSON_EXTENSIONS.has(ext)))
        files.push(join(path, entry.name));
      else if (!entry.name.startsWith(".")) skipped.push(join(path, entry.name));
    }
  }
  return { files, skipped };
}

export function readSource(file: string): Source {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new InputError(`${file}: cannot read (${e instanceof Error ? e.message : e})`);
  }
  const name = basename(file);
  const ext = extname(name);
  const source: Source = { file, stem: basename(name, ext), items: [], notes: [] };
  if (NDJSON_EXTENSIONS.has(ext.toLowerCase())) {
    text.split("\n").forEach((line, i) => {
      if (line.trim() === "") return;
      try {
        source.items.push({ raw: JSON.parse(line), where: `${name} line ${i + 1}` });
      } catch {
        throw new InputError(`${file}: line ${i + 1} is not JSON (NDJSON files hold one tool object per line)`);
      }
    });
    return source;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (e) {
    throw new InputError(`${file}: not valid JSON (${e instanceof Error ? e.message : e})`);
  }
  let list: ToolList | null;
  try {
    list = toolList(body);
  } catch (e) {
    throw new InputError(`${file}: ${e instanceof Error ? e.message : e}`);
  }
  if (!list) {
    throw new InputError(
      `${file}: expected a tools/list result {"tools": [...]}, a JSON-RPC response carrying one, or an array of tools`,
    );
  }
  source.items = list.tools.map((raw, i) => ({ raw, where: `${name} tools[${i}]` }));
  if (list.deferTools) source.deferTools = list.deferTools;
  if (list.nextCursor) {
    source.notes.push(
      `${name} is one page of a paginated tools/list (nextCursor is set): tools on later pages ` +
        `are not in it. Save every page, or upload with --mcp-config.`,
    );
  }
  return source;
}

interface ToolList {
  tools: unknown[];
  nextCursor?: string;
  deferTools?: Defer;
}

function toolList(body: unknown): ToolList | null {
  if (Array.isArray(body)) return { tools: body };
  if (typeof body !== "object" || body === null) return null;
  const obj = body as { tools?: unknown; nextCursor?: unknown; defer_tools?: unknown; result?: unknown };
  if (!Array.isArray(obj.tools)) return "result" in obj ? toolList(obj.result) : null;
  const list: ToolList = { tools: obj.tools };
  if (typeof obj.nextCursor === "string" && obj.nextCursor) list.nextCursor = obj.nextCursor;
  if (obj.defer_tools === "auto" || obj.defer_tools === "never") list.deferTools = obj.defer_tools;
  else if (obj.defer_tools !== undefined) throw new InputError(`defer_tools must be "auto" or "never"`);
  return list;
}
