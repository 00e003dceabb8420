/** Figures as the API shows them (scores, shares of a context window): four decimals. */
export function round(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}
