/**
 * Command lines of the scripts and the upload CLI, one way for all: node:util's parseArgs plus a usage text built
 * from the same declarations. `--help` (or `-h`) prints the usage and exits 0; an unknown flag, a missing value or
 * an unexpected argument prints what was wrong and the usage, and exits 2.
 *
 * Adopting it in a script that already calls parseArgs is one line: `parseArgs(config)` becomes
 * `parseCommandLine(config, HELP)`, with HELP saying what the command does, each flag's meaning (and its default
 * when parseArgs has none, e.g. one read from the environment) and an example. A flag HELP does not describe is
 * listed as "(undocumented)", which test/e2e/cli-help.test.ts refuses.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";

type Options = NonNullable<ParseArgsConfig["options"]>;

interface FlagHelp {
  /** What the flag does. */
  text: string;
  /** The default as words, when parseArgs has none ("$TOOL_SEARCH_URL, else http://localhost:8787"). */
  default?: string;
  /** The value's placeholder, `<n>` or `<url>` (default `<value>`). */
  value?: string;
}

export interface CommandHelp {
  /** How it is run, one line per form: `npm run eval -- [options]`. */
  usage: string[];
  /** One or two sentences: what it does. */
  summary: string;
  flags: Record<string, string | FlagHelp>;
  /** At least one command line to copy. */
  examples: string[];
  /** More, after the flags (input formats, exit codes). */
  notes?: string;
}

/** Usage lines are wrapped to this width. */
const LINE = 100;

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line && line.length + 1 + word.length > Math.max(width, 30)) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line];
}

const HELP_FLAG = { help: { type: "boolean", short: "h" } } as const satisfies Options;

/** The usage text: what it does, how to run it, every flag with its default, examples. */
function usageText(options: Options, help: CommandHelp): string {
  const all: Options = { ...options, ...HELP_FLAG };
  const rows = Object.entries(all).map(([name, option]) => {
    const described = name === "help" ? { text: "print this text and exit" } : help.flags[name];
    const flag = typeof described === "string" ? { text: described } : (described ?? { text: "(undocumented)" });
    const value = option.type === "string" ? ` ${flag.value ?? "<value>"}` : "";
    const spelled = `${option.short ? `-${option.short}, ` : ""}--${name}${value}${option.multiple ? " ..." : ""}`;
    const given = option.default === false ? undefined : option.default;
    const fallback =
      flag.default ??
      (given !== undefined && String(given) !== "" ? String(given) : option.type === "boolean" ? "off" : "none");
    return { spelled, text: name === "help" ? flag.text : `${flag.text} (default: ${fallback})` };
  });
  const width = Math.max(...rows.map((r) => r.spelled.length)) + 2;
  return [
    help.summary,
    "",
    "Usage:",
    ...help.usage.map((u) => `  ${u}`),
    "",
    "Options:",
    ...rows.map(
      (r) => `  ${r.spelled.padEnd(width)}${wrap(r.text, LINE - 2 - width).join(`\n${" ".repeat(width + 2)}`)}`,
    ),
    ...(help.notes ? ["", help.notes.trimEnd()] : []),
    "",
    "Examples:",
    ...help.examples.map((e) => `  ${e}`),
    "",
  ].join("\n");
}

/** What a command line asks for: to run (with the parsed values), the usage, or a usage error. */
export type CommandLine<T extends ParseArgsConfig> =
  | { kind: "run"; parsed: ReturnType<typeof parseArgs<T>> }
  | { kind: "help"; text: string }
  | { kind: "usage-error"; text: string };

/** Reads a command line without exiting (for a CLI that returns its exit code, like the upload CLI). */
export function readCommandLine<T extends ParseArgsConfig & { options: Options }>(
  config: T,
  help: CommandHelp,
): CommandLine<T> {
  const text = usageText(config.options, help);
  let parsed: ReturnType<typeof parseArgs<T>>;
  try {
    parsed = parseArgs({ ...config, options: { ...config.options, ...HELP_FLAG } }) as ReturnType<typeof parseArgs<T>>;
  } catch (e) {
    return { kind: "usage-error", text: `${e instanceof Error ? e.message : String(e)}\n\n${text}` };
  }
  if ((parsed.values as { help?: boolean }).help) return { kind: "help", text };
  return { kind: "run", parsed };
}

/** Reads a command line; prints the usage and exits 0 on --help, prints the problem and the usage and exits 2. */
function parseCommandLine<T extends ParseArgsConfig & { options: Options }>(
  config: T,
  help: CommandHelp,
): ReturnType<typeof parseArgs<T>> {
  const line = readCommandLine(config, help);
  if (line.kind === "help") {
    process.stdout.write(line.text);
    process.exit(0);
  }
  if (line.kind === "usage-error") {
    process.stderr.write(line.text);
    process.exit(2);
  }
  return line.parsed;
}

/**
 * `parseCommandLine` in the shape of parseArgs: `parseArgs({...})` becomes `parseArgsWith(HELP)({...})`, leaving the
 * script's own declaration of its options as it was.
 */
export function parseArgsWith(help: CommandHelp) {
  return <T extends ParseArgsConfig & { options: Options }>(config: T) => parseCommandLine(config, help);
}
