/**
 * The tool row: the single declaration of a tool. Every list the service shows (search results,
 * the deferred list, always-loaded tools, session tool lists) is computed from these rows.
 */
import { z } from "zod";
import type { JsonObject } from "./json.ts";
import { canonicalJson, sha256Hex } from "./json.ts";

/** MCP's tool-name rule: 1-128 of A-Z a-z 0-9 _ - . */
export const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
/**
 * 1-64 of A-Z a-z 0-9 _ -: server names (no dots, so `server::name` always splits one way), and every name a model
 * sees (the strictest vendor's rule, OpenAI's; Anthropic and MCP accept it too), session tools' names included.
 */
export const SERVER_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export const ServerNameSchema = z
  .string()
  .regex(SERVER_NAME, "server names are 1-64 characters of A-Z a-z 0-9 _ -")
  .meta({ example: "github" });

export const DeferSchema = z
  .enum(["auto", "never"])
  .describe('"never": always in the model\'s tool list; "auto" (default): found through tool_search');
export type Defer = z.infer<typeof DeferSchema>;

/**
 * What a vendor's tool type says about how that vendor treats the tool, beyond what every format has (name,
 * description, schemas). Kept per vendor, as uploaded, and given back only in that vendor's formats: their values
 * differ between vendors (`allowed_callers`), and a `strict` one vendor accepts another may refuse for the same
 * schema. Fields that only concern one request (`cache_control`, `eager_input_streaming`) are not kept.
 */
export interface VendorFields {
  /** Anthropic Messages API `Tool`. */
  anthropic?: { strict?: boolean; input_examples?: JsonObject[]; allowed_callers?: AnthropicCaller[] };
  /** OpenAI: `strict` of Chat and Responses function tools; `allowed_callers` of Responses ones. */
  openai?: { strict?: boolean; allowed_callers?: OpenAICaller[] };
}

/** Who may call a tool, as the vendors' SDKs list them today (Anthropic `Tool`, OpenAI `FunctionTool`). */
export const ANTHROPIC_CALLERS = [
  "direct",
  "code_execution_20250825",
  "code_execution_20260120",
  "code_execution_20260521",
] as const;
export const OPENAI_CALLERS = ["direct", "programmatic"] as const;
type AnthropicCaller = (typeof ANTHROPIC_CALLERS)[number];
type OpenAICaller = (typeof OPENAI_CALLERS)[number];

export interface ToolRow {
  /** `server::name`, unique per tenant. */
  id: string;
  server: string;
  name: string;
  title: string | null;
  description: string;
  inputSchema: JsonObject;
  outputSchema: JsonObject | null;
  annotations: JsonObject | null;
  keywords: string[];
  /** The tool's own declaration; null inherits from its server and the tenant (see sessions/always-loaded). */
  defer: Defer | null;
  /** Vendor options that change what a vendor does with the tool, given back in that vendor's formats. */
  vendor: VendorFields | null;
  /** SHA-256 of the row's content: unchanged tools are neither rewritten nor re-indexed. */
  hash: string;
  /**
   * The name models call: `modelName()` of the tool, or, when another tool of the tenant already holds that name,
   * the same with a short suffix (`assignModelNames`). Assigned by the catalog when the tool is first written and
   * stored with the row, so it never changes while the tool exists.
   */
  modelName: string;
}

/** What a tool says about itself: the row less its id, its hash and the name the catalog assigns. */
export type ToolContent = Omit<ToolRow, "id" | "hash" | "modelName">;

export function toolId(server: string, name: string): string {
  return `${server}::${name}`;
}

/** Splits `server::name`; null when the id cannot be one. */
export function parseToolId(id: string): { server: string; name: string } | null {
  const at = id.indexOf("::");
  if (at < 0) return null;
  const server = id.slice(0, at);
  const name = id.slice(at + 2);
  return SERVER_NAME.test(server) && TOOL_NAME.test(name) ? { server, name } : null;
}

/** The SHA-256 of a tool's content, as stored in its row's `hash`. */
export async function contentHash(content: ToolContent): Promise<string> {
  // Without vendor fields the hash is what it was before they were kept: re-uploads stay "unchanged".
  const { vendor, ...rest } = content;
  return sha256Hex(canonicalJson(vendor === null ? rest : content));
}

