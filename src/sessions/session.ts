/**
 * A session: one agent conversation's state in the tool-search loop (turn, search budget,
 * activated tools, client tools, the agent's named tools). Ids, creation options and the view a
 * client reads.
 */
import { z } from "zod";
import { limitNote, type Limits } from "../config/limits.ts";
import { budget, type Budget } from "./budget.ts";

/** Client-chosen ids: 1-128 of A-Z a-z 0-9 _ - . : starting with a letter or digit. */
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;
export const SessionIdSchema = z
  .string()
  .regex(SESSION_ID, "session ids are 1-128 characters of A-Z a-z 0-9 _ - . :, starting with a letter or digit")
  .meta({ example: "chat-7f3a" });

/** Names the agent may give in `inline` and to resolve: a tool id, a model-facing name or a bare tool name. */
export const ToolReferenceSchema = z
  .string()
  .regex(/^[A-Za-z0-9_.:-]{1,260}$/, "a tool id (server::name), a model-facing name (server__name) or a bare tool name")
  .meta({ example: "github::list_issues" });

const TTL_MIN_SECONDS = 60;
const TTL_MAX_SECONDS = 30 * 24 * 3600;
const BUDGET_MAX = 100;
/** The longest quiet spell after which a session may start its next turn by itself (1 day). */
const TURN_IDLE_MAX_SECONDS = 24 * 3600;

/** The options a session is created with (the tools, if any, travel separately once validated). */
export function sessionOptionsSchema(limits: Pick<Limits, "max_inline_tools">) {
  return z.strictObject({
    session_id: SessionIdSchema.optional().describe("Your own id for the session; generated when absent"),
    budget_cap: z
      .number()
      .int()
      .min(1)
      .max(BUDGET_MAX)
      .optional()
      .describe("Searches per turn; default: the tenant's search_budget"),
    ttl_seconds: z
      .number()
      .int()
      .min(TTL_MIN_SECONDS)
      .max(TTL_MAX_SECONDS)
      .optional()
      .describe(
        "The session ends after this long without a call that names it; default: the tenant's session_ttl_seconds",
      ),
    inline: z
      .array(ToolReferenceSchema)
      .max(
        limits.max_inline_tools,
        `inline names at most ${limits.max_inline_tools} tools ${limitNote("max_inline_tools", limits)}`,
      )
      .optional()
      .describe(
        "Tools a custom agent names: always loaded for this session (tool ids, model-facing names or bare names)",
      ),
    deferred_tool_loading: z
      .boolean()
      .optional()
      .describe("true: the inline tools go back to search instead of being loaded"),
    turn_idle_seconds: z
      .number()
      .int()
      .min(1)
      .max(TURN_IDLE_MAX_SECONDS)
      .optional()
      .describe(
        "For clients that cannot say when a user message arrives (MCP clients): a search more than this many seconds " +
          "after the session's previous search starts the next turn by itself. Starting a turn explicitly switches " +
          "this off for the session",
      ),
  });
}
export type SessionOptions = z.infer<ReturnType<typeof sessionOptionsSchema>>;

/** What storage holds for a session. */
export interface SessionRecord {
  id: string;
  createdAt: number;
  expiresAt: number;
  ttlSeconds: number;
  /** null: the tenant's search_budget applies. */
  budgetCap: number | null;
  turn: number;
  /** Searches run in the current turn. */
  turnSearches: number;
  inline: string[] | null;
  deferredToolLoading: boolean;
  /** Counts setTools replacements: they apply one at a time, each gets the next number. */
  toolsVersion: number;
  /** Quiet spell (seconds) after which the next search starts a new turn; null: turns start only when asked. */
  turnIdleSeconds: number | null;
  /** When the last search was attempted (ran, or was refused for the budget), in ms; null before the first. */
  lastSearchAt: number | null;
  /** The last turn whose user message was ranked for suggestions; null before the first message. */
  messageTurn: number | null;
}

export function isExpired(session: Pick<SessionRecord, "expiresAt">, now: number): boolean {
  return session.expiresAt <= now;
}

export interface SessionView {
  session_id: string;
  created_at: string;
  expires_at: string;
  ttl_seconds: number;
  turn: number;
  budget: Budget;
  always_loaded: string[];
  activated: string[];
  session_tools: string[];
  tools_version: number;
  inline: string[] | null;
  inline_unresolved: string[];
  deferred_tool_loading: boolean;
  turn_idle_seconds: number | null;
}

export function sessionView(
  s: SessionRecord,
  cap: number,
  parts: { alwaysLoaded: string[]; activated: string[]; sessionTools: string[]; inlineUnresolved: string[] },
): SessionView {
  return {
    session_id: s.id,
    created_at: new Date(s.createdAt).toISOString(),
    expires_at: new Date(s.expiresAt).toISOString(),
    ttl_seconds: s.ttlSeconds,
    turn: s.turn,
    budget: budget(s.turnSearches, cap),
    always_loaded: parts.alwaysLoaded,
    activated: parts.activated,
    session_tools: parts.sessionTools,
    tools_version: s.toolsVersion,
    inline: s.inline,
    inline_unresolved: parts.inlineUnresolved,
    deferred_tool_loading: s.deferredToolLoading,
    turn_idle_seconds: s.turnIdleSeconds,
  };
}

export type TurnStep = { kind: "advance" } | { kind: "repeat" } | { kind: "conflict"; message: string };

/**
 * Starting the next turn. Without `requested` it always advances. With it (the number of the turn
 * the client means to start) a retried request is harmless: asking for the turn already current
 * changes nothing, asking for the next one advances, anything else is a conflict.
 */
export function turnStep(current: number, requested: number | undefined): TurnStep {
  if (requested === undefined || requested === current + 1) return { kind: "advance" };
  if (requested === current) return { kind: "repeat" };
  return {
    kind: "conflict",
    message:
      `The session is in turn ${current}; you can start turn ${current + 1} (or repeat ` +
      `${current}), not ${requested}.`,
  };
}

/**
 * Whether a search arriving at `now` starts the next turn by itself: the session opted into idle
 * turns (`turnIdleSeconds`, set for MCP sessions) and its previous search is at least that long
 * ago. A model that searches in a loop keeps the spell short, so its loop stays inside one turn
 * and one budget; a user's next message after a pause gets a fresh budget.
 */
export function idleTurnDue(session: Pick<SessionRecord, "turnIdleSeconds" | "lastSearchAt">, now: number): boolean {
  if (session.turnIdleSeconds === null || session.lastSearchAt === null) return false;
  return now - session.lastSearchAt >= session.turnIdleSeconds * 1000;
}
