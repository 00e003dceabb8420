/**
 * Starts the Worker under `wrangler dev` on a free loopback port, for scripts and end-to-end tests
 * that need the real local runtime (not the test pool): restarts, load, MCP clients, the upload CLI.
 *
 * The operator token and the other variables reach wrangler in a `.dev.vars` file of their own
 * (mode 0600, in a fresh private directory, given with `--env-file`), never on its command line,
 * where any user of the machine could read them in the process list.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

export interface LocalWorker {
  url: string;
  port: number;
  /** Process group of wrangler and its workerd (for resource readings). */
  pid: number;
  adminToken: string;
  /** Where Durable Object storage lives; start another worker on it to simulate a restart. */
  persistTo: string;
  stop(): Promise<void>;
  /** Kills wrangler and workerd at once (SIGKILL), as a crash would: nothing gets to flush or clean up. */
  kill(): Promise<void>;
}

export interface LocalWorkerOptions {
  persistTo?: string;
  adminToken?: string;
  port?: number;
  /** Open the DevTools inspector on this port (for heap readings of the worker's isolate). */
  inspectorPort?: number;
  /** Extra variables (written to the worker's private `.dev.vars`, like the operator token). */
  vars?: Record<string, string>;
  /** Print wrangler's output (default: only on failure). */
  verbose?: boolean;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Attempts at starting when the port was taken between `freePort` and wrangler's bind (other processes race). */
const BIND_ATTEMPTS = 3;

export async function startLocalWorker(options: LocalWorkerOptions = {}): Promise<LocalWorker> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options.port ?? (await freePort()), options);
    } catch (error) {
      const taken = error instanceof Error && /address already in use|EADDRINUSE/i.test(error.message);
      if (!taken || attempt === BIND_ATTEMPTS) throw error;
      // A fixed port may be freed by a process still exiting; a chosen one is chosen again.
      await new Promise((r) => setTimeout(r, 500 * attempt));
    }
  }
}

async function startOnce(port: number, options: LocalWorkerOptions): Promise<LocalWorker> {
  const persistTo = options.persistTo ?? mkdtempSync(join(tmpdir(), "tool-search-"));
  const adminToken = options.adminToken ?? `op_${randomBytes(18).toString("base64url")}`;
  const varsFile = join(mkdtempSync(join(tmpdir(), "tool-search-vars-")), ".dev.vars");
  // Single quotes: the value is taken literally (JSON such as LIMITS included).
  const lines = Object.entries({ ADMIN_TOKEN: adminToken, ...options.vars }).map(([k, v]) => {
    if (/['\n]/.test(v)) throw new Error(`${k}: a variable for wrangler dev cannot hold ' or a line break`);
    return `${k}='${v}'`;
  });
  writeFileSync(varsFile, `${lines.join("\n")}\n`, { mode: 0o600 });
  const child: ChildProcess = spawn(
    join(root, "node_modules", ".bin", "wrangler"),
    [
      "dev",
      "--ip",
      "127.0.0.1",
      "--port",
      String(port),
      "--persist-to",
      persistTo,
      "--show-interactive-dev-session=false",
      ...(options.inspectorPort ? ["--inspector-port", String(options.inspectorPort)] : []),
      "--env-file",
      varsFile,
    ],
    {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "1" },
      detached: true,
    },
  );
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
    if (options.verbose) process.stderr.write(chunk);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const url = `http://127.0.0.1:${port}`;
  // Signals go to the whole process group (wrangler and its workerd), and both ways of stopping wait
  // until every member is gone: a workerd still flushing storage must not overlap a worker restarted
  // on the same directory.
  const group = -child.pid!;
  const alive = () => {
    try {
      process.kill(group, 0);
      return true;
    } catch {
      return false;
    }
  };
  const gone = async (ms: number) => {
    for (const until = Date.now() + ms; Date.now() < until; ) {
      if (!alive()) return true;
      await new Promise((r) => setTimeout(r, 50));
    }
    return !alive();
  };
  const forgetVars = () => rmSync(dirname(varsFile), { recursive: true, force: true });
  const stop = async () => {
    if (alive()) {
      process.kill(group, "SIGTERM");
      if (!(await gone(10_000))) {
        process.kill(group, "SIGKILL");
        await gone(10_000);
      }
    }
    forgetVars();
  };
  const kill = async () => {
    if (alive()) {
      process.kill(group, "SIGKILL");
      await gone(10_000);
    }
    forgetVars();
  };
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited (${child.exitCode}):\n${output}`);
    if (/address already in use/i.test(output)) {
      await stop();
      throw new Error(`wrangler dev could not bind port ${port}: address already in use\n${output}`);
    }
    try {
      // Only once wrangler says it bound the port: before that, whatever answers there is somebody else's.
      const ready = output.includes(`Ready on ${url}`);
      if (ready && (await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5_000) })).ok)
        return { url, port, pid: child.pid!, adminToken, persistTo, stop, kill };
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  await stop();
  throw new Error(`wrangler dev did not answer within 2 minutes:\n${output}`);
}
