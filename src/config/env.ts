/**
 * Deployment configuration, read from the Worker's environment and validated once where it
 * enters. A bad value fails every request with a clear 500 naming the variable, instead of
 * surfacing later as a wrong answer.
 */
import { z } from "zod";
import { DEFAULT_LIMITS, LimitsSchema, type Limits } from "./limits.ts";

export interface ServiceConfig {
  /** The operator token, or null when none is configured (operator routes then answer 401). */
  adminToken: string | null;
  /** Default matching threshold (tenant settings and requests override it). */
  matchingThreshold: number;
  limits: Limits;
  /**
   * Secrets that sign API keys (KEY_SIGNING_SECRET, comma-separated): the first signs new keys, every one
   * verifies (so a secret can be rotated). Empty: keys carry a public checksum instead.
   */
  keySigningSecrets: string[];
  /** REQUIRE_SIGNED_KEYS: refuse, in the Worker, keys not signed with one of keySigningSecrets. */
  requireSignedKeys: boolean;
}

const EnvSchema = z.object({
  ADMIN_TOKEN: z.string().min(16, "ADMIN_TOKEN must be at least 16 characters").optional(),
  KEY_SIGNING_SECRET: z
    .string()
    .optional()
    .transform((raw) =>
      (raw ?? "")
        .split(",")
        .map((s) => s.trim())
        .filter((s) => s !== ""),
    )
    .refine(
      (secrets) => secrets.every((s) => s.length >= 32),
      "each KEY_SIGNING_SECRET must be at least 32 characters",
    ),
  REQUIRE_SIGNED_KEYS: z.enum(["true", "false"]).default("false"),
  MATCHING_THRESHOLD: z.coerce.number().min(0).max(100).default(1.5),
  LIMITS: z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (!raw) return DEFAULT_LIMITS;
      try {
        return LimitsSchema.parse(JSON.parse(raw));
      } catch (e) {
        ctx.addIssue({ code: "custom", message: `LIMITS is not valid: ${e instanceof Error ? e.message : e}` });
        return z.NEVER;
      }
    }),
});

export class ConfigError extends Error {}

const cache = new WeakMap<object, ServiceConfig>();

export function loadConfig(env: object): ServiceConfig {
  const cached = cache.get(env);
  if (cached) return cached;
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "));
  }
  const requireSignedKeys = parsed.data.REQUIRE_SIGNED_KEYS === "true";
  if (requireSignedKeys && parsed.data.KEY_SIGNING_SECRET.length === 0)
    throw new ConfigError("REQUIRE_SIGNED_KEYS: true needs KEY_SIGNING_SECRET to sign keys with");
  const config: ServiceConfig = {
    adminToken: parsed.data.ADMIN_TOKEN ?? null,
    matchingThreshold: parsed.data.MATCHING_THRESHOLD,
    limits: parsed.data.LIMITS,
    keySigningSecrets: parsed.data.KEY_SIGNING_SECRET,
    requireSignedKeys,
  };
  cache.set(env, config);
  return config;
}
