// Secrets are not in wrangler.toml, so `wrangler types` does not see them.
declare namespace Cloudflare {
  interface Env {
    /** The operator token (secret). */
    ADMIN_TOKEN?: string;
    /** JSON overrides of the limits in src/config/limits.ts. */
    LIMITS?: string;
  }
}
