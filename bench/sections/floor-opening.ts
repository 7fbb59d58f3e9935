/**
 * The floor section's opening phase (issue 25): open → first page, for
 * rooms of 10 and 500 messages, Rooms beside the bare AIChatAgent facet and
 * the relay design, warm (each room has just been written to). A room
 * switch is the most frequent action in a multi-room app.
 *
 * What "first page" is, per design, is what its client waits for before it
 * can draw the room:
 * - Rooms: the socket opened with `?page=50` sends the newest page, the
 *   state and who is here in one frame (`rooms_opened`); the client asks
 *   REST for the same page at once and takes whichever comes first.
 * - bare facet: `useAgentChat` opens the socket and fetches the transcript
 *   over HTTP (`…/get-messages`) at once; the page is that response.
 * - relay design: the same, with the parent's history route (`?room=`).
 *
 * Beside the time, what an open costs its server's one thread (a room
 * switch is one open and one close): workerd CPU per open, socket close
 * included.
 */
import WebSocket from "ws";
import { RoomSocket } from "../lib/client.ts";
import { groupCpuMs } from "../lib/proc.ts";
import { type BenchContext, type SectionResult, value } from "../lib/section.ts";
import { median, summarize } from "../lib/stats.ts";

/** One design's room, and how its client opens it. */
export interface OpeningTarget {
  label: string;
  /** A room's socket URL, to fill it with turns. */
  url: string;
  /** Opens the room as its client does, and says how. */
  open(): Promise<Opened>;
  /** The process group of the server it runs on (for the workerd CPU an open costs). */
  server: number;
}

/** One open of a room. */
interface Opened {
  /** messages of the first page */
  count: number;
  /** open → that page, ms */
  ms: number;
  /** Rooms: which of its two ways brought the page first, and open → the socket's opening frame (page, state, presence) */
  by?: "socket" | "rest";
  socketMs?: number;
}

/** An open that has not brought its page (and, for Rooms, its socket's frame) within this fails. */
const OPEN_LIMIT_MS = 10_000;

const SIZES = [10, 500] as const;
const PAGE = 50;

/** The bare facet and the relay design: the socket and the history request at once; the page is the response. */
export function socketAndHistory(url: string, history: () => Promise<unknown[]>): () => Promise<Opened> {
  return async () => {
    const t0 = performance.now();
    const ws = new WebSocket(url, { perMessageDeflate: false });
    ws.on("error", () => {});
    try {
      const count = (await history()).length;
      return { count, ms: performance.now() - t0 };
    } finally {
      ws.close();
    }
  };
}

/**
 * Rooms: the socket opened with `?page=` and the same page over REST at
 * once, as the client does (src/client/lib/opened-page.ts); the page is
 * whichever comes first. Then the socket's own frame (which also brings the
 * state and presence) is awaited, outside the time to the page, so a slower
 * frame shows in its own figure and no socket outlives its open.
 */
