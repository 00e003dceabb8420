/**
 * Progress on stderr, so that stdout keeps only the tables (and the JSON line): a cli-progress bar on
 * a terminal, one line per 10 % otherwise (logs, CI), for runs long enough to need it.
 */
import cliProgress from "cli-progress";

export class Progress {
  private readonly label: string;
  private readonly total: number;
  private readonly started = performance.now();
  private readonly bar: cliProgress.SingleBar | null = null;
  private lastTenth = 0;

  constructor(label: string, total: number) {
    this.label = label;
    this.total = total;
    if (process.stderr.isTTY && total > 0) {
      this.bar = new cliProgress.SingleBar(
        {
          stream: process.stderr,
          format: `${label} {bar} {value}/{total} | {percentage}% | {duration_formatted} | eta {eta_formatted}`,
          hideCursor: true,
        },
        cliProgress.Presets.shades_classic,
      );
      this.bar.start(total, 0);
    }
  }

  tick(done: number): void {
    if (this.bar) {
      this.bar.update(done);
      if (done >= this.total) this.bar.stop();
      return;
    }
    const tenth = Math.floor((10 * done) / this.total);
    if (tenth === this.lastTenth || this.total < 1000) return;
    this.lastTenth = tenth;
    const seconds = (performance.now() - this.started) / 1000;
    process.stderr.write(`${this.label}: ${done}/${this.total} (${tenth * 10}%) ${seconds.toFixed(1)}s\n`);
  }
}
