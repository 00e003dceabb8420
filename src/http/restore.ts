/**
 * The Worker's half of a restore (POST /v1/tenants/{tenant}/restore): reads the backup as a stream, never whole, and
 * checks every line as it comes (JSON, depth, Unicode, its type's schema under this deployment's limits, a tool's
 * hash against its content), feeding the tenant object batches it stages apart from the tenant. Only when the
 * stream has ended with exactly the lines the header counts and the checksum it names does the object move the
 * staged backup into place, in one transaction. Any refusal, and any failure, drops what was staged: nothing of the
 * tenant changes, and a tenant that did not exist holds nothing.
 */
import { limitNote, type Limits } from "../config/limits.ts";
import {
  BackupChecksum,
  COUNT_OF,
  LineSplitter,
  parseHeader,
  parseLine,
  type BackupHeader,
  type RestoreRecord,
} from "../contract/backup.ts";
import { type errorBody, fail, ok, type Result } from "../errors.ts";
import type { Caller } from "../tenancy/keys.ts";
import type { RestoreOutcome } from "../durable/restore.ts";
import { jsonTextProblem } from "./body-guard.ts";
import { tenantStub, type TenantApi } from "./context.ts";
import { ApiFailure } from "./errors.ts";

/** A batch goes to the tenant object once it holds this many bytes of lines or this many lines. */
const BATCH_BYTES = 512 * 1024;
const BATCH_LINES = 1_000;

const NOTHING = "Nothing was restored.";

/** A refusal while reading: thrown out of the reading loop, answered as the error. */
class Refusal extends Error {
  readonly result: { ok: false; error: ReturnType<typeof errorBody> };
  constructor(result: { ok: false; error: ReturnType<typeof errorBody> }) {
    super(result.error.message);
    this.result = result;
  }
}

const refuse = (message: string, details: Record<string, unknown> = {}): never => {
  throw new Refusal(fail("invalid-request", `${message}. ${NOTHING}`, details));
};

/** Reads a body as UTF-8 text, a chunk at a time, refusing it past `max_restore_bytes` or when not UTF-8. */
class BodyText {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
  private readonly limits: Limits;
  bytes = 0;

  constructor(body: ReadableStream<Uint8Array>, limits: Limits) {
    this.reader = body.getReader();
    this.limits = limits;
  }

  /** The next piece of text, or null at the end. */
  async next(): Promise<string | null> {
    const { done, value } = await this.reader.read();
    try {
      if (done) {
        const rest = this.decoder.decode();
        return rest === "" ? null : rest;
      }
      this.bytes += value.byteLength;
      if (this.bytes > this.limits.max_restore_bytes) {
        throw new Refusal(
          fail(
            "payload-too-large",
            `The backup is larger than ${this.limits.max_restore_bytes} bytes, the most a restore takes here ` +
              `${limitNote("max_restore_bytes", this.limits)}. ${NOTHING}`,
          ),
        );
      }
      return this.decoder.decode(value, { stream: true });
    } catch (e) {
      if (e instanceof Refusal) throw e;
      return refuse(`The backup is not valid UTF-8 (after byte ${this.bytes})`);
    }
  }

  cancel(): void {
    this.reader.cancel().catch(() => {});
  }
}

/** Reads lines from a body: each complete line, with its number, bounded in length by `max_body_bytes`. */
class BodyLines {
  private readonly text: BodyText;
  private readonly splitter = new LineSplitter();
  private readonly ready: string[] = [];
  private readonly limits: Limits;
  private ended = false;
  /** The number of the last line returned (1 is the header). */
  number = 0;

  constructor(text: BodyText, limits: Limits) {
    this.text = text;
    this.limits = limits;
  }

  private tooLong(line: number): never {
    throw new Refusal(
      fail(
        "payload-too-large",
        `Line ${line} is longer than ${this.limits.max_body_bytes} bytes, more than any line of a backup can be ` +
          `${limitNote("max_body_bytes", this.limits)}. ${NOTHING}`,
        { line },
      ),
    );
  }

  async next(): Promise<string | null> {
    while (this.ready.length === 0) {
      if (this.ended) return null;
      const chunk = await this.text.next();
      if (chunk === null) {
        this.ended = true;
        const last = this.splitter.end();
        if (last !== null) this.ready.push(last);
      } else {
        this.ready.push(...this.splitter.push(chunk));
        // Characters are at most as many as bytes: a line waiting for its end is refused as soon as it is too long.
        if (this.splitter.pending > this.limits.max_body_bytes) this.tooLong(this.number + this.ready.length + 1);
      }
    }
    const line = this.ready.shift()!;
    this.number += 1;
    if (
      line.length * 3 > this.limits.max_body_bytes &&
      new TextEncoder().encode(line).length > this.limits.max_body_bytes
    )
      this.tooLong(this.number);
    return line;
  }
}

