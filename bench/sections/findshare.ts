/**
 * 9. Search and export: search across a workspace of 1,000 rooms (each
 * searches its own index; the overseer fans out 16 at a time, most recently
 * active first), search across 100 rooms of 10,000 messages each, streaming a
 * large room's JSON export, and forking that room at its end.
 */
import { Api, pool } from "../lib/client.ts";
import { workerdRssKiB } from "../lib/proc.ts";
import { type Section, type SectionResult, uniqueWorkspace, value, withApp } from "../lib/section.ts";
import { seedViaRoute } from "../lib/seed.ts";
import { summarize } from "../lib/stats.ts";

const n = (count: number) => count.toLocaleString("en");

/** Peak growth of workerd's RSS while `work` runs, sampled every 100 ms. */
async function withRss<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; growthMiB: number }> {
  const before = workerdRssKiB(pid);
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, workerdRssKiB(pid));
  }, 100);
  try {
    const result = await work();
    peak = Math.max(peak, workerdRssKiB(pid));
    return { result, growthMiB: (peak - before) / 1024 };
  } finally {
    clearInterval(sampler);
  }
}

/** Searches `runs + 1` times: the first builds every room's index, the rest are warm. */
async function searchFigures(
  api: Api,
  out: SectionResult,
  ws: string,
  label: string,
  query: string,
  runs: number,
  expectResults: number
) {
  const search = async () => {
    const t = performance.now();
    const { status, body } = await api.json(
      `/api/workspaces/${ws}/search?q=${encodeURIComponent(query)}&limit=${expectResults}`
    );
    const ms = performance.now() - t;
    if (status !== 200) throw new Error(`search: ${status} ${JSON.stringify(body).slice(0, 300)}`);
    return { ms, body };
  };
  const first = await search();
  out.figures[`${label}, first (builds indexes)`] = value(first.ms, "ms", 0);
  out.figures[`${label}, first: rooms missing`] = value(first.body.missingRooms.length, "rooms", 0);
  const warm: number[] = [];
  let missing = 0;
  for (let i = 0; i < runs; i++) {
    const r = await search();
    warm.push(r.ms);
    missing += r.body.missingRooms.length;
    if (!r.body.partial && r.body.results.length !== expectResults) {
      throw new Error(`${label}: expected ${expectResults} results, got ${r.body.results.length}`);
    }
  }
  out.figures[`${label}, warm`] = summarize(warm, "ms");
  out.figures[`${label}, warm: rooms missing (all runs)`] = value(missing, "rooms", 0);
}

