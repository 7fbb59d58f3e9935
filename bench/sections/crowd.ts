/**
 * 10. A crowded workspace: what one room's turn costs while other rooms of
 * the same workspace hold many open sockets. Every room of a workspace runs
 * on its overseer's one thread, which hands each frame a room broadcasts to
 * that room's sockets; if it looked at every socket of the workspace per
 * frame, a turn would cost more the more people sit in other rooms.
 */
import { Api, RoomSocket, roomSocketUrl } from "../lib/client.ts";
import { groupCpuMs } from "../lib/proc.ts";
import { type Section, uniqueWorkspace, value, withApp } from "../lib/section.ts";
import { sleep, summarize } from "../lib/stats.ts";

const BURST_CHUNKS = 50;
const OTHER_ROOMS = 20;
const OTHER_SOCKETS = 100;
/** Below the per-socket burst of the room's send limiter (RATE_LIMITS.socketSend). */
const SENDS_PER_SOCKET = 8;

export const crowd: Section = async (ctx, out) => {
  const runs = ctx.quick ? 5 : 30;
  const warmup = 3;
  const idleMs = 3_000;
  out.notes.push(
    `one viewer sends ${BURST_CHUNKS}-chunk bursts (fast mode) in one room, ${runs} runs after ${warmup} warm-up runs; first alone in its workspace, then with ${OTHER_SOCKETS} sockets open in ${OTHER_ROOMS} other rooms of the same workspace (idle: they only receive their rooms' presence).`,
    "workerd CPU per turn is the mean over the runs (CPU is read in 10 ms ticks); the idle figure is workerd CPU over a quiet spell with the crowd open, so the turn figures can be read net of it."
  );

  await withApp(async (app, fake) => {
    const api = new Api(app.url);
    const ws = uniqueWorkspace("crowd");
    const room = await api.createRoom(ws, "crowd");
    let socket = await RoomSocket.open(roomSocketUrl(app.url, ws, room.id));
    let sentOnSocket = 0;
    const turn = async (text: string) => {
      if (sentOnSocket === SENDS_PER_SOCKET) {
        await socket.close();
        socket = await RoomSocket.open(roomSocketUrl(app.url, ws, room.id));
        sentOnSocket = 0;
      }
      sentOnSocket++;
      const before = fake.requests.length;
      const trace = socket.sendChat(text);
      await socket.waitDone(trace.requestId);
      const req = fake.requests[before];
      if (!req?.lastChunkAt || trace.lastDeltaAt === undefined) {
        throw new Error(`crowd turn produced no model request or no deltas: ${trace.error ?? ""}`);
      }
      return trace.lastDeltaAt - req.lastChunkAt;
    };
    const measure = async (label: string) => {
      for (let i = 0; i < warmup; i++) await turn(`[[fake:chunks=${BURST_CHUNKS}]] ${label} warm-up ${i}`);
      const last: number[] = [];
      const cpu0 = groupCpuMs(app.pid);
      for (let i = 0; i < runs; i++) last.push(await turn(`[[fake:chunks=${BURST_CHUNKS}]] ${label} ${i}`));
      const cpu1 = groupCpuMs(app.pid);
      out.figures[`${BURST_CHUNKS}-chunk burst, ${label}: workerd CPU per turn (mean)`] = value(
        (cpu1.workerd - cpu0.workerd) / runs,
        "ms",
        1
      );
      out.figures[`${BURST_CHUNKS}-chunk burst, ${label}: last chunk`] = summarize(last, "ms");
    };

    await measure("alone in the workspace");

    const others = await Promise.all(Array.from({ length: OTHER_ROOMS }, (_, i) => api.createRoom(ws, `other-${i}`)));
    const crowdSockets = await Promise.all(
      Array.from({ length: OTHER_SOCKETS }, (_, i) =>
        RoomSocket.open(roomSocketUrl(app.url, ws, others[i % OTHER_ROOMS].id))
      )
    );
    try {
      await sleep(1_000); // the crowd's joins and presence settle
      const idle0 = groupCpuMs(app.pid);
      await sleep(idleMs);
      const idle1 = groupCpuMs(app.pid);
      out.figures[`idle with ${OTHER_SOCKETS} sockets open: workerd CPU per second`] = value(
        ((idle1.workerd - idle0.workerd) * 1000) / idleMs,
        "ms",
        1
      );
      await measure(`${OTHER_SOCKETS} sockets open in other rooms`);
    } finally {
      await Promise.all(crowdSockets.map((s) => s.close()));
      await socket.close();
    }
  });
};
