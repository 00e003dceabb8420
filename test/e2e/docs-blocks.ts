/**
 * Reading the README and docs/*.md for test/e2e/docs.test.ts: their code blocks, the HTTP statuses a block's
 * comments promise, the commands an illustrative block shows, and their links and headings.
 * The conventions are described in docs/architecture.md ("Docs that run").
 */

/** The marker, on the line before a block, of a block that cannot run here (checked with --help instead). */
const ILLUSTRATIVE = "<!-- illustrative -->";

export interface Block {
  /** The page, relative to the repository's root. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The fence's language tag: `sh`, `ts`, `json`, or "" for none. */
  lang: string;
  /** The block's text, without the indentation of its fence (blocks inside list items are indented). */
  text: string;
  illustrative: boolean;
}

/** The fenced code blocks of a Markdown page, in order. */
export function codeBlocks(file: string, markdown: string): Block[] {
  const lines = markdown.split("\n");
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,})([\w-]*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const [, indent = "", fence = "```", lang = ""] = open;
    const close = new RegExp(`^\\s*${fence}\\s*$`);
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !close.test(lines[j]!); j++) {
      const line = lines[j]!;
      body.push(line.startsWith(indent) ? line.slice(indent.length) : line.trimStart());
    }
    if (j >= lines.length) throw new Error(`${file}:${i + 1}: a code block that is never closed`);
    let before = i - 1;
    while (before >= 0 && lines[before]!.trim() === "") before--;
    const illustrative = before >= 0 && lines[before]!.trim() === ILLUSTRATIVE;
    blocks.push({ file, line: i + 1, lang, text: body.join("\n"), illustrative });
    i = j;
  }
  return blocks;
}

/** A curl command of a block, and the status its comments promise (null: any 2xx). */
export interface CurlCall {
  /** 1-based line in the block where the command starts. */
  line: number;
  status: number | null;
}

const CURL = /(?:^|[;&|(]|\$\()\s*curl\s/;
const STATUS_COMMENT = /^\s*#\s*([1-5]\d\d)(?=\s|\{|$)/;

/**
 * The curl commands of a shell block, in order. A comment line that starts with a status (`# 409 {...}`) after a
 * command, before the next one, is the status that command must get.
 */
export function curlCalls(block: string): CurlCall[] {
  const calls: CurlCall[] = [];
  let open: CurlCall | null = null;
  for (const [i, line] of block.split("\n").entries()) {
    if (/^\s*#/.test(line)) {
      const status = STATUS_COMMENT.exec(line);
      if (status && open && open.status === null) open.status = Number(status[1]);
      continue;
    }
    if (CURL.test(line)) {
      open = { line: i + 1, status: null };
      calls.push(open);
    }
  }
  return calls;
}

/** The commands of a shell block: continuation lines joined, comments dropped, split at `&&` and `;`. */
export function commands(block: string): string[] {
  return block
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((line) => line.replace(/(^|\s)#.*$/, "").trim())
    .flatMap((line) => line.split(/&&|;/).map((c) => c.trim()))
    .filter((c) => c.length > 0);
}

export type IllustrativeCheck =
  | { kind: "help"; command: string; shown: string }
  | { kind: "script-exists"; script: string; shown: string }
  | { kind: "variable"; name: string; shown: string };

/**
 * What an illustrative block's commands are checked with: npm scripts and npx tools are run with `--help` added
 * (after the shown arguments, so that an unknown flag fails), a script made of several commands only has to exist,
 * and an assignment must set one of the variables the test provides. Other commands (`npm install`) are not run.
 */
/** `NAME=value`, the value plain, quoted or a command substitution (whose `=` signs are not assignments). */
const ASSIGNMENT = String.raw`([A-Za-z_]\w*)=(?:\$\([^)]*\)|'[^']*'|"[^"]*"|[^\s'"])*`;
const ASSIGNMENTS = new RegExp(`^(export\\s+)?((?:${ASSIGNMENT.replace("(", "(?:")}\\s*)*)(.*)$`);

export function illustrativeChecks(block: string, scripts: Record<string, string>): IllustrativeCheck[] {
  const checks: IllustrativeCheck[] = [];
  for (const shown of commands(block)) {
    // `NAME=value` alone sets a variable; before a command (`ADMIN_TOKEN=$T npm run eval`) it is the command's.
    const [, exported, prefix = "", rest = ""] = ASSIGNMENTS.exec(shown)!;
    if (exported || rest === "") {
      for (const [, name] of prefix.matchAll(new RegExp(ASSIGNMENT, "g")))
        checks.push({ kind: "variable", name: name!, shown });
      continue;
    }
    const npm = /^npm\s+(?:(start|test)|run\s+([\w:-]+))(.*)$/.exec(rest);
    if (npm) {
      const script = npm[1] ?? npm[2]!;
      if (scripts[script]?.includes("&&")) checks.push({ kind: "script-exists", script, shown });
      else {
        const help = /(^|\s)--(\s|$)/.test(npm[3]!) ? `${shown} --help` : `${shown} -- --help`;
        checks.push({ kind: "help", command: help, shown });
      }
      continue;
    }
    if (/^npx\s/.test(rest)) {
      checks.push({ kind: "help", command: `${prefix}${rest.replace(/^npx\s+/, "npx --no-install ")} --help`, shown });
    }
  }
  return checks;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The page without its code blocks (whose `#` lines are comments, not headings, and whose brackets are code). */
function prose(markdown: string): string {
  return markdown.replace(/^(\s*)(`{3,})[\w-]*\s*\n[\s\S]*?\n\s*\2\s*$/gm, "");
}

/** The anchors of a page's headings, with GitHub's `-1`, `-2` for repeated ones. */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const [, heading] of prose(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(heading!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The relative links of a page (not http, not mailto), outside code blocks and inline code. */
export function relativeLinks(markdown: string): string[] {
  const text = prose(markdown).replace(/`[^`\n]*`/g, "");
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}
