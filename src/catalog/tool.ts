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
  /** SHA-256 of the row's content: unchanged tools are neither rewritten nor re-indexed. */
  hash: string;
}

export type ToolContent = Omit<ToolRow, "id" | "hash">;

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

export async function toRow(content: ToolContent): Promise<ToolRow> {
  return { id: toolId(content.server, content.name), ...content, hash: await sha256Hex(canonicalJson(content)) };
}
