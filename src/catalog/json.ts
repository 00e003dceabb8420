/** JSON helpers the catalog needs: bounded objects, canonical serialisation, content hashes. */
import { z } from "zod";

/** A parsed JSON object. Values stay `unknown`: recursive JSON types blow up the RPC stub types. */
export type JsonObject = { [key: string]: unknown };

/** Nesting depth of a JSON value (a scalar is 0, `{}` is 1). */
export function depthOf(value: unknown): number {
  if (typeof value !== "object" || value === null) return 0;
  let deepest = 0;
  for (const child of Object.values(value)) deepest = Math.max(deepest, depthOf(child));
  return deepest + 1;
}

export function utf8Bytes(text: string): number {
  return new TextEncoder().encode(text).length;
}

/** A JSON object no deeper than `maxDepth` and no larger than `maxBytes` serialised. */
export function boundedObject(what: string, maxBytes: number, maxDepth: number) {
  return z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
    const depth = depthOf(value);
    if (depth > maxDepth) ctx.addIssue({ code: "custom", message: `${what} is nested ${depth} levels deep; the limit is ${maxDepth}` });
    const bytes = utf8Bytes(JSON.stringify(value));
    if (bytes > maxBytes) ctx.addIssue({ code: "custom", message: `${what} is ${bytes} bytes; the limit is ${maxBytes}` });
  }) as unknown as z.ZodType<JsonObject>;
}

/** JSON with object keys sorted at every level: equal content gives equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
