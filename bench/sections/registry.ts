/**
 * 4. Registry scale: time to create a room and to send a message in a
 * workspace holding 10 and 1,000 rooms (plus listing them and the room-list
 * socket's first frame, which carry the whole registry).
 */

import WebSocket from "ws";
import { Api, listSocketUrl, pool } from "../lib/client.ts";
import { type Section, uniqueWorkspace, value, withApp } from "../lib/section.ts";
import { summarize } from "../lib/stats.ts";

export const registry: Section = async (ctx, out) => {
  const sizes = ctx.quick ? [10, 100] : [10, 1_000];
  const runs = ctx.quick ? 5 : 20;
  out.notes.push(
    `Each workspace is filled with N rooms (8 creations in flight), then ${runs} sequential samples of each operation, timed at the Node client.`,
    "create = POST /rooms → 201; send = POST /rooms/:id/messages (JSON answer, a 3-chunk reply from the fake) in the existing rooms in turn; list = GET /rooms; room-list socket = connect → first `rooms` frame.",
    "REST rate limits are off (RATE_LIMIT_SCALE=0) so one client can create 1,000 rooms."
  );
  await withApp(async (app) => {
    const api = new Api(app.url);
    // Warm the worker's code paths in a workspace of its own.
    {
      const warm = uniqueWorkspace("warm");
      const room = await api.createRoom(warm, "warm-up");
      await api.send(warm, room.id, "warm-up");
    }
    for (const size of sizes) {
      const ws = uniqueWorkspace(`reg${size}`);
      const t0 = performance.now();
      const ids = await pool(
        Array.from({ length: size }, (_, i) => i),
        8,
        async (i) => (await api.createRoom(ws, `room ${i}`)).id
      );
      const fillSeconds = (performance.now() - t0) / 1000;
      out.figures[`${size} rooms: fill rate (8 in flight)`] = value(size / fillSeconds, "rooms/s", 1);
      ctx.log(`registry: ${size} rooms created in ${fillSeconds.toFixed(1)} s`);

      const create: number[] = [];
      const send: number[] = [];
      const list: number[] = [];
      const socketFirst: number[] = [];
      for (let i = 0; i < runs; i++) {
        let t = performance.now();
        await api.createRoom(ws, `extra ${i}`);
        create.push(performance.now() - t);

        const target = ids[(i * 7919) % ids.length];
        t = performance.now();
        await api.send(ws, target, `registry scale message ${i}`);
        send.push(performance.now() - t);

        t = performance.now();
        const listed = await api.json(api.roomsPath(ws), { expect: [200] });
        list.push(performance.now() - t);
        if (listed.body.rooms.length < size)
          throw new Error(`listed ${listed.body.rooms.length} rooms, expected ≥ ${size}`);

        t = performance.now();
        await firstRoomsFrame(listSocketUrl(app.url, ws));
        socketFirst.push(performance.now() - t);
      }
      out.figures[`${size} rooms: create a room`] = summarize(create, "ms");
      out.figures[`${size} rooms: send a message (REST, until answered)`] = summarize(send, "ms");
      out.figures[`${size} rooms: list rooms (GET)`] = summarize(list, "ms");
      out.figures[`${size} rooms: room-list socket, connect → first frame`] = summarize(socketFirst, "ms");
    }
  });
};

function firstRoomsFrame(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error("no rooms frame within 30 s"));
    }, 30_000);
    ws.on("message", (data) => {
      if (!data.toString().startsWith('{"type":"rooms"')) return;
      clearTimeout(timer);
      ws.close();
      resolve();
    });
    ws.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}
