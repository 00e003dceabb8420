/**
 * Checks a backup as the service will (npm run backup after writing it, npm run restore before sending it): the
 * header, every line JSON of a known type, the counts of each type, the checksum. The service also checks each line
 * against its schema and limits; this catches the usual trouble (a file cut short, edited or mixed up) before any
 * upload.
 */
import { createReadStream } from "node:fs";
import { BackupChecksum, COUNT_OF, LineSplitter, parseHeader, type BackupHeader } from "../../src/contract/backup.ts";

export interface Verified {
  header: BackupHeader;
  bytes: number;
  lines: number;
}

export class BackupProblem extends Error {}

/** Verifies the backup in `file`; `progress` is told the bytes read as they are. Throws BackupProblem. */
export async function verifyBackupFile(file: string, progress: (bytes: number) => void = () => {}): Promise<Verified> {
  const splitter = new LineSplitter();
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
  const checksum = new BackupChecksum();
  const seen: Record<string, number> = {};
  let header: BackupHeader | null = null;
  let lines = 0;
  let bytes = 0;
  const take = (line: string) => {
    lines += 1;
    if (lines === 1) {
      const parsed = parseHeader(line.replace(/^\uFEFF/, ""));
      if ("problem" in parsed) throw new BackupProblem(parsed.problem);
      header = parsed.header;
      return;
    }
    let type: unknown;
    try {
      type = (JSON.parse(line) as { type?: unknown }).type;
    } catch {
      throw new BackupProblem(`Line ${lines} is not JSON (the file was cut or changed)`);
    }
    if (typeof type !== "string" || !(type in COUNT_OF))
      throw new BackupProblem(`Line ${lines} is not a line of a backup (type ${JSON.stringify(type)})`);
    const kind = COUNT_OF[type as keyof typeof COUNT_OF];
    seen[kind] = (seen[kind] ?? 0) + 1;
    checksum.add(line);
  };
  try {
    for await (const chunk of createReadStream(file)) {
      bytes += (chunk as Buffer).length;
      for (const line of splitter.push(decoder.decode(chunk as Buffer, { stream: true }))) take(line);
      progress(bytes);
    }
    for (const line of splitter.push(decoder.decode())) take(line);
  } catch (e) {
    if (e instanceof TypeError) throw new BackupProblem(`The file is not UTF-8 text (after byte ${bytes})`);
    throw e;
  }
  const last = splitter.end();
  if (last !== null) take(last);
  if (header === null) throw new BackupProblem("The file is empty");
  const h: BackupHeader = header;
  if (lines - 1 !== h.counts.lines)
    throw new BackupProblem(
      `The backup is truncated or has lines added: its header says ${h.counts.lines} lines follow it, the file has ` +
        `${lines - 1}`,
    );
  for (const [kind, n] of Object.entries(h.counts))
    if (kind !== "lines" && (seen[kind] ?? 0) !== n)
      throw new BackupProblem(`The header says ${n} ${kind} lines, the file has ${seen[kind] ?? 0}`);
  const digest = checksum.digest();
  if (digest !== h.checksum)
    throw new BackupProblem(`The lines do not match the header's checksum (${h.checksum}; they give ${digest})`);
  return { header: h, bytes, lines };
}

export const describeCounts = (c: BackupHeader["counts"]) =>
  `${c.tools} tools, ${c.servers} servers, ${c.keys} keys, ${c.learned} tools with learned terms`;
