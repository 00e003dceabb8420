/**
 * The backup format (issue 14): NDJSON, one JSON object per line, `type` first.
 *
 *   {"type":"header","format":"tool-search-backup","version":1,"tenant":"acme","revision":12,...,"checksum":"sha256:…"}
 *   {"type":"settings","settings":{…}}
 *   {"type":"synonyms","synonyms":{…}}
 *   {"type":"key","id":"k3x9q2mzt7ab","hash":"<sha-256 of the secret, hex>","scopes":["search"],…}   (one per key)
 *   {"type":"learned","tool_id":"github::list_issues","day":20400,"credits":3,…,"terms":[…]}     (one per tool)
 *   {"type":"server","name":"github","defer_tools":"auto"}                                       (one per server)
 *   {"type":"tool","id":"github::list_issues","server":"github",…,"inputSchema":{…},"hash":"…"}    (one per tool)
 *
 * The header's `checksum` is the SHA-256 of every line after it, each with its "\n"; its `counts` say how many
 * lines of each type follow. A stream that is cut short, has a line changed, added or lost, or lines of a type
 * other than its counts say, is refused whole. Keys travel as their hashes, never as secrets.
 *
 * Shared by the Worker (GET .../backup, POST .../restore) and the CLI (npm run backup / restore), which checks a
 * file the same way before sending it.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { boundedObjects } from "../catalog/json.ts";
import { schemasFor } from "../catalog/batch.ts";
import {
  ANTHROPIC_CALLERS,
  contentHash,
  DeferSchema,
  OPENAI_CALLERS,
  SERVER_NAME,
  ServerNameSchema,
  TOOL_NAME,
  toolId,
  type ToolContent,
  type VendorFields,
} from "../catalog/tool.ts";
import { limitNote, type Limits } from "../config/limits.ts";
import { TOOL_TERMS } from "../search/learning.ts";
import { ScopeSchema, TENANT_ID } from "../tenancy/keys.ts";
import { SettingsSchema, type Settings } from "../tenancy/settings.ts";
import { synonymsSchema, type SynonymMap } from "../tenancy/synonyms.ts";

export const BACKUP_FORMAT = "tool-search-backup";
export const BACKUP_VERSION = 1;

const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

const BackupHeaderSchema = z
  .strictObject({
    type: z.literal("header"),
    format: z.literal(BACKUP_FORMAT),
    version: z.literal(BACKUP_VERSION),
    tenant: z.string().regex(TENANT_ID).describe("The tenant the backup was taken of"),
    revision: count.describe("Its catalog revision"),
    taken_at: z.iso.datetime().describe("When the backup was taken (ISO 8601)"),
    counts: z
      .strictObject({
        lines: count.describe("Lines after the header"),
        settings: z.literal(1),
        synonyms: z.literal(1),
        keys: count,
        learned: count.describe("Tools that learned something from use (one line each)"),
        servers: count,
        tools: count,
      })
      .describe("How many lines of each type follow"),
    checksum: z
      .string()
      .regex(/^sha256:[0-9a-f]{64}$/)
      .describe('"sha256:" and the hex SHA-256 of every line after the header, each with its newline'),
  })
  .meta({ id: "BackupHeader" });
export type BackupHeader = z.infer<typeof BackupHeaderSchema>;
export type BackupCounts = BackupHeader["counts"];

/** A JSON object as stored (a tool's schema): any object here; the tool's own checks bound it. */
const jsonObject = z.record(z.string(), z.unknown());
const HASH = /^[0-9a-f]{64}$/;

const ToolLineSchema = z.strictObject({
  type: z.literal("tool"),
  id: z.string().max(200),
  server: z.string().regex(SERVER_NAME),
  name: z.string().regex(TOOL_NAME),
  model_name: z.string().regex(SERVER_NAME, "model-facing names are 1-64 characters of A-Z a-z 0-9 _ -"),
  title: z.string().nullable(),
  description: z.string(),
  inputSchema: jsonObject,
  outputSchema: jsonObject.nullable(),
  annotations: jsonObject.nullable(),
  keywords: z.array(z.string()),
  defer: DeferSchema.nullable(),
  vendor: jsonObject.nullable(),
  hash: z.string().regex(HASH),
  revision: count.describe("The revision that wrote the tool as it is"),
});
type ToolLine = z.infer<typeof ToolLineSchema>;

