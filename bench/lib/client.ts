/**
 * Node clients for the app: REST helpers and a light room-socket client
 * (the `ws` package) that timestamps chat frames on arrival.
 */
import { randomUUID } from "node:crypto";
import WebSocket from "ws";

export class Api {
  readonly base: string;
  constructor(base: string) {
    this.base = base;
  }

  async json<T = any>(
    path: string,
    init: { method?: string; body?: unknown; expect?: number[] } = {}
  ): Promise<{ status: number; body: T }> {
    const response = await fetch(`${this.base}${path}`, {
      method: init.method ?? "GET",
      headers: init.body !== undefined ? { "content-type": "application/json" } : undefined,
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined
    });
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
    return workspace === "default" ? "/api/rooms" : `/api/workspaces/${workspace}/rooms`;
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

  /** Waits for the first frame matching `predicate` (future frames only). */
  next(predicate: (frame: any) => boolean, timeoutMs = 30_000): Promise<any> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new Error(`no matching frame within ${timeoutMs} ms`));
      }, timeoutMs);
      const off = this.onFrame((frame) => {
        if (predicate(frame)) {
          clearTimeout(timer);
          off();
          resolve(frame);
        }
      });
    });
  }

  /** Sends a chat message as useAgentChat does; returns its trace. */
  sendChat(text: string, opts: { author?: string; requestId?: string } = {}): TurnTrace {
    const requestId = opts.requestId ?? randomUUID();
    const message = {
      id: randomUUID(),
      role: "user",
      parts: [{ type: "text", text }],
      metadata: { author: opts.author ?? "bench" }
    };
    return this.sendChatMessages([message], requestId);
  }

  /** Sends a chat request frame carrying `messages` (the client's view of the transcript). */
  sendChatMessages(messages: unknown[], requestId: string = randomUUID()): TurnTrace {
    const trace: TurnTrace = this.traces.get(requestId) ?? { requestId, sentAt: Number.NaN, deltas: 0, chunks: 0 };
    this.traces.set(requestId, trace);
    const frame = {
      type: "cf_agent_use_chat_request",
      id: requestId,
      init: { method: "POST", body: JSON.stringify({ messages, trigger: "submit-message" }) }
    };
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

export function roomSocketUrl(httpBase: string, workspace: string, roomId: string): string {
  return `${httpBase.replace(/^http/, "ws")}/agents/overseer-agent/${workspace}/sub/chat-room/${roomId}`;
}

export function listSocketUrl(httpBase: string, workspace: string): string {
  return `${httpBase.replace(/^http/, "ws")}/agents/overseer-agent/${workspace}`;
}

/**
 * Signs in as a person (POST /api/session) and returns the headers that
 * carry the session; each call is another person. Where the app has no
 * sign-in (older commits), no headers.
 */
export async function signIn(httpBase: string, name: string): Promise<Record<string, string>> {
  const response = await fetch(`${httpBase}/api/session`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name })
  });
  if (response.status === 404) return {};
  if (response.status !== 200) throw new Error(`sign-in failed ${response.status}: ${await response.text()}`);
  const cookie = response.headers.get("set-cookie")?.match(/rooms_session=[^;]+/)?.[0];
  return cookie ? { cookie } : {};
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
