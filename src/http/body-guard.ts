/**
 * Every request body is checked once, before any handler parses it: it must be valid UTF-8, nest
 * no deeper than `max_json_depth`, and hold no lone UTF-16 surrogate escapes (`"\ud800"`).
 *
 * Why here and not in each schema: a body that breaks these rules does harm before validation
 * can say no. Recursive walks over a 100,000-deep value overflow the stack (a 500), and text that
 * is not valid Unicode is silently replaced on its way into SQLite (U+FFFD), so what a client
 * reads back would differ from what it sent and from the content hash taken before storage.
 * Refusing such bodies outright keeps every later step simple.
 */
import type { MiddlewareHandler } from "hono";
import { limitNote, type Limits } from "../config/limits.ts";
import { refuse } from "./errors.ts";

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

type TextProblem = { kind: "depth"; depth: number } | { kind: "surrogate"; at: number };

/**
 * The first problem in JSON (or NDJSON) text, or null: nesting deeper than `maxDepth`, or a
 * `\uXXXX` escape that is half of a surrogate pair without its other half. One pass, no
 * recursion, no parsing; text that is not JSON at all is left for the parser to refuse.
 */
export function jsonTextProblem(text: string, maxDepth: number): TextProblem | null {
  let depth = 0;
  let inString = false;
  let pendingHigh = false; // the previous character in this string was a high-surrogate escape
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (!inString) {
      if (ch === QUOTE) inString = true;
      else if (ch === OPEN_BRACE || ch === OPEN_BRACKET) {
        if (++depth > maxDepth) return { kind: "depth", depth };
      } else if (ch === CLOSE_BRACE || ch === CLOSE_BRACKET) depth = Math.max(0, depth - 1);
      continue;
    }
    if (ch === BACKSLASH) {
      const next = text.charCodeAt(i + 1);
      if (next === 0x75 /* u */) {
        const unit = parseInt(text.slice(i + 2, i + 6), 16);
        const high = unit >= 0xd800 && unit <= 0xdbff;
        const low = unit >= 0xdc00 && unit <= 0xdfff;
        if ((low && !pendingHigh) || (pendingHigh && !low)) return { kind: "surrogate", at: i };
        pendingHigh = high;
        i += 5;
      } else {
        if (pendingHigh) return { kind: "surrogate", at: i };
        i += 1;
      }
      continue;
    }
    if (pendingHigh) return { kind: "surrogate", at: i };
    if (ch === QUOTE) inString = false;
  }
  return null;
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Routes that read their body as a stream, with checks of their own on every line (POST .../restore: a backup may be
 * far larger than max_body_bytes, and is never held whole).
 */
export function streamsItsBody(method: string, path: string): boolean {
  return method === "POST" && /^\/v1\/tenants\/[^/]+\/restore\/?$/.test(path);
}

export function bodyGuard(limits: Limits): MiddlewareHandler {
  return async (c, next) => {
    if (!c.req.raw.body || streamsItsBody(c.req.method, c.req.path)) return next();
    // Read once; Hono keeps the bytes, so handlers and validators parse from the same copy.
    const bytes = await c.req.arrayBuffer();
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      refuse("invalid-request", "The request body is not valid UTF-8; send JSON encoded as UTF-8.");
    }
    const problem = jsonTextProblem(text, limits.max_json_depth);
    if (problem?.kind === "depth") {
      refuse(
        "invalid-request",
        `The request body nests deeper than ${limits.max_json_depth} levels; flatten it ` +
          `${limitNote("max_json_depth", limits)}.`,
      );
    }
    if (problem?.kind === "surrogate") {
      refuse(
        "invalid-request",
        `The request body holds a lone UTF-16 surrogate escape (at character ${problem.at}); ` +
          `strings must be valid Unicode.`,
      );
    }
    await next();
  };
}
