/**
 * Helpers for tests that run inside workerd. Requests go through the real
 * Worker entry (`exports.default.fetch`), so routing, validation and the
 * gate are all in the path.
 */
import { exports } from "cloudflare:workers";
import type { RoomDetail } from "../../src/shared/protocol";

export const BASE = "http://rooms.test";

export function uniqueName(prefix = "t"): string {
  return `${prefix}-${crypto.randomUUID().slice(0, 8)}`;
}

export function api(path: string, init: RequestInit & { json?: unknown } = {}): Promise<Response> {
  const { json, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (json !== undefined) headers.set("content-type", "application/json");
  return exports.default.fetch(
    new Request(`${BASE}${path}`, { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body })
  );
}

export async function createRoom(workspace: string, body: Record<string, unknown> = {}): Promise<RoomDetail> {
  const response = await api(`/api/workspaces/${workspace}/rooms`, {
    method: "POST",
    json: { name: "Room", ...body }
  });
  if (response.status !== 201) throw new Error(`create failed: ${response.status} ${await response.text()}`);
  return response.json();
}

export interface TestSocket {
  ws: WebSocket;
  frames: unknown[];
  /** Resolves with the first frame (parsed JSON) matching the predicate, past or future. */
  next<T = any>(predicate: (frame: any) => boolean, timeoutMs?: number): Promise<T>;
  closed: Promise<{ code: number; reason: string }>;
  send(frame: unknown): void;
}

export async function connect(path: string, headers: Record<string, string> = {}): Promise<TestSocket> {
  const response = await exports.default.fetch(`${BASE}${path}`, { headers: { Upgrade: "websocket", ...headers } });
  const ws = response.webSocket;
  if (response.status !== 101 || !ws) {
    throw new Error(`expected a WebSocket upgrade, got ${response.status}: ${await response.text()}`);
  }
  ws.accept();
  const frames: unknown[] = [];
  const waiters = new Set<{ predicate: (f: any) => boolean; resolve: (f: any) => void }>();
  ws.addEventListener("message", (event) => {
    let frame: unknown;
    try {
      frame = JSON.parse(
        typeof event.data === "string" ? event.data : new TextDecoder().decode(event.data as ArrayBuffer)
      );
    } catch {
      frame = event.data; // a non-JSON frame: kept raw for assertions
    }
    frames.push(frame);
    for (const waiter of [...waiters]) {
      if (waiter.predicate(frame)) {
        waiters.delete(waiter);
        waiter.resolve(frame);
      }
    }
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.addEventListener("close", (event) => resolve({ code: event.code, reason: event.reason }))
  );
  return {
    ws,
    frames,
    closed,
    send: (frame) => ws.send(typeof frame === "string" ? frame : JSON.stringify(frame)),
    next(predicate, timeoutMs = 10_000) {
      const seen = frames.find(predicate);
      if (seen !== undefined) return Promise.resolve(seen as any);
      return new Promise((resolve, reject) => {
        const waiter = { predicate, resolve };
        waiters.add(waiter);
        setTimeout(() => {
          if (waiters.delete(waiter))
            reject(new Error(`no matching frame within ${timeoutMs} ms; got ${JSON.stringify(frames).slice(0, 2000)}`));
        }, timeoutMs);
      });
    }
  };
}

export interface SignedIn {
  user: { id: string; name: string; kind: string };
  /** The `Cookie` header value that carries the session. */
  cookie: string;
  headers: { cookie: string };
}

/** POST /api/session through the real Worker: a second call is a second person. */
export async function signIn(name: string, extra: Record<string, unknown> = {}): Promise<SignedIn> {
  const response = await api("/api/session", { method: "POST", json: { name, ...extra } });
  if (response.status !== 200) throw new Error(`sign-in failed: ${response.status} ${await response.text()}`);
  const cookie = sessionCookie(response);
  const { user } = await response.json<{ user: SignedIn["user"] }>();
  return { user, cookie, headers: { cookie } };
}

/** The `name=value` of the session cookie a response sets. */
export function sessionCookie(response: Response): string {
  const header = response.headers.get("set-cookie") ?? "";
  const match = header.match(/rooms_session=[^;]+/);
  if (!match) throw new Error(`no session cookie in: ${header}`);
  return match[0];
}

export function roomPath(workspace: string, roomId: string): string {
  return `/agents/overseer-agent/${workspace}/sub/chat-room/${roomId}`;
}

export { chatRequest, isDone } from "../support/chat-protocol";
