/**
 * 3. History: time to open a room (GET the first page of messages, 50)
 * holding 100, 10,000 and 100,000 messages, warm (room in memory) and cold
 * (server restarted on the same state, so the first request wakes the room
 * from SQLite); and warm, the same page in the room socket's opening frame,
 * as the browser gets it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { MAX_MESSAGES_PER_ROOM } from "../../src/shared/constants.ts";
import { Api, RoomSocket, roomSocketUrl } from "../lib/client.ts";
import { type BenchServer, startBenchServer } from "../lib/dev-server.ts";
import { groupCpuMs } from "../lib/proc.ts";
import { appVars, type Section, startBenchFake, targetOptions, uniqueWorkspace, value } from "../lib/section.ts";
import { seedViaRoute } from "../lib/seed.ts";
import { summarize } from "../lib/stats.ts";

export const history: Section = async (ctx, out) => {
  const sizes = ctx.quick ? [100, 1_000] : [100, 10_000, 100_000];
  const warmRuns = ctx.quick ? 5 : 20;
  const coldRestarts = ctx.quick ? 1 : 3;
  const turnRuns = ctx.quick ? 3 : 10;
  // A room at the cap refuses new turns (conflict:room_full), so the largest
  // room is seeded short by exactly the messages its timed turns then add:
  // it holds 100,000 when the last turn ends.
  const turnMessages = 2 * (turnRuns + 2);
  const seedCount = (size: number) => (size + turnMessages > MAX_MESSAGES_PER_ROOM ? size - turnMessages : size);
  out.notes.push(
    "The 100-message room is filled by 50 real REST turns; larger rooms by the bench-only seeding route (POST .../__bench/seed, served only by the benchmarks' Worker, bench/app/worker.ts), which writes the same Sessions rows as live messages. Without that route those sizes are skipped.",
    `warm: ${warmRuns} GETs per room after one untimed GET; cold: ${coldRestarts} server restart(s) on the same state, then one GET per room, the first request each room sees.`,
    "Each GET is `GET /api/workspaces/<ws>/rooms/<id>/messages?limit=50`, timed at the Node client (fetch → full body parsed).",
    "Turns by room size: a room of 10 messages (5 REST turns) and each seeded room get 2 untimed then N timed WebSocket turns of a 20-chunk answer, one at a time: send → first text-delta at the client, and workerd CPU (user+system, /proc, 10 ms ticks) from send to done."
  );

  const fake = await startBenchFake();
  const stateDir = mkdtempSync(path.join(tmpdir(), "rooms-bench-history-"));
  let app: BenchServer | undefined;
  try {
    app = await startBenchServer({ vars: appVars(fake), stateDir, ...targetOptions() });
    let api = new Api(app.url);
    const ws = uniqueWorkspace("hist");
    const rooms: Array<{ size: number; id: string }> = [];
    for (const size of sizes) {
      const room = await api.createRoom(ws, `history-${size}`);
      const t0 = performance.now();
      if (size <= 100) {
        for (let i = 0; i < size / 2; i++) await api.send(ws, room.id, `[[fake:chunks=20]] real turn ${i}`);
      } else {
        const seeded = await seedViaRoute(api, ws, room.id, seedCount(size), (done) => {
          if (done % 20_000 === 0) ctx.log(`history: seeding ${size}: ${done.toLocaleString("en")}`);
        });
        if (!seeded.ok) {
          out.skipped.push(`${size.toLocaleString("en")} messages: ${seeded.reason}`);
          await api.json(`${api.roomsPath(ws)}/${room.id}`, { method: "DELETE" });
          continue;
        }
      }
      const seconds = (performance.now() - t0) / 1000;
      // The registry learns counts asynchronously; ask until it agrees.
      let stored: number | undefined;
      for (let i = 0; i < 50 && stored !== seedCount(size); i++) {
        if (i) await new Promise((r) => setTimeout(r, 100));
        stored = (await api.json(api.roomsPath(ws), { expect: [200] })).body.rooms.find(
          (r: any) => r.id === room.id
        )?.messageCount;
      }
      if (stored !== seedCount(size)) throw new Error(`room seeded with ${seedCount(size)} messages reports ${stored}`);
      out.figures[`seed ${size.toLocaleString("en")} messages (setup, not a figure of merit)`] = value(
        seedCount(size) / seconds,
        "messages/s",
        0
      );
      rooms.push({ size, id: room.id });
      ctx.log(`history: seeded ${size} in ${seconds.toFixed(1)} s`);
    }

    const timeGet = async (id: string) => {
      const t = performance.now();
      const page = await api.page(ws, id, 50);
      const ms = performance.now() - t;
      if (page.messages.length !== 50) throw new Error(`expected a page of 50, got ${page.messages.length}`);
      return ms;
    };
    // The same page as the browser gets it: in the room socket's opening
    // frame (agents/room/opening-frame.ts), one round trip from the
    // WebSocket's connect to `rooms_opened` parsed at the client.
    const timeSocketOpen = async (id: string) => {
      const t = performance.now();
      // Listening from before the upgrade: the frame may come in the same read as the 101.
      const socket = new RoomSocket(`${roomSocketUrl(app!.url, ws, id)}?page=50`);
      const seen: string[] = [];
      let timer: ReturnType<typeof setTimeout> | undefined;
      const frame = new Promise<any>((resolve, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no rooms_opened frame within 30 s; frames: ${seen.join(", ").slice(0, 500)}`)),
          30_000
        );
        socket.onFrame((f, _at, raw) => {
          if (f?.type === "rooms_opened") resolve(f);
          else seen.push(f?.type === "rooms_error" ? raw : String(f?.type));
        });
      });
      try {
        await socket.opened;
        const opened = await frame;
        const ms = performance.now() - t;
        if (opened.page.messages.length !== 50) {
          throw new Error(`expected a page of 50, got ${opened.page.messages.length}`);
        }
        return ms;
      } finally {
        clearTimeout(timer);
        await socket.close();
      }
    };
    for (const { size, id } of rooms) {
      await timeGet(id);
      const samples: number[] = [];
      for (let i = 0; i < warmRuns; i++) samples.push(await timeGet(id));
      out.figures[`warm open, ${size.toLocaleString("en")} messages`] = summarize(samples, "ms");
      await timeSocketOpen(id);
      const overSocket: number[] = [];
      for (let i = 0; i < warmRuns; i++) overSocket.push(await timeSocketOpen(id));
      out.figures[
        `warm open over the socket (connect → page, state, presence), ${size.toLocaleString("en")} messages`
      ] = summarize(overSocket, "ms");
    }

    // Send → first token, and workerd CPU per turn, by room size: a turn's
    // cost must not grow with the room.
    const small = await api.createRoom(ws, "turns-10");
    for (let i = 0; i < 5; i++) await api.send(ws, small.id, `[[fake:chunks=20]] small ${i}`);
    for (const { size, id } of [{ size: 10, id: small.id }, ...rooms]) {
      const socket = await RoomSocket.open(roomSocketUrl(app.url, ws, id));
      const ttft: number[] = [];
      const cpu: number[] = [];
      for (let i = 0; i < turnRuns + 2; i++) {
        const cpu0 = groupCpuMs(app.pid).workerd;
        const trace = socket.sendChat(`[[fake:chunks=20]] turn ${i}`);
        await socket.waitDone(trace.requestId);
        if (trace.firstDeltaAt === undefined) throw new Error(`turn in the ${size}-message room had no delta`);
        if (i < 2) continue; // warm-up
        ttft.push(trace.firstDeltaAt - trace.sentAt);
        cpu.push(groupCpuMs(app.pid).workerd - cpu0);
      }
      await socket.close();
      out.figures[`send → first token, ${size.toLocaleString("en")} messages`] = summarize(ttft, "ms");
      out.figures[`workerd CPU per turn, ${size.toLocaleString("en")} messages`] = summarize(cpu, "ms", 0);
    }

    const cold = new Map<number, number[]>(rooms.map((r) => [r.size, []]));
    for (let r = 0; r < coldRestarts; r++) {
      await app.stop();
      app = await startBenchServer({ vars: appVars(fake), stateDir, ...targetOptions() });
      api = new Api(app.url);
      // The registry must be up first, so the timing is the room's wake, not the overseer's.
      await api.json(api.roomsPath(ws), { expect: [200] });
      // Smallest first, biggest last, so no room's wake is hidden behind another's.
      for (const { size, id } of rooms) cold.get(size)!.push(await timeGet(id));
    }
    for (const { size } of rooms)
      out.figures[`cold open, ${size.toLocaleString("en")} messages`] = summarize(cold.get(size)!, "ms");
    if (!sizes.includes(100_000)) out.skipped.push("100,000 messages: full run only");
    if (rooms.length === 0) throw new Error("no room could be seeded");
  } finally {
    await app?.stop();
    await fake.close();
    rmSync(stateDir, { recursive: true, force: true });
  }
};