function keyLineSchema(limits: Limits) {
  return z.strictObject({
    type: z.literal("key"),
    id: z.string().regex(/^[a-z0-9]{12}$/),
    hash: z.string().regex(HASH),
    scopes: z.array(ScopeSchema).min(1).max(3),
    label: z
      .string()
      .max(
        limits.max_label_chars,
        `labels are at most ${limits.max_label_chars} ${limitNote("max_label_chars", limits)}`,
      )
      .nullable(),
    created_at: count,
    revoked_at: count.nullable(),
  });
}
type KeyLine = z.infer<ReturnType<typeof keyLineSchema>>;

const LearnedLineSchema = z.strictObject({
  type: z.literal("learned"),
  tool_id: z.string().max(200),
  day: count.describe("The day (since 1970-01-01 UTC) the weights are as of: the tool's last credit"),
  credits: z.number().int().min(1),
  credited_at: count,
  terms: z
    .array(z.strictObject({ term: z.string().min(1).max(200), weight: z.number().positive().max(1e9) }))
    .min(1)
    .max(TOOL_TERMS)
    .refine((terms) => new Set(terms.map((t) => t.term)).size === terms.length, "a term is listed twice"),
});
type LearnedLine = z.infer<typeof LearnedLineSchema>;

const ServerLineSchema = z.strictObject({
  type: z.literal("server"),
  name: ServerNameSchema,
  defer_tools: DeferSchema,
});

/** Every line after the header, validated by its type (against the deployment's limits). */
function backupLineSchema(limits: Limits) {
  return z.discriminatedUnion("type", [
    z.strictObject({ type: z.literal("settings"), settings: SettingsSchema }),
    z.strictObject({ type: z.literal("synonyms"), synonyms: synonymsSchema(limits) }),
    keyLineSchema(limits),
    LearnedLineSchema,
    ServerLineSchema,
    ToolLineSchema,
  ]);
}

/** A tool as the tenant object stages and stores it: its columns, JSON fields as text. */
interface StagedTool {
  id: string;
  server: string;
  name: string;
  model_name: string;
  title: string | null;
  description: string;
  input_schema: string;
  output_schema: string | null;
  annotations: string | null;
  keywords: string;
  defer: string | null;
  hash: string;
  vendor: string | null;
  revision: number;
}

/** One line of a backup, checked and ready to stage, with its line number (1 is the header). */
export type RestoreRecord = { line: number } & (
  | { type: "settings"; settings: Settings }
  | { type: "synonyms"; synonyms: SynonymMap }
  | { type: "key"; key: KeyLine }
  | { type: "learned"; learned: LearnedLine }
  | { type: "server"; name: string; defer_tools: "auto" | "never" }
  | { type: "tool"; tool: StagedTool }
);

export type LineType = RestoreRecord["type"];

/** The counts key of each line type. */
export const COUNT_OF: Record<LineType, Exclude<keyof BackupCounts, "lines">> = {
  settings: "settings",
  synonyms: "synonyms",
  key: "keys",
  learned: "learned",
  server: "servers",
  tool: "tools",
};

const schemaCache = new WeakMap<Limits, ReturnType<typeof lineCheckers>>();

