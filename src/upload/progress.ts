/**
 * Progress while uploading: a bar (cli-progress) when stdout is a terminal, nothing when it is a
 * pipe or a file, so logs and CI output stay clean. Notes (retries, servers listed) go to stderr,
 * above the bar while it is shown.
 */
import cliProgress from "cli-progress";

export interface Progress {
  start(total: number): void;
  advance(by: number): void;
  note(line: string): void;
  stop(): void;
}

export function createProgress(label: string, stream: NodeJS.WriteStream = process.stdout, unit = "tools"): Progress {
  if (!stream.isTTY) {
    return { start() {}, advance() {}, note: (line) => void process.stderr.write(`${line}\n`), stop() {} };
  }
  const bars = new cliProgress.MultiBar(
    {
      stream,
      format: `${label} {bar} {value}/{total} ${unit} | {percentage}% | {duration_formatted}`,
      hideCursor: true,
      clearOnComplete: false,
    },
    cliProgress.Presets.shades_classic,
  );
  let bar: cliProgress.SingleBar | null = null;
  return {
    start: (total) => {
      bar = bars.create(total, 0);
    },
    advance: (by) => bar?.increment(by),
    note: (line) => (bar ? bars.log(`${line}\n`) : void process.stderr.write(`${line}\n`)),
    stop: () => bars.stop(),
  };
}
