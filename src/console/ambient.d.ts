/**
 * What the console's type-check needs besides the DOM's types (tsconfig.json here).
 *
 * src/tenancy/keys.ts, reached through the typed client's type-only imports of the API's schemas, compares secrets with
 * crypto.subtle.timingSafeEqual, a Workers extension of a web API. The console never calls it; declaring it lets the
 * DOM-typed build check those files as they are.
 */
interface SubtleCrypto {
  timingSafeEqual(a: ArrayBuffer | ArrayBufferView, b: ArrayBuffer | ArrayBufferView): boolean;
}

/** Styles imported for their side effect: esbuild writes them beside the script (scripts/build-assets.ts). */
declare module "*.css";
