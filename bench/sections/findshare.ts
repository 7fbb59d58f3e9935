/**
 * 9. Search and export: search across a workspace of 1,000 rooms (each
 * searches its own index; the overseer fans out 16 at a time), and streaming
 * a large room's JSON export.
 */
import { Api, pool } from "../lib/client.ts";
import { startBenchServer } from "../lib/dev-server.ts";
import { workerdRssKiB } from "../lib/proc.ts";
import { appVars, type Section, targetOptions, uniqueWorkspace, value } from "../lib/section.ts";
import { seedViaRoute } from "../lib/seed.ts";
import { summarize } from "../lib/stats.ts";
import { startTimingFake } from "../lib/timing-fake.ts";

export const findshare: Section = async (ctx, out) => {
  const roomCount = ctx.quick ? 100 : 1_000;
  const perRoom = 10;
  const exportSize = ctx.quick ? 10_000 : 100_000;
  const runs = ctx.quick ? 3 : 10;
  out.notes.push(
    `${roomCount} rooms of ${perRoom} seeded messages each; every room's messages match the query. SEARCH_DEADLINE_MS=30000 so the figure is the whole fan-out, not the deadline.`,
    "first search: each room builds its full-text index on its first search (a one-time SQL backfill); warm: later searches.",
    `export: GET /api/workspaces/<ws>/rooms/<id>/export?format=json of a ${exportSize.toLocaleString("en")}-message room, read to the end at the client; workerd RSS sampled every 100 ms during the download.`
  );
  const fake = await startTimingFake();
  const app = await startBenchServer({
    vars: { ...appVars(fake), SEARCH_DEADLINE_MS: "30000" },
    ...targetOptions()
  });
  try {
    const api = new Api(app.url);
    const ws = uniqueWorkspace("find");
    const ids: string[] = [];
    const t0 = performance.now();
    await pool(
      Array.from({ length: roomCount }, (_, i) => i),
      8,
      async (i) => {
        const room = await api.createRoom(ws, `search-${i}`);
        const seeded = await seedViaRoute(api, ws, room.id, perRoom);
        if (!seeded.ok) throw new Error(seeded.reason);
        ids.push(room.id);
      }
    );
    ctx.log(`findshare: ${roomCount} rooms made in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    const search = async () => {
      const t = performance.now();
      const { status, body } = await api.json(`/api/workspaces/${ws}/search?q=closing%20remark&limit=20`);
      const ms = performance.now() - t;
      if (status !== 200) throw new Error(`search: ${status}`);
      return { ms, body };
    };
    const first = await search();
    out.figures[`search ${roomCount.toLocaleString("en")} rooms, first (builds indexes)`] = value(first.ms, "ms", 0);
    out.figures[`search ${roomCount.toLocaleString("en")} rooms, first: rooms missing`] = value(
      first.body.missingRooms.length,
      "rooms",
      0
    );
    const warm: number[] = [];
    let missing = 0;
    for (let i = 0; i < runs; i++) {
      const r = await search();
      warm.push(r.ms);
      missing += r.body.missingRooms.length;
      if (r.body.results.length !== 20) throw new Error(`expected 20 results, got ${r.body.results.length}`);
    }
    out.figures[`search ${roomCount.toLocaleString("en")} rooms, warm`] = summarize(warm, "ms");
    out.figures[`search ${roomCount.toLocaleString("en")} rooms, warm: rooms missing (all runs)`] = value(
      missing,
      "rooms",
      0
    );

    const big = await api.createRoom(ws, "export-big");
    const seeded = await seedViaRoute(api, ws, big.id, exportSize, (done) => {
      if (done % 20_000 === 0) ctx.log(`findshare: seeding export room ${done}`);
    });
    if (!seeded.ok) throw new Error(seeded.reason);
    const rssBefore = workerdRssKiB(app.pid);
    let rssPeak = rssBefore;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, workerdRssKiB(app.pid));
    }, 100);
    const t = performance.now();
    const response = await fetch(`${app.url}/api/workspaces/${ws}/rooms/${big.id}/export?format=json`);
    if (!response.ok || !response.body) throw new Error(`export: ${response.status}`);
    let bytes = 0;
    const reader = response.body.getReader();
    for (;;) {
      const { done, value: chunk } = await reader.read();
      if (done) break;
      bytes += chunk.byteLength;
    }
    const seconds = (performance.now() - t) / 1000;
    clearInterval(sampler);
    out.figures[`export ${exportSize.toLocaleString("en")} messages: time`] = value(seconds, "s", 1);
    out.figures[`export ${exportSize.toLocaleString("en")} messages: size`] = value(bytes / 1e6, "MB", 1);
    out.figures[`export ${exportSize.toLocaleString("en")} messages: rate`] = value(
      exportSize / seconds,
      "messages/s",
      0
    );
    out.figures[`export ${exportSize.toLocaleString("en")} messages: workerd RSS growth during download`] = value(
      (rssPeak - rssBefore) / 1024,
      "MiB",
      1
    );
  } finally {
    await app.stop();
    await fake.close();
  }
};
