import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { createLogger } from "vite";
import { defineConfig } from "vitest/config";

// Orama ships source maps that point at files it does not publish; vite warns once per module.
const logger = createLogger();
const warn = logger.warn.bind(logger);
logger.warn = (msg, options) => {
  if (!msg.startsWith("Sourcemap for ")) warn(msg, options);
};

export default defineConfig({
  customLogger: logger,
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: { bindings: { ADMIN_TOKEN: "test-operator-token-0123456789" } },
    }),
  ],
  test: {
    include: ["test/**/*.test.ts"],
  },
});
