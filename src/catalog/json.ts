/** JSON helpers the catalog needs: bounded objects, canonical serialisation, content hashes. */
import { z } from "zod";
import { limitNote, type Limits } from "../config/limits.ts";

/** A parsed JSON object. Values stay `unknown`: recursive JSON types blow up the RPC stub types. */
export type JsonObject = { [key: string]: unknown };

/**
 * Nesting depth of a JSON value (a scalar is 0, `{}` is 1), counted no further than `cap`: the
 * walk uses its own stack, so a value nested 100,000 deep costs a refusal, not a stack overflow.
 */
function depthOf(value: unknown, cap = Infinity): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== "object" || node === null) continue;
    if (depth + 1 > deepest) deepest = depth + 1;
    if (deepest > cap) return deepest;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return deepest;
}

export function utf8Bytes(text: string): number {
  return new TextEncoder().encode(text).length;
}

type SchemaLimits = Pick<Limits, "max_schema_bytes" | "max_schema_depth">;

/** A JSON object no deeper than `max_schema_depth` and no larger than `max_schema_bytes` serialised. */
export function boundedObject(what: string, limits: SchemaLimits) {
  return bounded(z.record(z.string(), z.unknown()), what, limits) as unknown as z.ZodType<JsonObject>;
}

/** An array of JSON objects (vendor examples), bounded as a whole like a schema. */
export function boundedObjects(what: string, limits: SchemaLimits) {
  return bounded(z.array(z.record(z.string(), z.unknown())), what, limits) as unknown as z.ZodType<JsonObject[]>;
}

function bounded<T extends z.ZodType>(schema: T, what: string, limits: SchemaLimits) {
  return schema.superRefine((value, ctx) => {
    const depth = depthOf(value, limits.max_schema_depth);
    if (depth > limits.max_schema_depth) {
      ctx.addIssue({
        code: "custom",
        message:
          `${what} is nested more than ${limits.max_schema_depth} levels deep ` +
          `${limitNote("max_schema_depth", limits)}`,
      });
      return; // too deep to serialise safely
    }
    const bytes = utf8Bytes(JSON.stringify(value));
    if (bytes > limits.max_schema_bytes)
      ctx.addIssue({
        code: "custom",
        message: `${what} is ${bytes} bytes, over ${limits.max_schema_bytes} ${limitNote("max_schema_bytes", limits)}`,
      });
  });
}

/** JSON with object keys sorted at every level: equal content gives equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
