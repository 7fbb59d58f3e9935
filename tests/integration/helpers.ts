/**
 * Drives a running dev server from outside, as a browser or script would:
 * plain HTTP and real WebSockets (the `ws` package) on loopback.
 */
import WebSocket from "ws";

export function uniqueName(prefix = "it"): string {
  return `${prefix}-${crypto.randomUUID().slice(0, 8)}`;
}

export interface SignedIn {
  user: { id: string; name: string; kind: string };
  /** The `Cookie` header value carrying the session. */
  cookie: string;
  headers: { cookie: string };
}

/** Signs in over HTTP as a browser would; each call is another person. */
export async function signIn(baseUrl: string, name: string, extra: Record<string, unknown> = {}): Promise<SignedIn> {
  const response = await fetch(`${baseUrl}/api/session`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name, ...extra })
  });
  if (response.status !== 200) throw new Error(`sign-in failed ${response.status}: ${await response.text()}`);
  const cookie = response.headers.get("set-cookie")?.match(/rooms_session=[^;]+/)?.[0];
  if (!cookie) throw new Error("sign-in set no session cookie");
  const { user } = (await response.json()) as { user: SignedIn["user"] };
  return { user, cookie, headers: { cookie } };
}

/** REST and socket URLs of a workspace; pass `as` to act as a signed-in person. */
export function client(baseUrl: string, workspace = "default", as?: SignedIn) {
  const root = workspace === "default" ? "/api/rooms" : `/api/workspaces/${workspace}/rooms`;
  async function call(path: string, init: RequestInit & { json?: unknown } = {}) {
    const { json, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (as && !headers.has("cookie")) headers.set("cookie", as.cookie);
    if (json !== undefined) headers.set("content-type", "application/json");
    return fetch(`${baseUrl}${root}${path}`, {
      ...rest,
      headers,
      body: json !== undefined ? JSON.stringify(json) : rest.body
    });
  }
  return {
    call,
    async createRoom(body: Record<string, unknown> = {}) {
      const response = await call("", { method: "POST", json: { name: uniqueName("room"), ...body } });
      if (response.status !== 201) throw new Error(`create failed ${response.status}: ${await response.text()}`);
      return (await response.json()) as { id: string; name: string };
    },
    async messages(roomId: string, query = "") {
      const response = await call(`/${roomId}/messages${query}`);
      if (!response.ok) throw new Error(`messages failed ${response.status}: ${await response.text()}`);
      return (await response.json()) as { messages: any[]; nextCursor: string | null };
    },
    async send(roomId: string, text: string, author?: string) {
      const response = await call(`/${roomId}/messages`, {
        method: "POST",
        json: { text, ...(author ? { author } : {}) }
      });
      return { status: response.status, body: (await response.json()) as any };
    },
    roomSocketUrl(roomId: string) {
      return `${baseUrl.replace(/^http/, "ws")}/agents/overseer-agent/${workspace}/sub/chat-room/${roomId}`;
    },
    listSocketUrl() {
      return `${baseUrl.replace(/^http/, "ws")}/agents/overseer-agent/${workspace}`;
    }
  };
}

export interface Socket {
  ws: WebSocket;
  frames: any[];
  next(predicate: (frame: any) => boolean, timeoutMs?: number): Promise<any>;
  send(frame: unknown): void;
  closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

export async function openSocket(url: string, headers: Record<string, string> = {}): Promise<Socket> {
  const ws = new WebSocket(url, { headers });
  const frames: any[] = [];
  const waiters = new Set<{ predicate: (f: any) => boolean; resolve: (f: any) => void }>();
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on("close", (code, reason) => resolve({ code, reason: reason.toString() }))
  );
  ws.on("message", (data, isBinary) => {
    let frame: any;
    try {
      frame = JSON.parse(data.toString());
    } catch {
      frame = { raw: data.toString(), isBinary }; // kept for assertions
    }
    frames.push(frame);
    for (const waiter of [...waiters]) {
      if (waiter.predicate(frame)) {
        waiters.delete(waiter);
        waiter.resolve(frame);
      }
    }
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
    ws.once("unexpected-response", (_req, res) => reject(new Error(`upgrade refused: HTTP ${res.statusCode}`)));
  });
  return {
    ws,
    frames,
    closed,
    send: (frame) => ws.send(typeof frame === "string" ? frame : JSON.stringify(frame)),
    close: () => ws.close(),
    next(predicate, timeoutMs = 15_000) {
      const seen = frames.find(predicate);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const waiter = { predicate, resolve };
        waiters.add(waiter);
        setTimeout(() => {
          if (waiters.delete(waiter)) {
            reject(
              new Error(
                `no matching frame within ${timeoutMs} ms; last frames: ${JSON.stringify(frames.slice(-5)).slice(0, 1500)}`
              )
            );
          }
        }, timeoutMs);
      });
    }
  };
}

export { chatRequest, chunksOf, isDone, isResponse, textOf } from "../support/chat-protocol";

export function messageText(message: any): string {
  return (message?.parts ?? [])
    .filter((p: any) => p.type === "text")
    .map((p: any) => p.text)
    .join("");
}

export async function waitFor<T>(
  probe: () => Promise<T>,
  accept: (value: T) => boolean,
  timeoutMs = 15_000
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await probe();
  while (!accept(last)) {
    if (Date.now() > deadline)
      throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(last).slice(0, 1500)}`);
    await new Promise((r) => setTimeout(r, 150));
    last = await probe();
  }
  return last;
}
