/** The examples' narration: one line per step, indented under the step it belongs to. */
export type Log = (line: string) => void;

export const consoleLog: Log = (line) => console.log(line);

export function heading(log: Log, title: string): void {
  log("");
  log(`── ${title} ${"─".repeat(Math.max(0, 72 - title.length))}`);
}

/** JSON shortened for a log line. */
export function brief(value: unknown, max = 160): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
