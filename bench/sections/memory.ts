/**
 * 6. Memory: resident memory (VmRSS) of the dev server's workerd
 * process(es) with 1,000 idle rooms, and per open socket.
 */
import { Api, pool, RoomSocket, roomSocketUrl, signIn } from "../lib/client.ts";
import type { BenchServer } from "../lib/dev-server.ts";
import { processGroup, workerdProcesses, workerdRssKiB } from "../lib/proc.ts";
import { type Section, sharing, uniqueWorkspace, value, withApp } from "../lib/section.ts";
import { median, sleep } from "../lib/stats.ts";

export const memory: Section = async (ctx, out) => {
  const roomCount = ctx.quick ? 50 : 1_000;
  const socketCount = ctx.quick ? 30 : 200;
  const socketRooms = ctx.quick ? 5 : 20;
  const idleMs = ctx.quick ? 500 : 10_000;
  // How long to let the server settle before reading RSS; a quick run reports no figure worth it.
  const settle = (ms: number) => sleep(ctx.quick ? Math.min(ms, 500) : ms);
  out.notes.push(
    "RSS = sum of VmRSS of the workerd processes in the dev server's process group, median of 5 reads 200 ms apart. The Vite/Node dev process is reported on its own: it is the dev proxy, not the app.",
    `Two fresh servers, each warmed with a room, a message and a socket. Rooms: baseline → + ${roomCount} rooms created, then ${idleMs / 1000} s idle. Sockets: ${socketRooms + 1} rooms (baseline) → + ${socketCount} sockets over ${socketRooms} of them → + ${socketCount} more sockets all in the other room.`,
    "Each socket is a different signed-in person (a room admits a few sockets per person, and at most 200 in all); the sign-ins are made before the baseline and are not timed.",
    "RSS only grows in these runs (V8 and the allocator keep freed memory), so a figure is a high-water mark: garbage made while connecting counts too.",
    "Per-room and per-socket figures are differences divided by the count; RSS includes allocator slack and V8 heap growth, so they are estimates, not exact object sizes."
  );
  if (sharing.quick)
    out.notes.push(
      "--quick: both halves ran on the quick run's shared server, not fresh ones: the figures only show the section runs."
    );
  const measure = (app: BenchServer) => {
    if (workerdProcesses(app.pid).length === 0)
      throw new Error("no workerd process found in the dev server's process group");
    return async () => {
      const samples: number[] = [];
      for (let i = 0; i < 5; i++) {
        samples.push(workerdRssKiB(app.pid));
        await sleep(200);
      }
      return median(samples) / 1024;
    };
  };
  const nodeRss = (app: BenchServer) =>
    processGroup(app.pid)
      .filter((p) => p.comm !== "workerd")
      .reduce((s, p) => s + p.rssKiB, 0) / 1024;
  /** A room, a message and a socket, so code that only runs for them is loaded before any baseline. */
  const warmUp = async (app: BenchServer, api: Api) => {
    const warmWs = uniqueWorkspace("mem-warm");
    const warmRoom = await api.createRoom(warmWs, "warm-up");
    await api.send(warmWs, warmRoom.id, "warm-up");
    await (await RoomSocket.open(roomSocketUrl(app.url, warmWs, warmRoom.id))).close();
    await settle(2_000);
  };

  // Idle rooms, on a server of their own.
  await withApp(async (app) => {
    const api = new Api(app.url);
    const rss = measure(app);
    await warmUp(app, api);
    out.figures["workerd processes"] = value(workerdProcesses(app.pid).length, "processes", 0);
    const base = await rss();
    out.figures["rooms server: workerd RSS, baseline (1 room)"] = value(base, "MiB", 1);
    const ws = uniqueWorkspace("mem");
    await pool(
      Array.from({ length: roomCount }, (_, i) => i),
      8,
      async (i) => (await api.createRoom(ws, `idle ${i}`)).id
    );
    await sleep(idleMs);
    const withRooms = await rss();
    out.figures[`rooms server: workerd RSS, + ${roomCount} idle rooms`] = value(withRooms, "MiB", 1);
    out.figures["per idle room"] = value(((withRooms - base) * 1024) / roomCount, "KiB", 1);
  });

  // Sockets, on another fresh server.
  await withApp(async (app) => {
    const api = new Api(app.url);
    const rss = measure(app);
    await warmUp(app, api);
    const ws = uniqueWorkspace("mem");
    // The last room takes the one-room sockets, so no room holds more than it admits.
    const roomIds = await pool(
      Array.from({ length: socketRooms + 1 }, (_, i) => i),
      8,
      async (i) => (await api.createRoom(ws, `socket room ${i}`)).id
    );
    const hotRoom = roomIds[socketRooms];
    for (const id of roomIds) await api.page(ws, id, 1);
    const people = await pool(
      Array.from({ length: 2 * socketCount }, (_, i) => i),
      8,
      (i) => signIn(app.url, `mem${i}`)
    );
    await settle(2_000);
    const base = await rss();
    out.figures[`sockets server: workerd RSS, baseline (${socketRooms + 2} rooms, no socket)`] = value(base, "MiB", 1);

    const spread: RoomSocket[] = [];
    for (let i = 0; i < socketCount; i++)
      spread.push(await RoomSocket.open(roomSocketUrl(app.url, ws, roomIds[i % socketRooms]), 30_000, people[i]));
    await settle(3_000);
    stillOpen(spread, "over rooms");
    const withSpread = await rss();
    out.figures[`sockets server: workerd RSS, + ${socketCount} sockets over ${socketRooms} rooms`] = value(
      withSpread,
      "MiB",
      1
    );
    out.figures["per socket (spread over rooms)"] = value(((withSpread - base) * 1024) / socketCount, "KiB", 1);

    const hot: RoomSocket[] = [];
    const t0 = performance.now();
    for (let i = 0; i < socketCount; i++)
      hot.push(await RoomSocket.open(roomSocketUrl(app.url, ws, hotRoom), 30_000, people[socketCount + i]));
    const connectSeconds = (performance.now() - t0) / 1000;
    await settle(3_000);
    stillOpen(hot, "in one room");
    const withHot = await rss();
    out.figures[`sockets server: workerd RSS, + ${socketCount} more sockets, all in one room`] = value(
      withHot,
      "MiB",
      1
    );
    out.figures["per socket (all in one room)"] = value(((withHot - withSpread) * 1024) / socketCount, "KiB", 1);
    out.figures[`time to open ${socketCount} sockets one after another in one room`] = value(connectSeconds, "s", 2);
    out.figures["Vite dev process (Node) RSS at the end"] = value(nodeRss(app), "MiB", 1);
    await Promise.all([...spread, ...hot].map((s) => s.close()));
  });
};

/** A socket the room refused closes right after opening: the figures would count fewer sockets than they say. */
function stillOpen(sockets: RoomSocket[], where: string) {
  const closed = sockets.filter((s) => s.ws.readyState !== s.ws.OPEN).length;
  if (closed > 0) throw new Error(`${closed} of ${sockets.length} sockets ${where} were closed by the room`);
}
