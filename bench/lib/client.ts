/**
 * Node clients for the app, over the test kit's (tests/support): REST calls
 * that must answer as expected, and a light room socket that timestamps
 * chat frames on arrival. Unlike the kit's socket, which keeps every frame
 * for assertions, it parses only chat responses and keeps per-request
 * figures, so a 10,000-chunk answer to 20 sockets costs the measuring
 * process little.
 */
import WebSocket from "ws";
import { chatRequest } from "../../tests/support/chat-protocol.ts";
import { request, roomsPath, signIn as signInAs } from "../../tests/support/rest-client.ts";

export { listSocketUrl, roomSocketUrl } from "../../tests/support/rest-client.ts";

export class Api {
  readonly base: string;
  constructor(base: string) {
    this.base = base;
  }

  /** `expect`: the statuses that may answer; any other throws with the body. */
  async json<T = any>(
    path: string,
    init: { method?: string; body?: unknown; expect?: number[] } = {}
  ): Promise<{ status: number; body: T }> {
    const response = await request(this.base, path, { method: init.method ?? "GET", json: init.body });
    const text = await response.text();
    let body: any = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      // keep the text
    }
    if (init.expect && !init.expect.includes(response.status)) {
      throw new Error(
        `${init.method ?? "GET"} ${path}: expected ${init.expect.join("/")}, got ${response.status}: ${text.slice(0, 500)}`
      );
    }
    return { status: response.status, body };
  }

  roomsPath(workspace: string): string {
    return roomsPath(workspace);
  }

  async createRoom(workspace: string, name: string): Promise<{ id: string; name: string }> {
    return (await this.json(this.roomsPath(workspace), { method: "POST", body: { name }, expect: [201] })).body;
  }

  async send(workspace: string, roomId: string, text: string, author = "bench"): Promise<any> {
    return (
      await this.json(`${this.roomsPath(workspace)}/${roomId}/messages`, {
        method: "POST",
        body: { text, author },
        expect: [200]
      })
    ).body;
  }

  async page(
    workspace: string,
    roomId: string,
    limit = 50,
    before?: string
  ): Promise<{ messages: any[]; nextCursor: string | null }> {
    const q = `limit=${limit}${before ? `&before=${encodeURIComponent(before)}` : ""}`;
    return (await this.json(`${this.roomsPath(workspace)}/${roomId}/messages?${q}`, { expect: [200] })).body;
  }

  /** Every stored message of a room, oldest first, by walking the pages. */
  async allMessages(workspace: string, roomId: string): Promise<any[]> {
    const pages: any[][] = [];
    let before: string | undefined;
    for (;;) {
      const page = await this.page(workspace, roomId, 200, before);
      pages.unshift(page.messages);
      if (!page.nextCursor) break;
      before = page.nextCursor;
    }
    return pages.flat();
  }
}

/** Runs `fn` over `items` with at most `limit` in flight. */
export async function pool<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i], i);
    }
  });
  await Promise.all(workers);
  return results;
}

export interface TurnTrace {
  requestId: string;
  sentAt: number;
  firstDeltaAt?: number;
  lastDeltaAt?: number;
  doneAt?: number;
  /** text-delta frames received (several model chunks may share one: the room coalesces deltas) */
  deltas: number;
  /** model chunks received: the fake's numbered chunks ("t0 ", "t1 ", …) counted inside the deltas; one per delta otherwise */
  chunks: number;
  error?: string;
}

const NUMBERED_CHUNK = /t\d+ /g;

/** How many of the fake's content chunks a delta carries. */
function chunksIn(delta: string): number {
  return Math.max(1, delta.match(NUMBERED_CHUNK)?.length ?? 0);
}

type FrameListener = (frame: any, at: number, raw: string) => void;

/**
 * A room socket. Chat response frames are traced per request id: time of
 * the first and last `text-delta`, count of deltas, time of `done`.
 * Frames for requests this socket did not send are traced too (every
 * socket in a room receives every answer).
 */
export class RoomSocket {
  readonly ws: WebSocket;
  readonly traces = new Map<string, TurnTrace>();
  framesReceived = 0;
  private listeners = new Set<FrameListener>();
  private doneWaiters = new Map<string, Array<() => void>>();
  readonly opened: Promise<void>;
  readonly closed: Promise<{ code: number }>;

