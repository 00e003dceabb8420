/**
 * The model vendors' own tool-search shapes, so a client can use their client-side tool search
 * with this service doing the finding:
 *
 * - Anthropic Messages API: tools sent with `defer_loading: true`; a custom search tool answers
 *   with a `tool_result` whose content is `{"type": "tool_reference", "tool_name": ...}` blocks,
 *   which the API expands into the matching deferred definitions.
 * - OpenAI Responses API: functions grouped in one `namespace` per server, deferred with
 *   `defer_loading: true`; a `tool_search` tool with `execution: "client"` is answered with a
 *   `tool_search_output` item carrying the loaded definitions for the call's `call_id`.
 *
 * Every name is the tool's model-facing name (render.ts), the same in the export, in the tool
 * references and in `tool_search_output`, so what a search returns is what the client sent.
 * Sources: see docs/agents.md, "With the vendors' client-side tool search".
 */
import type { ApiError } from "../errors.ts";
import {
  anthropicDefinition,
  objectSchema,
  openaiResponsesDefinition,
  type AnthropicDefinition,
  type ObjectSchema,
  type OpenAIResponsesDefinition,
} from "./render.ts";
import type { ToolRow } from "./tool.ts";

export const VENDOR_SEARCH_FORMATS = ["anthropic-tool-reference", "openai-tool-search-output"] as const;
export type VendorSearchFormat = (typeof VENDOR_SEARCH_FORMATS)[number];

