import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { createLogger } from "vite";
import { defineConfig } from "vitest/config";

// Orama and the MCP SDK ship source maps that point at files they do not publish; vite warns once per module.
const logger = createLogger();
const quiet = (msg: string) => msg.startsWith("Sourcemap for ");
const warn = logger.warn.bind(logger);
const warnOnce = logger.warnOnce.bind(logger);
logger.warn = (msg, options) => (quiet(msg) ? undefined : warn(msg, options));
logger.warnOnce = (msg, options) => (quiet(msg) ? undefined : warnOnce(msg, options));

const ADMIN_TOKEN = "test-operator-token-0123456789";

/** Rate limits as the Workers Rate Limiting bindings of wrangler.toml, with other numbers. */
function rateLimits(key: number, operator: number, authFailures: number) {
  return {
    KEY_RATE_LIMITER: { namespace_id: "4601", simple: { limit: key, period: 10 as const } },
    OPERATOR_RATE_LIMITER: { namespace_id: "4602", simple: { limit: operator, period: 10 as const } },
    AUTH_FAILURE_LIMITER: { namespace_id: "4603", simple: { limit: authFailures, period: 60 as const } },
  };
}

/**
 * Small limits for test/limits: each limit of src/config/limits.ts is exceeded there with a few
 * requests instead of, say, 100,000 tools (the same code reads LIMITS in production).
 */
export const TEST_LIMITS = {
  max_body_bytes: 64 * 1024,
  max_json_depth: 16,
  max_tools_per_batch: 5,
  max_listed_errors: 2,
  max_description_bytes: 100,
  max_title_chars: 20,
  max_schema_bytes: 512,
  max_schema_depth: 4,
  max_keywords: 3,
  max_keyword_chars: 10,
  max_query_chars: 50,
  max_query_terms: 6,
  max_results: 5,
  max_page_size: 5,
  max_deferred_page: 5,
  max_export_page: 5,
  max_tools_per_tenant: 8,
  max_servers_per_tenant: 3,
  max_keys_per_tenant: 3,
  max_label_chars: 10,
  max_sessions_per_tenant: 3,
  max_sessions_per_key: 2,
  max_synonyms: 3,
  max_synonym_expansions: 2,
  max_session_tools: 2,
  max_inline_tools: 2,
  max_suggestions: 2,
  max_activated_tools: 5,
  audit_max_entries: 100,
  audit_max_age_days: 1,
  audit_max_key_entries: 10,
  audit_key_max_age_days: 2,
  doctor_reach_checks: 2,
  query_log_max_age_days: 2,
  query_log_max_entries: 10,
  query_log_text_chars: 16,
  history_max_revisions: 4,
  history_max_age_days: 1,
  max_restore_bytes: 4096,
};

/** A project of tests inside the Workers runtime, against real Durable Objects (wrangler.toml's bindings). */
function workersProject(name: string, include: string[], exclude: string[], miniflare: Record<string, unknown>) {
  return {
    extends: true as const,
    plugins: [cloudflareTest({ wrangler: { configPath: "./wrangler.toml" }, miniflare })],
    // The first test of a file also loads the Worker's modules into a fresh isolate, seconds on a loaded 2-core
    // machine: a timeout is a hang detector here, never a performance check (those are in npm run bench).
    test: { name, include, exclude, testTimeout: 20_000 },
  };
}

export default defineConfig({
  customLogger: logger,
  test: {
    // Cases per route in test/http/fuzz.test.ts: a few in `npm test`, many in `npm run fuzz`.
    provide: { fuzzRuns: Number(process.env.FUZZ_RUNS ?? 10) },
    projects: [
      // Everything at the production limits, except request rates: tests create hundreds of tenants
      // with the operator token within seconds, which the production rate would (rightly) refuse.
      workersProject("workers", ["test/**/*.test.ts"], ["test/e2e/**", "test/limits/**", "test/ratelimit/**"], {
        bindings: { ADMIN_TOKEN },
        ratelimits: rateLimits(1_000_000, 1_000_000, 1_000_000),
      }),
      // Every limit, exceeded against small values (TEST_LIMITS).
      workersProject("limits", ["test/limits/**/*.test.ts"], [], {
        bindings: { ADMIN_TOKEN, LIMITS: JSON.stringify(TEST_LIMITS) },
        ratelimits: rateLimits(1_000_000, 1_000_000, 1_000_000),
      }),
      // Request rate limits and the failed-authentication guard, against low ones (the production
      // numbers are in wrangler.toml).
      workersProject("ratelimit", ["test/ratelimit/**/*.test.ts"], [], {
        bindings: { ADMIN_TOKEN },
        ratelimits: rateLimits(20, 10, 10),
      }),
      {
        // End-to-end tests in Node against `wrangler dev`: restarts of the local runtime, real clients.
        extends: true,
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          environment: "node",
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