/** Reads and checks the header line; null body or an empty one is refused. */
export async function readHeader(
  body: ReadableStream<Uint8Array> | null,
  declaredBytes: number | null,
  limits: Limits,
): Promise<Result<{ header: BackupHeader; lines: BodyLines; text: BodyText }>> {
  if (declaredBytes !== null && declaredBytes > limits.max_restore_bytes)
    return fail(
      "payload-too-large",
      `The backup is ${declaredBytes} bytes, more than a restore takes here ` +
        `${limitNote("max_restore_bytes", limits)}. ${NOTHING}`,
    );
  if (!body) return fail("invalid-request", `Send the backup (NDJSON, from GET .../backup) as the body. ${NOTHING}`);
  const text = new BodyText(body, limits);
  const lines = new BodyLines(text, limits);
  try {
    const first = await lines.next();
    if (first === null) return fail("invalid-request", `The body is empty: send a backup. ${NOTHING}`);
    const parsed = parseHeader(first.replace(/^\uFEFF/, ""));
    if ("problem" in parsed) return fail("invalid-request", `${parsed.problem}. ${NOTHING}`, { line: 1 });
    return ok({ header: parsed.header, lines, text });
  } catch (e) {
    text.cancel();
    if (e instanceof Refusal) return e.result;
    throw e;
  }
}

/**
 * Restores the backup whose header has been read into `tenantId`: begins, streams the rest in batches, verifies
 * counts and checksum, commits. Any refusal or failure after the beginning drops what was staged.
 */
export async function restoreStream(
  env: Env,
  tenantId: string,
  caller: Caller,
  opened: { header: BackupHeader; lines: BodyLines; text: BodyText },
  limits: Limits,
): Promise<Result<RestoreOutcome>> {
  const { header, lines, text } = opened;
  const stub: TenantApi = tenantStub(env, tenantId);
  const begun = await stub.restoreBegin(caller, header);
  if (!begun.ok) {
    text.cancel();
    return begun;
  }
  const { restoreId } = begun.value;
  try {
    const result = await feed(stub, caller, restoreId, header, lines, limits);
    if (!result.ok) {
      await stub.restoreAbort(caller, restoreId);
      return result;
    }
    const committed = await stub.restoreCommit(caller, restoreId, tenantId);
    if (!committed.ok) await stub.restoreAbort(caller, restoreId);
    return committed;
  } catch (e) {
    text.cancel();
    // The object may have been reset under us: a fresh stub drops what was staged (the alarm would, later).
    await tenantStub(env, tenantId)
      .restoreAbort(caller, restoreId)
      .catch(() => {});
    if (e instanceof Refusal) return e.result;
    if (e instanceof ApiFailure) return { ok: false, error: e.body };
    throw e;
  }
}

async function feed(
  stub: TenantApi,
  caller: Caller,
  restoreId: string,
  header: BackupHeader,
  lines: BodyLines,
  limits: Limits,
): Promise<Result<null>> {
  const checksum = new BackupChecksum();
  const seen = { settings: 0, synonyms: 0, keys: 0, learned: 0, servers: 0, tools: 0 };
  let batch: RestoreRecord[] = [];
  let batchBytes = 0;
  let count = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const appended = await stub.restoreAppend(caller, restoreId, batch);
    batch = [];
    batchBytes = 0;
    if (!appended.ok) throw new Refusal(appended);
  };
  for (let text = await lines.next(); text !== null; text = await lines.next()) {
    const n = lines.number;
    count += 1;
    if (count > header.counts.lines)
      refuse(`Line ${n}: the header says ${header.counts.lines} lines follow it; this one is extra`, { line: n });
    if (text === "") refuse(`Line ${n} is empty`, { line: n });
    const problem = jsonTextProblem(text, limits.max_json_depth);
    if (problem?.kind === "depth")
      refuse(`Line ${n} nests deeper than ${limits.max_json_depth} levels ${limitNote("max_json_depth", limits)}`, {
        line: n,
      });
    if (problem?.kind === "surrogate") refuse(`Line ${n} holds a lone UTF-16 surrogate escape`, { line: n });
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      refuse(`Line ${n} is not JSON (a line was cut or changed)`, { line: n });
    }
    const parsed = await parseLine(raw, n, limits);
    if ("problem" in parsed) refuse(parsed.problem, { line: n });
    const record = (parsed as { record: RestoreRecord }).record;
    const kind = COUNT_OF[record.type];
    seen[kind] += 1;
    if (seen[kind] > header.counts[kind])
      refuse(`Line ${n}: more ${kind} lines than the header's ${header.counts[kind]}`, { line: n });
    checksum.add(text);
    batch.push(record);
    batchBytes += text.length;
    if (batchBytes >= BATCH_BYTES || batch.length >= BATCH_LINES) await flush();
  }
  if (count < header.counts.lines)
    refuse(
      `The backup is truncated: the header says ${header.counts.lines} lines follow it, the body ends after ` +
        `${count} (line ${lines.number})`,
      { lines_expected: header.counts.lines, lines_received: count },
    );
  const digest = checksum.digest();
  if (digest !== header.checksum)
    refuse(
      `The backup's lines do not match the header's checksum (${header.checksum}; the lines give ${digest}): a line ` +
        `was changed, added, lost or reordered`,
    );
  await flush();
  return ok(null);
}
