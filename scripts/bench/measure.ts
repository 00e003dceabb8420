/** Clocks, heap readings, percentiles and progress lines for the bench. */

const gc = (globalThis as { gc?: () => void }).gc;

export function requireGc(): void {
  if (!gc) throw new Error("run the bench with --expose-gc (npm run bench does)");
}

/**
 * Live JS heap plus ArrayBuffer backing stores, after two full collections. Typed arrays live
 * outside `heapUsed`, but they count against a Worker isolate's 128 MB just the same.
 */
function liveBytes(): number {
  gc!();
  gc!();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/** Runs `work`, returning its result, the time it took and the live bytes it left behind. */
export function measureHeap<T>(work: () => T): { value: T; ms: number; bytes: number } {
  const before = liveBytes();
  const started = performance.now();
  const value = work();
  const ms = performance.now() - started;
  const bytes = liveBytes() - before;
  return { value, ms, bytes };
}

export function time<T>(work: () => T): { value: T; ms: number } {
  const started = performance.now();
  const value = work();
  return { value, ms: performance.now() - started };
}

/** Nearest-rank percentile of unsorted samples. */
export function percentile(samples: ArrayLike<number>, p: number): number {
  const sorted = Float64Array.from(samples).sort();
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export const MB = 1024 * 1024;

export function round(n: number | null, digits = 3): number | null {
  if (n === null || !Number.isFinite(n)) return null;
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** Progress on stderr: rewritten in place on a terminal, a line every tenth otherwise. */
export class Progress {
  private lastTenth = -1;
  private readonly label: string;
  private readonly total: number;

  constructor(label: string, total: number) {
    this.label = label;
    this.total = total;
  }

  tick(done: number): void {
    if (process.stderr.isTTY) {
      if (done === this.total || done % 50 === 0) process.stderr.write(`\r  ${this.label} ${done}/${this.total}`);
      if (done === this.total) process.stderr.write("\n");
      return;
    }
    const tenth = Math.floor((done * 10) / this.total);
    if (tenth !== this.lastTenth) {
      this.lastTenth = tenth;
      process.stderr.write(`  ${this.label} ${done}/${this.total}\n`);
    }
  }
}

export function log(message: string): void {
  process.stderr.write(`${message}\n`);
}