export const EXPORT_FORMATS = ["anthropic", "openai-responses"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** A tool as the export shows it: its row and whether it is deferred (else always loaded). */
export interface ExportEntry {
  row: ToolRow;
  deferred: boolean;
}

/** What a namespace's description is derived from: the server's tool count and its first names. */
export interface ServerSummary {
  name: string;
  tools: number;
  /** The first tool names, by tool id. */
  names: string[];
}

/** How many tool names a namespace description lists. */
export const NAMESPACE_NAMES_SHOWN = 12;

/** Anthropic accepts at most this many deferred tools in one request (see docs/agents.md). */
export const ANTHROPIC_MAX_DEFERRED = 10_000;

/** OpenAI Responses `NamespaceTool`. */
export interface OpenAINamespace {
  type: "namespace";
  name: string;
  description: string;
  tools: OpenAIResponsesDefinition[];
}

/** OpenAI Responses `ToolSearchTool`, executed by the client. */
export interface OpenAIToolSearch {
  type: "tool_search";
  execution: "client";
  description: string;
  parameters: ObjectSchema;
}

/** Anthropic: the definition, plus `defer_loading: true` when the tool is deferred. */
function anthropicTool(entry: ExportEntry): AnthropicDefinition {
  return { ...anthropicDefinition(entry.row), ...(entry.deferred ? { defer_loading: true } : {}) };
}

function openaiFunction(entry: ExportEntry): OpenAIResponsesDefinition {
  return { ...openaiResponsesDefinition(entry.row), ...(entry.deferred ? { defer_loading: true } : {}) };
}

/**
 * A namespace's description: at the start of a request the model sees only namespace names and
 * descriptions, so it says which tools the server holds (derived from the rows, never stored).
 */
function namespaceDescription(server: ServerSummary): string {
  const more = server.tools > server.names.length ? `, and ${server.tools - server.names.length} more` : "";
  return `Tools of the ${server.name} server (${server.tools}): ${server.names.join(", ")}${more}.`;
}

/**
 * OpenAI: one namespace per server, in the order the entries come (by tool id, so each server's
 * tools are contiguous), each function deferred unless the tool is always loaded.
 */
function openaiNamespaces(entries: readonly ExportEntry[], servers: readonly ServerSummary[]): OpenAINamespace[] {
  const summary = new Map(servers.map((s) => [s.name, s]));
  const groups = new Map<string, ExportEntry[]>();
  for (const entry of entries) {
    const group = groups.get(entry.row.server) ?? [];
    group.push(entry);
    groups.set(entry.row.server, group);
  }
  return [...groups].map(([server, group]) => ({
    type: "namespace",
    name: server,
    description: namespaceDescription(
      summary.get(server) ?? {
        name: server,
        tools: group.length,
        names: group.slice(0, NAMESPACE_NAMES_SHOWN).map((e) => e.row.name),
      },
    ),
    tools: group.map(openaiFunction),
  }));
}

/**
 * OpenAI's `tool_search` tool, executed by the client (this service), with tool_search's own description and
 * parameters.
 */
export function openaiClientToolSearch(toolSearch: ToolRow): OpenAIToolSearch {
  return {
    type: "tool_search",
    execution: "client",
    description: toolSearch.description,
    parameters: objectSchema(toolSearch.inputSchema),
  };
}

/** The export's entries in a vendor's deferred form. */
export function exportTools(
  format: ExportFormat,
  entries: readonly ExportEntry[],
  servers: readonly ServerSummary[],
): (AnthropicDefinition | OpenAINamespace)[] {
  return format === "anthropic" ? entries.map(anthropicTool) : openaiNamespaces(entries, servers);
}

// ---- answers to the model's search call -----------------------------------------------------------

interface TextBlock {
  type: "text";
  text: string;
}

/** Anthropic `ToolResultBlockParam` answering the search tool's call. */
export interface AnthropicToolResult {
  type: "tool_result";
  tool_use_id: string;
  content: ({ type: "tool_reference"; tool_name: string } | TextBlock)[];
  is_error?: boolean;
}

/** OpenAI `ResponseToolSearchOutputItemParam`. */
export interface OpenAIToolSearchOutput {
  type: "tool_search_output";
  call_id: string;
  execution: "client";
  status: "completed";
  tools: OpenAINamespace[];
}

/** OpenAI `EasyInputMessage` from the developer. */
interface DeveloperMessage {
  type: "message";
  role: "developer";
  content: string;
}

const textBlock = (text: string): TextBlock => ({ type: "text", text });

/**
 * Anthropic: the `tool_result` for the search tool's `tool_use` (`call_id` is its `id`): one
 * `tool_reference` per tool found; when nothing matched, the plain message as text instead, so
 * the model tells the user rather than retrying.
 */
export function anthropicToolResult(
  callId: string,
  found: readonly Pick<ToolRow, "modelName">[],
  message?: string,
): AnthropicToolResult {
  const content =
    found.length > 0
      ? found.map((t) => ({ type: "tool_reference" as const, tool_name: t.modelName }))
      : [textBlock(message ?? "No tool matched.")];
  return { type: "tool_result", tool_use_id: callId, content };
}

/** Anthropic: a refusal (spent budget, unknown tool id) as an error `tool_result` carrying the API's JSON. */
export function anthropicToolError(callId: string, error: ApiError): AnthropicToolResult {
  return { type: "tool_result", tool_use_id: callId, is_error: true, content: [textBlock(JSON.stringify(error))] };
}

function toolSearchOutput(callId: string, tools: OpenAINamespace[]): OpenAIToolSearchOutput {
  return { type: "tool_search_output", call_id: callId, execution: "client", status: "completed", tools };
}

/**
 * OpenAI: the input items that answer a client-executed `tool_search_call`: the
 * `tool_search_output` with the found tools in their namespaces (exactly as the export renders
 * them). `tool_search_output` has no text field, so when nothing matched the plain message
 * follows as a developer message.
 */
export function openaiSearchItems(
  callId: string,
  entries: readonly ExportEntry[],
  servers: readonly ServerSummary[],
  message?: string,
): (OpenAIToolSearchOutput | DeveloperMessage)[] {
  const items: (OpenAIToolSearchOutput | DeveloperMessage)[] = [
    toolSearchOutput(callId, openaiNamespaces(entries, servers)),
  ];
  if (entries.length === 0 && message) items.push({ type: "message", role: "developer", content: message });
  return items;
}

/** OpenAI: a refusal as an empty `tool_search_output` followed by a developer message carrying the API's JSON. */
export function openaiSearchErrorItems(callId: string, error: ApiError): (OpenAIToolSearchOutput | DeveloperMessage)[] {
  return [toolSearchOutput(callId, []), { type: "message", role: "developer", content: JSON.stringify(error) }];
}