function lineCheckers(limits: Limits) {
  const tool = schemasFor(limits).byFormat.mcp;
  const vendor = z.strictObject({
    anthropic: z
      .strictObject({
        strict: z.boolean().optional(),
        input_examples: boundedObjects("vendor.anthropic.input_examples", limits).optional(),
        allowed_callers: z.array(z.enum(ANTHROPIC_CALLERS)).max(ANTHROPIC_CALLERS.length).optional(),
      })
      .optional(),
    openai: z
      .strictObject({
        strict: z.boolean().optional(),
        allowed_callers: z.array(z.enum(OPENAI_CALLERS)).max(OPENAI_CALLERS.length).optional(),
      })
      .optional(),
  });
  return { line: backupLineSchema(limits), tool, vendor };
}

function checkers(limits: Limits) {
  let c = schemaCache.get(limits);
  if (!c) {
    c = lineCheckers(limits);
    schemaCache.set(limits, c);
  }
  return c;
}

const reasons = (issues: readonly z.core.$ZodIssue[]) =>
  issues
    .slice(0, 3)
    .map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message))
    .join("; ");

/**
 * A tool line checked the way an upload checks a tool (names, sizes, depths, under this deployment's limits), and its
 * hash checked against its content: a changed field is caught even where the checksum was recomputed.
 */
async function toolRecord(t: ToolLine, limits: Limits): Promise<{ tool: StagedTool } | { problem: string }> {
  if (t.id !== toolId(t.server, t.name)) return { problem: `tool id '${t.id}' is not '${toolId(t.server, t.name)}'` };
  const { tool, vendor } = checkers(limits);
  const asInput = {
    server: t.server,
    name: t.name,
    ...(t.title === null ? {} : { title: t.title }),
    description: t.description,
    inputSchema: t.inputSchema,
    ...(t.outputSchema === null ? {} : { outputSchema: t.outputSchema }),
    ...(t.annotations === null ? {} : { annotations: t.annotations }),
    keywords: t.keywords,
    ...(t.defer === null ? {} : { defer: t.defer }),
  };
  const checked = tool.safeParse(asInput);
  if (!checked.success) return { problem: `tool '${t.id}': ${reasons(checked.error.issues)}` };
  if (t.vendor !== null) {
    const v = vendor.safeParse(t.vendor);
    if (!v.success) return { problem: `tool '${t.id}': vendor: ${reasons(v.error.issues)}` };
  }
  const content: ToolContent = {
    server: t.server,
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: t.inputSchema,
    outputSchema: t.outputSchema,
    annotations: t.annotations,
    keywords: t.keywords,
    defer: t.defer,
    vendor: t.vendor as VendorFields | null,
  };
  if ((await contentHash(content)) !== t.hash)
    return { problem: `tool '${t.id}': its hash does not match its content (the line was changed)` };
  const text = (v: unknown) => (v === null ? null : JSON.stringify(v));
  return {
    tool: {
      id: t.id,
      server: t.server,
      name: t.name,
      model_name: t.model_name,
      title: t.title,
      description: t.description,
      input_schema: JSON.stringify(t.inputSchema),
      output_schema: text(t.outputSchema),
      annotations: text(t.annotations),
      keywords: JSON.stringify(t.keywords),
      defer: t.defer,
      hash: t.hash,
      vendor: text(t.vendor),
      revision: t.revision,
    },
  };
}

/** The header line, parsed and checked; a problem says what is wrong with it. */
export function parseHeader(text: string): { header: BackupHeader } | { problem: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { problem: "Line 1 is not JSON: a backup starts with its header line (GET .../backup makes one)" };
  }
  const parsed = BackupHeaderSchema.safeParse(raw);
  if (!parsed.success) return { problem: `Line 1 is not a backup header: ${reasons(parsed.error.issues)}` };
  const c = parsed.data.counts;
  const sum = c.settings + c.synonyms + c.keys + c.learned + c.servers + c.tools;
  if (sum !== c.lines)
    return { problem: `Line 1: the header's counts add up to ${sum} lines, but it says ${c.lines} follow` };
  return { header: parsed.data };
}