/** A row for new content; its model name is the usual one until the catalog assigns the final one (on write). */
export async function toRow(content: ToolContent): Promise<ToolRow> {
  return {
    id: toolId(content.server, content.name),
    ...content,
    hash: await contentHash(content),
    modelName: modelName(content),
  };
}

// ---- model-facing names -------------------------------------------------------------------------

/** Model-facing names follow SERVER_NAME's rule: at most this long. */
const MODEL_NAME_MAX = 64;

/** FNV-1a, 32 bits, as 8 hex digits: a short stable suffix for names that must be shortened or told apart. */
function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, "0");
}

/**
 * The usual model-facing name: `server__name` with every character outside A-Z a-z 0-9 _ - replaced by `_`; names
 * longer than 64 characters keep their first 55 and end in `_` plus a hash of the tool id. Two tools may share it
 * (`a.b` and `a_b` on one server): `assignModelNames` then tells the later one apart.
 */
export function modelName(tool: Pick<ToolRow, "server" | "name">): string {
  const full = `${tool.server}__${tool.name}`.replace(/[^A-Za-z0-9_-]/g, "_");
  if (full.length <= MODEL_NAME_MAX) return full;
  return `${full.slice(0, MODEL_NAME_MAX - 9)}_${fnv1a(toolId(tool.server, tool.name))}`;
}

/** Hex digits of the suffix that tells apart a tool whose usual model-facing name is taken. */
const SUFFIX_DIGITS = 6;

/**
 * The names a tool whose usual name is taken tries, in order: the usual name cut to fit, `_`, and 6 hex digits of a
 * hash of its id (then of its id and the attempt, should that be taken too). They depend on the tool id alone.
 */
function suffixed(id: string, base: string, attempt: number): string {
  const digits = fnv1a(attempt === 0 ? id : `${id}#${attempt}`).slice(0, SUFFIX_DIGITS);
  return `${base.slice(0, MODEL_NAME_MAX - SUFFIX_DIGITS - 1)}_${digits}`;
}

/** Whether a tool's usual model-facing name is its own `server__name` unchanged (nothing replaced or cut). */
function isVerbatim(tool: Pick<ToolRow, "server" | "name">, base: string): boolean {
  return base === `${tool.server}__${tool.name}`;
}

/**
 * Model-facing names for tools new to the catalog. A tool gets its usual name (`modelName`) unless a tool that stays
 * in the catalog holds it, or a new tool of the same write that comes first does; then it gets the usual name plus
 * `_` and 6 hex digits of a hash of its id. Among the new tools of one write, the order does not depend on the
 * order of the upload: a tool whose name is already model-safe (`solve_quadratic_equation`) comes before one whose
 * characters had to be replaced (`solve.quadratic_equation`), then by tool id. Tools already in the catalog keep the
 * name stored with them, so a name never changes while its tool exists: not when another tool arrives, not on
 * re-upload, restart or snapshot restore.
 *
 * `taken(name)` says whether a tool that stays in the catalog holds a name. Returns the name per new tool id.
 */
export function assignModelNames(
  fresh: readonly Pick<ToolRow, "id" | "server" | "name">[],
  taken: (name: string) => boolean,
): Map<string, string> {
  const ordered = fresh
    .map((tool) => {
      const base = modelName(tool);
      return { tool, base, verbatim: isVerbatim(tool, base) };
    })
    .sort((a, b) =>
      a.verbatim !== b.verbatim ? (a.verbatim ? -1 : 1) : a.tool.id < b.tool.id ? -1 : a.tool.id > b.tool.id ? 1 : 0,
    );
  const used = new Set<string>();
  const free = (name: string) => !used.has(name) && !taken(name);
  const out = new Map<string, string>();
  for (const { tool, base } of ordered) {
    let name = base;
    for (let attempt = 0; !free(name); attempt++) name = suffixed(tool.id, base, attempt);
    used.add(name);
    out.set(tool.id, name);
  }
  return out;
}
