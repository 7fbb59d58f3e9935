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
 */
import WebSocket from "ws";
import { RoomSocket } from "../lib/client.ts";
import { type BenchContext, type SectionResult, value } from "../lib/section.ts";
import { median, summarize } from "../lib/stats.ts";

/** One design's room, and how its client opens it. */
export interface OpeningTarget {
  label: string;
  /** A room's socket URL, to fill it with turns. */
  url: string;
  /** Opens the room as its client does; resolves with the number of messages of the first page. */
  open(): Promise<number>;
}

const SIZES = [10, 500] as const;
const PAGE = 50;

/** The bare facet and the relay design: the socket and the history request at once; the page is the response. */
export function socketAndHistory(url: string, history: () => Promise<unknown[]>): () => Promise<number> {
  return async () => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    ws.on("error", () => {});
    try {
      return (await history()).length;
    } finally {
      ws.close();
    }
  };
}

/** Which of Rooms' two ways brought a first page first, over a run. */
const roomsFirstPageBy = { socket: 0, rest: 0 };

/**
 * Rooms: the socket opened with `?page=` and the same page over REST at
 * once, as the client does (src/client/lib/opened-page.ts); the page is
 * whichever comes first. The socket closes once the page is in.
 */
export function roomsOpen(url: string, restPage: (limit: number) => Promise<unknown[]>): () => Promise<number> {
  return async () => {
    const ws = new WebSocket(`${url}?page=${PAGE}`, { perMessageDeflate: false });
    ws.on("error", () => {});
    let timer: ReturnType<typeof setTimeout> | undefined;
    const socketPage = new Promise<number>((resolve, reject) => {
      timer = setTimeout(() => reject(new Error("Rooms: no rooms_opened frame within 10 s")), 10_000);
      ws.on("message", (data) => {
        const raw = data.toString();
        if (raw.includes('"rooms_opened"'))
          resolve((JSON.parse(raw) as { page: { messages: unknown[] } }).page.messages.length);
      });
      ws.on("close", () => reject(new Error("Rooms: the socket closed before its opening frame")));
    }).then((count) => ({ count, by: "socket" as const }));
    const rest = restPage(PAGE).then((messages) => ({ count: messages.length, by: "rest" as const }));
    try {
      const first = await Promise.any([socketPage, rest]);
      roomsFirstPageBy[first.by]++;
      return first.count;
    } finally {
      clearTimeout(timer);
      ws.close();
      // Neither loser may surface as an unhandled rejection.
      socketPage.catch(() => {});
      rest.catch(() => {});
    }
  };
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
    const times = new Map<string, number[]>(targets.map((t) => [t.label, []]));
    for (let i = -2; i < runs; i++) {
      // Only timed opens are tallied.
      if (i === 0) roomsFirstPageBy.rest = roomsFirstPageBy.socket = 0;
      for (const t of targets) {
        const t0 = performance.now();
        const count = await t.open();
        const ms = performance.now() - t0;
        if (count < Math.min(size, PAGE)) throw new Error(`${t.label}: opened with ${count} of ${size} messages`);
        if (i >= 0) times.get(t.label)?.push(ms);
      }
    }
    for (const [label, ms] of times) out.figures[`open → first page, ${size} messages: ${label}`] = summarize(ms, "ms");
    if (times.has("Rooms")) {
      out.figures[`open → first page, ${size} messages: Rooms' page came first by REST (of socket and REST)`] = value(
        (roomsFirstPageBy.rest * 100) / Math.max(1, roomsFirstPageBy.rest + roomsFirstPageBy.socket),
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
