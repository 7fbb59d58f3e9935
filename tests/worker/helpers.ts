/**
 * Helpers for tests that run inside workerd: the shared test kit
 * (tests/support) with the real Worker entry (`exports.default.fetch`) as
 * its fetch, so routing, validation and the gate are all in the path.
 *
 * Each test is its own anonymous client: a request that names no
 * `cf-connecting-ip` comes from an address of its test's own (testAddress).
 * Rate limits are per identity across every workspace (LimitKeeper), and
 * the anonymous API identity is told apart by address, so tests sharing
 * one address would share one allowance across the whole pool and refuse
 * each other's requests; signed-in people are distinct anyway.
 */
import { exports } from "cloudflare:workers";
import { afterEach, expect } from "vitest";
import type { MessagePage, RoomDetail, RoomSummary } from "../../src/shared/protocol";
import { createFrameLog, type Frame, type FrameLog } from "../support/frame-log";
import {
  type Fetcher,
  type RequestOptions,
  request,
  restClient,
  type SignedIn,
  sessionCookie,
  signIn as signInAt
} from "../support/rest-client";
import { uniqueName } from "../support/wait";

export const BASE = "http://rooms.test";

/** The address of the running test (of its file, in a hook outside any test): an IPv6 /64 of its own. */
function testAddress(): string {
  const { testPath, currentTestName } = expect.getState();
  let hash = 0x811c9dc5;
  for (const char of `${testPath ?? ""}\0${currentTestName ?? ""}`) {
    hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
  }
  const hex = hash.toString(16).padStart(8, "0");
  return `2001:db8:${hex.slice(0, 4)}:${hex.slice(4)}::1`;
}

/** The Worker's fetch, from the running test's address unless the request names one. */
export function fetchWorker(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const req = new Request(input, init);
  if (!req.headers.has("cf-connecting-ip")) req.headers.set("cf-connecting-ip", testAddress());
  return exports.default.fetch(req);
}

const workerFetch: Fetcher = (req) => fetchWorker(req);

export function api(path: string, init: RequestOptions = {}): Promise<Response> {
  return request(BASE, path, init, workerFetch);
}

export function createRoom(workspace: string, body: Record<string, unknown> = {}): Promise<RoomDetail> {
  return restClient(BASE, { workspace, fetcher: workerFetch }).createRoom({ name: "Room", ...body });
}

export interface TestSocket extends Pick<FrameLog, "frames" | "next"> {
  ws: WebSocket;
  closed: Promise<{ code: number; reason: string }>;
  send(frame: unknown): void;
}

export async function connect(path: string, headers: Record<string, string> = {}): Promise<TestSocket> {
  const response = await fetchWorker(`${BASE}${path}`, { headers: { Upgrade: "websocket", ...headers } });
  const ws = response.webSocket;
  if (response.status !== 101 || !ws) {
    throw new Error(`expected a WebSocket upgrade, got ${response.status}: ${await response.text()}`);
  }
  ws.accept();
  const log = createFrameLog(10_000);
  ws.addEventListener("message", (event) => {
    let frame: Frame;
    try {
      frame = JSON.parse(
        typeof event.data === "string" ? event.data : new TextDecoder().decode(event.data as ArrayBuffer)
      );
    } catch {
      frame = event.data; // a non-JSON frame: kept raw for assertions
    }
    log.record(frame);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.addEventListener("close", (event) => resolve({ code: event.code, reason: event.reason }))
  );
  return {
    ws,
    frames: log.frames,
    next: log.next,
    closed,
    send: (frame) => ws.send(typeof frame === "string" ? frame : JSON.stringify(frame))
  };
}

/** POST /api/session through the real Worker: a second call is a second person. */
export function signIn(name: string, extra: Record<string, unknown> = {}): Promise<SignedIn> {
  return signInAt(BASE, name, extra, workerFetch);
}

/**
 * POST /api/session from a given address: new sessions are limited per
 * address (RATE_LIMITS.sessionStarts), so a test that mints many people
 * mints them from the addresses they then connect from.
 */
export async function signInFrom(name: string, address: string): Promise<SignedIn> {
  const response = await api("/api/session", {
    method: "POST",
    json: { name },
    headers: { "cf-connecting-ip": address }
  });
  if (response.status !== 200) throw new Error(`sign-in failed ${response.status}: ${await response.text()}`);
  const { user } = await response.json<{ user: SignedIn["user"] }>();
  const cookie = sessionCookie(response);
  return { user, cookie, headers: { cookie } };
}

/**
 * A signed-in admin of a fresh workspace: the first person who uses a
 * workspace with no admin becomes its admin (domain/roles/workspace-roles.ts).
 */
export async function workspaceAdmin(workspace: string, name = "Admin"): Promise<SignedIn> {
  const admin = await signIn(name);
  const me = await api(`/api/workspaces/${workspace}/me`, { headers: admin.headers });
  const body = await me.json<{ role?: string }>();
  if (body.role !== "admin") throw new Error(`${name} is not the admin of ${workspace}: ${JSON.stringify(body)}`);
  return admin;
}

/**
 * A room's stored messages, newest page (`query`: e.g. "?limit=200"), as the
 * wire sends them; loosely typed, as tests assert on fields a ChatMessage
 * leaves optional.
 */
export async function history(workspace: string, roomId: string, query = ""): Promise<any[]> {
  const response = await api(`/api/workspaces/${workspace}/rooms/${roomId}/messages${query}`);
  if (response.status !== 200) throw new Error(`messages failed ${response.status}: ${await response.text()}`);
  return (await response.json<MessagePage>()).messages;
}

/** What GET .../rooms answers. */
export interface RoomList {
  rooms: RoomSummary[];
}

/** The message count the room list shows for a room (the registry learns it in the background). */
export async function listedCount(workspace: string, roomId: string): Promise<number | undefined> {
  const response = await api(`/api/workspaces/${workspace}/rooms`);
  return (await response.json<RoomList>()).rooms.find((r) => r.id === roomId)?.messageCount;
}

/** A room in a fresh workspace with one question and its answer, and its history before the test acts. */
export async function roomWithOneExchange() {
  const ws = uniqueName();
  const room = await createRoom(ws);
  const sent = await api(`/api/workspaces/${ws}/rooms/${room.id}/messages`, {
    method: "POST",
    json: { text: "original" }
  });
  if (sent.status !== 200) throw new Error(`send failed: ${sent.status} ${await sent.text()}`);
  return { ws, room, before: await history(ws, room.id) };
}

/**
 * Sockets a test opens, closed after each test whatever happened:
 * `const track = trackedSockets()`, then `await track(connect(…))`.
 */
export function trackedSockets() {
  const open: TestSocket[] = [];
  afterEach(() => {
    for (const socket of open.splice(0)) {
      try {
        socket.ws.close(1000, "test over");
      } catch {
        // already closed
      }
    }
  });
  return async (socket: Promise<TestSocket>): Promise<TestSocket> => {
    const s = await socket;
    open.push(s);
    return s;
  };
}

export function roomPath(workspace: string, roomId: string): string {
  return `/agents/overseer-agent/${workspace}/sub/chat-room/${roomId}`;
}

export { chatRequest, isDone, messageText } from "../support/chat-protocol";
export type { SignedIn } from "../support/rest-client";
export { sessionCookie } from "../support/rest-client";
export { uniqueName };
