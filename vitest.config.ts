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

export default defineConfig({
  customLogger: logger,
  test: {
    projects: [
      {
        // Unit and integration tests inside the Workers runtime, against real Durable Objects.
        extends: true,
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: { bindings: { ADMIN_TOKEN: "test-operator-token-0123456789" } },
          }),
        ],
        test: { name: "workers", include: ["test/**/*.test.ts"], exclude: ["test/e2e/**"] },
      },
      {
        // End-to-end tests in Node against `wrangler dev`: restarts of the local runtime, real clients.
        extends: true,
        test: { name: "e2e", include: ["test/e2e/**/*.test.ts"], environment: "node", testTimeout: 120_000, hookTimeout: 120_000 },
      },
    ],
  },
});
