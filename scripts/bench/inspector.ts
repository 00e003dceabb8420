/**
 * Heap readings of the local worker's isolate through the DevTools protocol that `wrangler dev
 * --inspector-port` exposes. Locally the tenant Durable Objects run in the worker's isolate, so
 * the difference between two readings taken around loading an index is that index's memory in
 * workerd itself: with pointer compression, unlike Node.
 */
export interface HeapReading {
  /** Live JS heap after a full collection. */
  usedMb: number;
  /** ArrayBuffer backing stores (typed arrays live here), which count against the isolate too. */
  backingMb: number;
}

const MB = 1024 * 1024;

export class Inspector {
  private readonly ws: WebSocket;
  private next = 1;
  private readonly pending = new Map<number, (result: Record<string, number>) => void>();

  private constructor(ws: WebSocket) {
    this.ws = ws;
    ws.addEventListener("message", (event: MessageEvent) => {
      const message = JSON.parse(String(event.data)) as { id?: number; result?: Record<string, number> };
      const done = message.id === undefined ? undefined : this.pending.get(message.id);
      if (!done) return;
      this.pending.delete(message.id!);
      done(message.result ?? {});
    });
  }

  static async connect(port: number): Promise<Inspector> {
    const targets = (await (await fetch(`http://127.0.0.1:${port}/json`)).json()) as { webSocketDebuggerUrl: string }[];
    // The inspector proxy accepts local origins only; Node's WebSocket takes headers as an extension.
    const WebSocketWithHeaders = WebSocket as unknown as new (
      url: string,
      init: { headers: Record<string, string> },
    ) => WebSocket;
    const ws = new WebSocketWithHeaders(targets[0]!.webSocketDebuggerUrl, { headers: { origin: "http://127.0.0.1" } });
    await new Promise<void>((resolve, reject) => {
      ws.addEventListener("open", () => resolve());
      ws.addEventListener("error", () => reject(new Error("cannot connect to the worker's inspector")));
    });
    const inspector = new Inspector(ws);
    await inspector.send("HeapProfiler.enable");
    return inspector;
  }

  private send(method: string): Promise<Record<string, number>> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`inspector: no answer to ${method}`));
      }, 120_000);
      this.pending.set(id, (result) => {
        clearTimeout(timer);
        resolve(result);
      });
      this.ws.send(JSON.stringify({ id, method, params: {} }));
    });
  }

  /**
   * The heap after a full collection. workerd does not answer `HeapProfiler.collectGarbage`, but a
   * heap snapshot collects first; its chunks are discarded as they arrive.
   */
  async heap(): Promise<HeapReading> {
    await this.send("HeapProfiler.takeHeapSnapshot");
    const usage = await this.send("Runtime.getHeapUsage");
    return { usedMb: (usage.usedSize ?? NaN) / MB, backingMb: (usage.backingStorageSize ?? NaN) / MB };
  }

  /** The heap as it is (no collection first): cheap enough to read every few seconds. */
  async usage(): Promise<HeapReading> {
    const usage = await this.send("Runtime.getHeapUsage");
    return { usedMb: (usage.usedSize ?? NaN) / MB, backingMb: (usage.backingStorageSize ?? NaN) / MB };
  }

  close(): void {
    this.ws.close();
  }
}