  constructor(url: string, headers: Record<string, string> = {}) {
    this.ws = new WebSocket(url, { perMessageDeflate: false, headers });
    this.opened = new Promise((resolve, reject) => {
      this.ws.once("open", () => resolve());
      this.ws.once("error", reject);
      this.ws.once("close", (code) => reject(new Error(`socket closed before open: ${code}`)));
    });
    this.closed = new Promise((resolve) => this.ws.once("close", (code) => resolve({ code })));
    this.ws.on("error", () => {
      // surfaced through opened/closed
    });
    this.ws.on("message", (data, isBinary) => {
      const at = performance.now();
      this.framesReceived++;
      if (isBinary) return;
      const raw = data.toString();
      // Cheap filter: only chat response frames are traced.
      if (!raw.includes('"type":"cf_agent_use_chat_response"')) {
        if (this.listeners.size) {
          const frame = safeParse(raw);
          for (const l of this.listeners) l(frame, at, raw);
        }
        return;
      }
      const frame = safeParse(raw);
      if (!frame) return;
      let trace = this.traces.get(frame.id);
      if (!trace) {
        trace = { requestId: frame.id, sentAt: Number.NaN, deltas: 0, chunks: 0 };
        this.traces.set(frame.id, trace);
      }
      if (typeof frame.body === "string" && frame.body.includes('"text-delta"')) {
        trace.deltas++;
        trace.chunks += chunksIn(safeParse(frame.body)?.delta ?? "");
        trace.firstDeltaAt ??= at;
        trace.lastDeltaAt = at;
      }
      if (frame.error) trace.error = frame.body || "error";
      if (frame.done || frame.error) {
        trace.doneAt ??= at;
        const waiters = this.doneWaiters.get(frame.id);
        if (waiters) {
          this.doneWaiters.delete(frame.id);
          for (const w of waiters) w();
        }
      }
      for (const l of this.listeners) l(frame, at, raw);
    });
  }

  /** `headers`: e.g. a session cookie from `signIn` (a room admits a few sockets per person). */
  static async open(url: string, timeoutMs = 30_000, headers: Record<string, string> = {}): Promise<RoomSocket> {
    const socket = new RoomSocket(url, headers);
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      socket.opened,
      new Promise(
        (_, reject) =>
          (timer = setTimeout(() => reject(new Error(`socket did not open within ${timeoutMs} ms: ${url}`)), timeoutMs))
      )
    ]).finally(() => clearTimeout(timer));
    return socket;
  }

  onFrame(listener: FrameListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Sends a chat message as useAgentChat does; returns its trace. */
  sendChat(text: string, opts: { author?: string } = {}): TurnTrace {
    const { id: requestId, frame } = chatRequest(text, { author: opts.author ?? "bench" });
    const trace: TurnTrace = { requestId, sentAt: Number.NaN, deltas: 0, chunks: 0 };
    this.traces.set(requestId, trace);
    trace.sentAt = performance.now();
    this.ws.send(JSON.stringify(frame));
    return trace;
  }

  waitDone(requestId: string, timeoutMs = 120_000): Promise<TurnTrace> {
    const trace = this.traces.get(requestId);
    if (trace?.doneAt !== undefined) return Promise.resolve(trace);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`request ${requestId} not done within ${timeoutMs} ms`)),
        timeoutMs
      );
      const list = this.doneWaiters.get(requestId) ?? [];
      list.push(() => {
        clearTimeout(timer);
        resolve(this.traces.get(requestId)!);
      });
      this.doneWaiters.set(requestId, list);
      void this.closed.then(({ code }) => {
        clearTimeout(timer);
        reject(new Error(`socket closed (${code}) before request ${requestId} was done`));
      });
    });
  }

  close(): Promise<{ code: number }> {
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.close(1000);
    return this.closed;
  }
}

function safeParse(raw: string): any {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

/** Signs in as a person (the kit's sign-in): the headers that carry the session. Each call is another person. */
export async function signIn(httpBase: string, name: string): Promise<Record<string, string>> {
  return (await signInAs(httpBase, name)).headers;
}

/** Opens `count` sockets to a room, each as a different signed-in person. */
export async function openViewers(
  httpBase: string,
  url: string,
  count: number,
  prefix = "viewer"
): Promise<RoomSocket[]> {
  const people = await Promise.all(Array.from({ length: count }, (_, i) => signIn(httpBase, `${prefix}${i}`)));
  return Promise.all(people.map((headers) => RoomSocket.open(url, 30_000, headers)));
}
