/** A one-line progress report on stderr: redrawn in place on a terminal, a line per 10 % otherwise. */
export class Progress {
  private readonly label: string;
  private readonly total: number;
  private readonly started = performance.now();
  private lastDraw = 0;
  private lastTenth = -1;

  constructor(label: string, total: number) {
    this.label = label;
    this.total = total;
  }

  tick(done: number): void {
    const now = performance.now();
    if (process.stderr.isTTY) {
      if (now - this.lastDraw < 200 && done < this.total) return;
      this.lastDraw = now;
      process.stderr.write(`\r\x1b[2K${this.line(done, now)}`);
      if (done >= this.total) process.stderr.write("\n");
    } else {
      const tenth = Math.floor((10 * done) / this.total);
      if (tenth === this.lastTenth || this.total < 1000) return;
      this.lastTenth = tenth;
      process.stderr.write(`${this.line(done, now)}\n`);
    }
  }

  private line(done: number, now: number): string {
    const seconds = (now - this.started) / 1000;
    const rate = done / Math.max(seconds, 1e-3);
    const eta = done > 0 ? ` eta ${Math.ceil((this.total - done) / rate)}s` : "";
    return `${this.label}: ${done}/${this.total} (${Math.floor((100 * done) / this.total)}%) ${seconds.toFixed(1)}s${done < this.total ? eta : ""}`;
  }
}