/** One line after the header (already JSON-parsed), checked and made a record; a problem says what is wrong. */
export async function parseLine(
  raw: unknown,
  line: number,
  limits: Limits,
): Promise<{ record: RestoreRecord } | { problem: string }> {
  const parsed = checkers(limits).line.safeParse(raw);
  if (!parsed.success) {
    const type = (raw as { type?: unknown } | null)?.type;
    const what = typeof type === "string" && type in COUNT_OF ? ` (${type})` : "";
    return { problem: `Line ${line}${what}: ${reasons(parsed.error.issues)}` };
  }
  const l = parsed.data;
  switch (l.type) {
    case "settings":
      return { record: { line, type: "settings", settings: l.settings } };
    case "synonyms":
      return { record: { line, type: "synonyms", synonyms: l.synonyms } };
    case "key":
      return { record: { line, type: "key", key: l } };
    case "learned":
      return { record: { line, type: "learned", learned: l } };
    case "server":
      return { record: { line, type: "server", name: l.name, defer_tools: l.defer_tools } };
    case "tool": {
      const made = await toolRecord(l, limits);
      return "problem" in made
        ? { problem: `Line ${line}: ${made.problem}` }
        : { record: { line, ...made, type: "tool" } };
    }
  }
}

/** The running checksum of a backup's lines (after the header). */
export class BackupChecksum {
  private readonly hash = createHash("sha256");

  /** One line, without its newline. */
  add(line: string): void {
    this.hash.update(line);
    this.hash.update("\n");
  }

  digest(): string {
    return `sha256:${this.hash.digest("hex")}`;
  }
}

/**
 * Splits a stream of text into lines (without their newlines, a final "\r" dropped), however it is chunked. A line is
 * joined once, when its newline arrives: a long line in many small chunks costs its length, not its length squared.
 */
export class LineSplitter {
  private parts: string[] = [];
  private waiting = 0;

  /** The complete lines in `chunk` (and what was left before it); an unfinished last line waits for more. */
  push(chunk: string): string[] {
    const lines: string[] = [];
    let start = 0;
    for (let nl = chunk.indexOf("\n"); nl !== -1; nl = chunk.indexOf("\n", start)) {
      this.parts.push(chunk.slice(start, nl));
      lines.push(this.take());
      start = nl + 1;
    }
    if (start < chunk.length) {
      this.parts.push(chunk.slice(start));
      this.waiting += chunk.length - start;
    }
    return lines;
  }

  private take(): string {
    const line = this.parts.join("");
    this.parts = [];
    this.waiting = 0;
    return line.endsWith("\r") ? line.slice(0, -1) : line;
  }

  /** Characters waiting for a newline (a line longer than any allowed is refused before it ends). */
  get pending(): number {
    return this.waiting;
  }

  /** The last line, when the stream did not end with a newline. */
  end(): string | null {
    if (this.parts.length === 0) return null;
    const last = this.take();
    return last === "" ? null : last;
  }
}

export const RestoreResultSchema = z
  .object({
    tenant: z.string().describe("The tenant restored into"),
    created: z.boolean().describe("true: the tenant did not exist and the restore created it (201)"),
    revision: count.describe("Its catalog revision now: the restore is one revision (action catalog.restore)"),
    restored: z.object({ tools: count, servers: count, keys: count, learned: count }),
    from: z.object({
      tenant: z.string().describe("The tenant the backup was taken of"),
      revision: count,
      taken_at: z.string(),
    }),
    keys: z
      .string()
      .describe(
        "What to do with the restored keys: the same secrets work; a key names its tenant, so under another tenant " +
          "id each key is used as tsk_<new tenant>_<key id>_<secret> (npm run restore -- --rekey prints it)",
      ),
  })
  .meta({
    id: "RestoreResult",
    example: {
      tenant: "acme-copy",
      created: true,
      revision: 12,
      restored: { tools: 22, servers: 2, keys: 2, learned: 3 },
      from: { tenant: "acme", revision: 12, taken_at: "2026-05-01T12:00:00.000Z" },
      keys: "...",
    },
  });
export type RestoreResult = z.infer<typeof RestoreResultSchema>;
