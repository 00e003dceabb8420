/** What the load run measured: every request's operation, status, error code and latency. */

export interface Sample {
  op: string;
  status: number;
  /** The error code of a 4xx/5xx, when the body had one. */
  code: string | null;
  ms: number;
}

export class Stats {
  readonly samples: Sample[] = [];
  private started = performance.now();

  /** Starts the clock (the run, not the seeding before it). */
  start(): void {
    this.started = performance.now();
  }

  add(sample: Sample): void {
    this.samples.push(sample);
  }

  get count(): number {
    return this.samples.length;
  }

  seconds(): number {
    return (performance.now() - this.started) / 1000;
  }

  /** Counts by `status code` (e.g. `200`, `429 search-budget-exhausted`), most frequent first. */
  byStatus(filter: (s: Sample) => boolean = () => true): [string, number][] {
    const counts = new Map<string, number>();
    for (const s of this.samples) {
      if (!filter(s)) continue;
      const label = s.code ? `${s.status} ${s.code}` : String(s.status);
      counts.set(label, (counts.get(label) ?? 0) + 1);
    }
    return [...counts].sort((a, b) => b[1] - a[1]);
  }

  byOperation(): { op: string; count: number; p50: number; p99: number }[] {
    const ops = new Map<string, number[]>();
    for (const s of this.samples) ops.set(s.op, [...(ops.get(s.op) ?? []), s.ms]);
    return [...ops]
      .map(([op, ms]) => ({ op, count: ms.length, p50: percentile(ms, 50), p99: percentile(ms, 99) }))
      .sort((a, b) => b.count - a.count);
  }

  latency(): { p50: number; p99: number; max: number } {
    const ms = this.samples.map((s) => s.ms);
    return { p50: percentile(ms, 50), p99: percentile(ms, 99), max: Math.max(0, ...ms) };
  }
}

/** The p-th percentile (nearest rank) of some values. */
function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
