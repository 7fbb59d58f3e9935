/**
 * workerd's V8 inspector (a server started with ROOMS_INSPECTOR_PORT): a
 * DevTools protocol session, and one Worker isolate's memory. workerd's RSS
 * holds much more than the app's Worker: its native request buffers and,
 * locally, the R2 bucket's own services (which have no inspector target);
 * the isolate's figure is the app's own memory alone.
 *
 * `Runtime.getHeapUsage` answers for the whole isolate (every Durable Object
 * of the Worker shares it): usedSize is V8's JS heap (garbage too, until
 * collected), embedderHeapUsedSize workerd's garbage-collected C++ heap,
 * backingStorageSize the bytes behind ArrayBuffers (where an upload's chunks
 * and R2 part live). Checked by evaluating `new Uint8Array(20 MiB)` in the
 * isolate (Runtime.evaluate): backingStorageSize grew by exactly 20 MiB,
 * usedSize by 0.3 MB, and both came back after a collection. workerd's
 * native buffers (its copy of a body on the way to R2) are not in it.
 *
 * `HeapProfiler.collectGarbage` only queues the collection as a task on the
 * isolate, which workerd runs the next time a request enters it (unanswered
 * for minutes otherwise): `forceGc` sends requests in after it (`poke`).
 */
import WebSocket from "ws";

interface CdpSession {
  /** Resolves with the method's result, or its error object. */
  send(method: string, params?: Record<string, unknown>): Promise<any>;
  close(): void;
}

/** A Chrome DevTools Protocol session on an inspector target's WebSocket URL. */
export async function cdp(url: string): Promise<CdpSession> {
  const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: 1024 * 1024 * 1024 });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  let next = 1;
  const pending = new Map<number, (result: any) => void>();
  ws.on("message", (data) => {
    const message = JSON.parse(data.toString());
    if (message.id && pending.has(message.id)) {
      pending.get(message.id)!(message.result ?? message.error);
      pending.delete(message.id);
    }
  });
  return {
    send(method: string, params: Record<string, unknown> = {}): Promise<any> {
      const id = next++;
      ws.send(JSON.stringify({ id, method, params }));
      return new Promise((resolve) => pending.set(id, resolve));
    },
    close: () => ws.close()
  };
}

/** The inspector's targets: one per Worker (miniflare's internal services have none). */
export async function inspectorTargets(port: number): Promise<Array<{ title?: string; webSocketDebuggerUrl: string }>> {
  return (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as Array<{
    title?: string;
    webSocketDebuggerUrl: string;
  }>;
}

/** A session on the Worker named `worker` (its target's URL ends in its name). */
export async function workerSession(port: number, worker: string): Promise<CdpSession> {
  const targets = await inspectorTargets(port);
  const target = targets.find((t) => t.webSocketDebuggerUrl.endsWith(`/${worker}`));
  if (!target) throw new Error(`no inspector target for ${worker}: ${targets.map((t) => t.webSocketDebuggerUrl)}`);
  const session = await cdp(target.webSocketDebuggerUrl);
  await session.send("HeapProfiler.enable");
  return session;
}

/** Bytes, as Runtime.getHeapUsage reports them. */
interface IsolateMemory {
  jsHeap: number;
  embedder: number;
  arrayBuffers: number;
  total: number;
}

async function isolateMemory(session: CdpSession): Promise<IsolateMemory> {
  const usage = await session.send("Runtime.getHeapUsage");
  if (typeof usage?.usedSize !== "number" || typeof usage.backingStorageSize !== "number")
    throw new Error(`Runtime.getHeapUsage answered ${JSON.stringify(usage)}`);
  const embedder = usage.embedderHeapUsedSize ?? 0;
  return {
    jsHeap: usage.usedSize,
    embedder,
    arrayBuffers: usage.backingStorageSize,
    total: usage.usedSize + embedder + usage.backingStorageSize
  };
}

/** A full collection in the isolate: queued, then run by the request `poke` sends in. */
async function forceGc(session: CdpSession, poke: () => Promise<unknown>): Promise<void> {
  let collected = false;
  const collection = session.send("HeapProfiler.collectGarbage").then(() => {
    collected = true;
  });
  // Messages are handled in order: once this answers, the collection is queued.
  await session.send("Runtime.getHeapUsage");
  for (let pokes = 0; !collected; pokes++) {
    if (pokes === 10) throw new Error("HeapProfiler.collectGarbage unanswered after 10 requests into the isolate");
    await poke();
    await Promise.race([collection, new Promise((resolve) => setTimeout(resolve, 1_000))]);
  }
}

/** Growth over a floor, per figure, in bytes. */
function growth(m: IsolateMemory, floor: IsolateMemory): IsolateMemory {
  return {
    jsHeap: m.jsHeap - floor.jsHeap,
    embedder: m.embedder - floor.embedder,
    arrayBuffers: m.arrayBuffers - floor.arrayBuffers,
    total: m.total - floor.total
  };
}

function maxOf(a: IsolateMemory, b: IsolateMemory): IsolateMemory {
  return {
    jsHeap: Math.max(a.jsHeap, b.jsHeap),
    embedder: Math.max(a.embedder, b.embedder),
    arrayBuffers: Math.max(a.arrayBuffers, b.arrayBuffers),
    total: Math.max(a.total, b.total)
  };
}

export interface IsolateGrowth {
  /** Each figure's own peak growth over the floor (after a forced collection, just before). */
  peak: IsolateMemory;
  /** Growth still there after the work and another forced collection: what it kept. */
  kept: number;
  samples: number;
}

/**
 * The isolate's peak growth while `work` runs, garbage included: read as
 * often as the inspector answers (one request after another). workerd
 * answers about 1,000 times a second when idle but only a few times during
 * a full-speed upload (replies waited up to 2 s), so this is a lower bound
 * of the true peak, which also depends on when V8 chooses to collect.
 */
export async function sampledGrowth(
  session: CdpSession,
  poke: () => Promise<unknown>,
  work: () => Promise<unknown>
): Promise<IsolateGrowth> {
  await forceGc(session, poke);
  const floor = await isolateMemory(session);
  let peak = floor;
  let samples = 0;
  let done = false;
  const sampler = (async () => {
    while (!done) {
      peak = maxOf(peak, await isolateMemory(session));
      samples++;
    }
  })();
  try {
    await work();
  } finally {
    done = true;
    await sampler;
  }
  peak = maxOf(peak, await isolateMemory(session));
  await forceGc(session, poke);
  return { peak: growth(peak, floor), kept: (await isolateMemory(session)).total - floor.total, samples };
}

/**
 * What `work` holds alive: `work` calls `step` at points where the isolate
 * is idle (a paced upload, between its slices), and each step waits
 * `settleMs` for the isolate to finish with what it was sent, collects
 * garbage and reads the isolate. The peak is of the live set alone.
 */
export async function liveGrowth(
  session: CdpSession,
  poke: () => Promise<unknown>,
  work: (step: () => Promise<void>) => Promise<unknown>,
  settleMs = 200
): Promise<IsolateGrowth> {
  await forceGc(session, poke);
  const floor = await isolateMemory(session);
  let peak = floor;
  let samples = 0;
  await work(async () => {
    await new Promise((resolve) => setTimeout(resolve, settleMs));
    await forceGc(session, poke);
    peak = maxOf(peak, await isolateMemory(session));
    samples++;
  });
  await forceGc(session, poke);
  return { peak: growth(peak, floor), kept: (await isolateMemory(session)).total - floor.total, samples };
}
