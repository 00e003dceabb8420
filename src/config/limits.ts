/**
 * Every size and count limit the service enforces, in one place. Defaults can be overridden per
 * deployment with the `LIMITS` variable (JSON, validated once at startup; see env.ts).
 */
import { z } from "zod";

export const LimitsSchema = z
  .object({
    /** Largest request body accepted, in bytes (413 above). */
    max_body_bytes: z.number().int().min(1024).default(16 * 1024 * 1024),
    /** Tools in one upsert or replace request. */
    max_tools_per_batch: z.number().int().min(1).default(20_000),
    /** Tools a tenant may hold. */
    max_tools_per_tenant: z.number().int().min(1).default(100_000),
    /** A tool description, in UTF-8 bytes. */
    max_description_bytes: z.number().int().min(64).default(16 * 1024),
    /** A tool title, in characters. */
    max_title_chars: z.number().int().min(1).default(256),
    /** A tool's input (or output) schema, serialised, in bytes. */
    max_schema_bytes: z.number().int().min(256).default(64 * 1024),
    /** Nesting depth of a schema or annotations object. */
    max_schema_depth: z.number().int().min(2).default(32),
    /** Keywords per tool and characters per keyword. */
    max_keywords: z.number().int().min(0).default(32),
    max_keyword_chars: z.number().int().min(1).default(64),
    /** A search query, in characters. */
    max_query_chars: z.number().int().min(1).default(1_000),
    /** Largest `max_results` a search may ask for. */
    max_results: z.number().int().min(1).default(50),
    /** Keys a tenant may hold (revoked ones included). */
    max_keys_per_tenant: z.number().int().min(1).default(100),
    /** Page size ceiling for listings. */
    max_page_size: z.number().int().min(1).default(500),
    /** Lines per page of the deferred list (each at most ~1 KB). */
    max_deferred_page: z.number().int().min(1).default(10_000),
    /** Tools per page of the vendor catalog export (GET .../catalog/export). */
    max_export_page: z.number().int().min(1).default(5_000),
    /** Live sessions a tenant may hold (expired ones do not count). */
    max_sessions_per_tenant: z.number().int().min(1).default(10_000),
    /** Client tools in one session (setTools). */
    max_session_tools: z.number().int().min(0).default(128),
  })
  .strict();

export type Limits = z.infer<typeof LimitsSchema>;
export const DEFAULT_LIMITS: Limits = LimitsSchema.parse({});
