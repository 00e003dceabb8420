/**
 * A seeded PRNG and the draws the bench and the load test need, so a seed reproduces a run: its catalogs, queries and
 * choices.
 */

export type Random = () => number;

/** mulberry32: tiny, fast, and good enough for picking words. */
export function seeded(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function pick<T>(rand: Random, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)]!;
}

export function int(rand: Random, min: number, max: number): number {
  return min + Math.floor(rand() * (max - min + 1));
}

/**
 * Draws ranks 0..n-1 with probability proportional to 1/(rank+1)^s (Zipf), by inverting a
 * precomputed cumulative table: word use in text and in queries is Zipf-like.
 */
export function zipf(n: number, s = 1): (rand: Random) => number {
  const cumulative = new Float64Array(n);
  let total = 0;
  for (let i = 0; i < n; i++) cumulative[i] = total += 1 / (i + 1) ** s;
  return (rand) => {
    const target = rand() * total;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < target) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}
