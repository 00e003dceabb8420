declare module "vitest" {
  interface ProvidedContext {
    /** Cases per route in the fuzz tests (FUZZ_RUNS; `npm run fuzz` raises it). */
    fuzzRuns: number;
  }
}
export {};