export const findshare: Section = async (ctx, out) => {
  const roomCount = ctx.quick ? 100 : 1_000;
  const perRoom = 10;
  const bigRooms = ctx.quick ? 4 : 100;
  const perBigRoom = ctx.quick ? 1_000 : 10_000;
  const exportSize = ctx.quick ? 2_000 : 100_000;
  const runs = ctx.quick ? 3 : 10;
  // A message that exists once in every big room: "Seeded question #<rare>." (even numbers are questions).
  const rare = Math.floor(perBigRoom / 4) * 2;
  out.notes.push(
    `${n(roomCount)} rooms of ${perRoom} seeded messages each; every room's messages match the query. SEARCH_DEADLINE_MS=30000 so the figure is the whole fan-out, not the deadline.`,
    `${n(bigRooms)} rooms of ${n(perBigRoom)} seeded messages each, searched for "closing remark" (in every message) and for "question ${rare}" (one message per room).`,
    "first search: each room builds its full-text index on its first search (a one-time SQL backfill); warm: later searches.",
    `export: GET /api/workspaces/<ws>/rooms/<id>/export?format=json of a ${n(exportSize)}-message room, read to the end at the client; fork: POST …/fork at that room's last message. workerd RSS sampled every 100 ms during each.`
  );
  await withApp(
    async (app) => {
      const api = new Api(app.url);
      const ws = uniqueWorkspace("find");
      const t0 = performance.now();
      await pool(
        Array.from({ length: roomCount }, (_, i) => i),
        8,
        async (i) => {
          const room = await api.createRoom(ws, `search-${i}`);
          const seeded = await seedViaRoute(api, ws, room.id, perRoom);
          if (!seeded.ok) throw new Error(seeded.reason);
        }
      );
      ctx.log(`findshare: ${n(roomCount)} rooms made in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
      await searchFigures(api, out, ws, `search ${n(roomCount)} rooms`, "closing remark", runs, 20);

      // Many messages in fewer rooms: a workspace of its own, so the rooms above are not searched again.
      const bigWs = uniqueWorkspace("findbig");
      const t1 = performance.now();
      await pool(
        Array.from({ length: bigRooms }, (_, i) => i),
        2,
        async (i) => {
          const room = await api.createRoom(bigWs, `big-${i}`);
          const seeded = await seedViaRoute(api, bigWs, room.id, perBigRoom);
          if (!seeded.ok) throw new Error(seeded.reason);
          if ((i + 1) % 10 === 0) ctx.log(`findshare: ${i + 1} of ${bigRooms} large rooms seeded`);
        }
      );
      const seedSeconds = (performance.now() - t1) / 1000;
      ctx.log(`findshare: ${n(bigRooms)} × ${n(perBigRoom)} messages seeded in ${seedSeconds.toFixed(0)} s`);
      const big = `search ${n(bigRooms)} rooms × ${n(perBigRoom)} messages`;
      await searchFigures(api, out, bigWs, `${big}, every message matches`, "closing remark", runs, 20);
      await searchFigures(
        api,
        out,
        bigWs,
        `${big}, one match per room`,
        `question ${rare}`,
        runs,
        Math.min(bigRooms, 100)
      );

      const room = await api.createRoom(ws, "export-big");
      const seeded = await seedViaRoute(api, ws, room.id, exportSize, (done) => {
        if (done % 20_000 === 0) ctx.log(`findshare: seeding export room ${done}`);
      });
      if (!seeded.ok) throw new Error(seeded.reason);

      const exported = await withRss(app.pid, async () => {
        const t = performance.now();
        const response = await fetch(`${app.url}/api/workspaces/${ws}/rooms/${room.id}/export?format=json`);
        if (!response.ok || !response.body) throw new Error(`export: ${response.status}`);
        let bytes = 0;
        const reader = response.body.getReader();
        for (;;) {
          const { done, value: chunk } = await reader.read();
          if (done) break;
          bytes += chunk.byteLength;
        }
        return { bytes, seconds: (performance.now() - t) / 1000 };
      });
      const { bytes, seconds } = exported.result;
      out.figures[`export ${n(exportSize)} messages: time`] = value(seconds, "s", 1);
      out.figures[`export ${n(exportSize)} messages: size`] = value(bytes / 1e6, "MB", 1);
      out.figures[`export ${n(exportSize)} messages: rate`] = value(exportSize / seconds, "messages/s", 0);
      out.figures[`export ${n(exportSize)} messages: workerd RSS growth during download`] = value(
        exported.growthMiB,
        "MiB",
        1
      );

      const [last] = (await api.page(ws, room.id, 1)).messages;
      const forked = await withRss(app.pid, async () => {
        const t = performance.now();
        const { body } = await api.json(`${api.roomsPath(ws)}/${room.id}/fork`, {
          method: "POST",
          body: { messageId: last.id },
          expect: [201]
        });
        return { seconds: (performance.now() - t) / 1000, messageCount: body.messageCount as number };
      });
      if (forked.result.messageCount !== exportSize) {
        throw new Error(`fork: expected ${exportSize} messages, the new room has ${forked.result.messageCount}`);
      }
      out.figures[`fork ${n(exportSize)} messages at the last: time`] = value(forked.result.seconds, "s", 1);
      out.figures[`fork ${n(exportSize)} messages at the last: rate`] = value(
        exportSize / forked.result.seconds,
        "messages/s",
        0
      );
      out.figures[`fork ${n(exportSize)} messages at the last: workerd RSS growth`] = value(forked.growthMiB, "MiB", 1);
    },
    { vars: { SEARCH_DEADLINE_MS: "30000" } }
  );
};