export function roomsOpen(url: string, restPage: (limit: number) => Promise<unknown[]>): () => Promise<Opened> {
  return async () => {
    const t0 = performance.now();
    const ws = new WebSocket(`${url}?page=${PAGE}`, { perMessageDeflate: false });
    let socketError = "";
    ws.on("error", (error) => {
      socketError = `: ${error.message}`;
    });
    const socketPage = new Promise<{ count: number; at: number }>((resolve, reject) => {
      ws.on("message", (data) => {
        const raw = data.toString();
        if (!raw.includes('"rooms_opened"')) return;
        try {
          resolve({
            count: (JSON.parse(raw) as { page: { messages: unknown[] } }).page.messages.length,
            at: performance.now()
          });
        } catch (error) {
          reject(error);
        }
      });
      ws.on("close", () => reject(new Error(`the socket closed before its opening frame${socketError}`)));
    });
    const rest = restPage(PAGE).then((messages) => ({ count: messages.length, at: performance.now() }));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no page within ${OPEN_LIMIT_MS / 1000} s`)), OPEN_LIMIT_MS);
    });
    try {
      const first = await Promise.race([
        Promise.any([
          socketPage.then((p) => ({ ...p, by: "socket" as const })),
          rest.then((p) => ({ ...p, by: "rest" as const }))
        ]),
        limit
      ]).catch((error: unknown) => {
        const reasons = error instanceof AggregateError ? error.errors.map(String).join("; ") : String(error);
        throw new Error(`Rooms: ${reasons}`);
      });
      const frame = await Promise.race([socketPage, limit]);
      return { count: first.count, ms: first.at - t0, by: first.by, socketMs: frame.at - t0 };
    } finally {
      clearTimeout(timer);
      ws.close();
      // No loser may surface as an unhandled rejection.
      for (const p of [socketPage, rest, limit]) p.catch(() => {});
    }
  };
}

/** Each server's workerd CPU now (ms), by process group. */
function workerdCpu(targets: OpeningTarget[]): Map<number, number> {
  return new Map(targets.map((t) => [t.server, groupCpuMs(t.server).workerd]));
}

/** The last open's close has been handled: no server's workerd CPU moved for a while (at most 2 s). */
async function settled(targets: OpeningTarget[]) {
  let last = workerdCpu(targets);
  for (let waited = 0; waited < 2_000; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = workerdCpu(targets);
    if ([...now].every(([pid, ms]) => ms === last.get(pid))) return;
    last = now;
  }
}

/**
 * What opening a room costs its server's thread: workerd CPU per open as the
 * client opens it (socket, first page, and the socket's close), all of a
 * design's opens over their count. Only where each design has a server of
 * its own (a full run), so no design's CPU counts for another's.
 */
function reportOpenCpu(
  out: SectionResult,
  targets: OpeningTarget[],
  before: Map<number, number>,
  size: number,
  runs: number
) {
  if (new Set(targets.map((t) => t.server)).size < targets.length) return;
  const after = workerdCpu(targets);
  for (const t of targets) {
    const ms = (after.get(t.server) ?? 0) - (before.get(t.server) ?? 0);
    out.figures[`open and close a room, ${size} messages: workerd CPU per open: ${t.label}`] = value(
      ms / runs,
      "ms",
      1
    );
  }
}

/** Fills each target's room with `messages` messages (half questions, half 1-chunk answers). */
async function fill(targets: OpeningTarget[], messages: number) {
  for (const t of targets) {
    let socket = await RoomSocket.open(t.url);
    for (let i = 0; i < messages / 2; i++) {
      // A fresh socket every few sends: Rooms' per-socket send burst (as in the turns phase).
      if (i > 0 && i % 8 === 0) {
        await socket.close();
        socket = await RoomSocket.open(t.url);
      }
      const trace = socket.sendChat(`[[fake:chunks=1]] message ${i} of a room being opened`);
      await socket.waitDone(trace.requestId);
    }
    await socket.close();
  }
}

/**
 * Open → first page per design and size, the designs alternating so they
 * share the machine's load; `rooms(size)` gives each design's fresh room.
 */
export async function opening(
  ctx: BenchContext,
  out: SectionResult,
  rooms: (size: number) => Promise<OpeningTarget[]>,
  runs: number
) {
  for (const size of SIZES) {
    const targets = await rooms(size);
    ctx.log(`floor: filling ${targets.length} rooms with ${size} messages, then ${runs} opens each …`);
    await fill(targets, size);
    const opens = new Map<string, Opened[]>(targets.map((t) => [t.label, []]));
    let cpuBefore = new Map<number, number>();
    for (let i = -2; i < runs; i++) {
      if (i === 0) cpuBefore = workerdCpu(targets);
      for (const t of targets) {
        const opened = await t.open();
        if (opened.count < Math.min(size, PAGE)) {
          throw new Error(`${t.label}: opened with ${opened.count} of ${size} messages`);
        }
        if (i >= 0) opens.get(t.label)?.push(opened);
      }
    }
    await settled(targets);
    reportOpenCpu(out, targets, cpuBefore, size, runs);
    const times = new Map([...opens].map(([label, list]) => [label, list.map((o) => o.ms)]));
    for (const [label, list] of opens) {
      out.figures[`open → first page, ${size} messages: ${label}`] = summarize(
        list.map((o) => o.ms),
        "ms"
      );
      const bySocket = list.filter((o) => o.socketMs !== undefined);
      if (bySocket.length === 0) continue;
      out.figures[`open → the socket's opening frame (page, state, presence), ${size} messages: ${label}`] = summarize(
        bySocket.map((o) => o.socketMs as number),
        "ms"
      );
      out.figures[`open → first page, ${size} messages: ${label}: the REST page came first`] = value(
        (bySocket.filter((o) => o.by === "rest").length * 100) / bySocket.length,
        "%",
        0
      );
    }
    const ours = times.get("Rooms");
    const relay = times.get("relay");
    if (ours?.length && relay?.length) {
      out.figures[`targets: Rooms' open → first page ÷ the relay design's (${size} messages, medians; target ≤ 1.0)`] =
        value(median(ours) / median(relay), "×", 2);
    }
  }
}
