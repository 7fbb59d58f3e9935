/**
 * 2. Streaming throughput: text-delta chunks per second delivered for one
 * long answer, to 1 client and to 20 clients in the same room.
 */
import { Api, openViewers, RoomSocket, roomSocketUrl } from "../lib/client.ts";
import { groupCpuMs } from "../lib/proc.ts";
import { type Section, uniqueWorkspace, value, withApp } from "../lib/section.ts";
import { summarize } from "../lib/stats.ts";

export const throughput: Section = async (ctx, out) => {
  const chunks = ctx.quick ? 1_000 : 10_000;
  const runs = ctx.quick ? 1 : 3;
  const fanouts = [1, 20];
  out.notes.push(
    `An answer of ${chunks.toLocaleString("en")} chunks, written by the fake in one burst (it takes it ~10 ms); ${runs} run(s) per client count, each in a fresh room.`,
    "chunks/s per client = chunks ÷ (fake writes first chunk → the slowest client receives the last one); aggregate = that × clients.",
    "Every client must receive every chunk; 'missing chunks' counts any shortfall.",
    "CPU per chunk: user+system time of the server's workerd process(es) and of the Vite/Node dev process during the run (/proc, 10 ms ticks), divided by the chunks of the answer."
  );
  await withApp(async (app, fake) => {
    const api = new Api(app.url);
    const ws = uniqueWorkspace("tput");
    // Warm the code paths once.
    {
      const room = await api.createRoom(ws, "warm-up");
      const s = await RoomSocket.open(roomSocketUrl(app.url, ws, room.id));
      const t = s.sendChat("[[fake:chunks=200]] warm-up");
      await s.waitDone(t.requestId);
      await s.close();
    }
    for (const n of fanouts) {
      const perClient: number[] = [];
      const aggregate: number[] = [];
      const firstDelta: number[] = [];
      let missing = 0;
      const frames: number[] = [];
      const cpuWorkerd: number[] = [];
      const cpuVite: number[] = [];
      for (let r = 0; r < runs; r++) {
        const room = await api.createRoom(ws, `tput-${n}-${r}`);
        const sockets = await openViewers(app.url, roomSocketUrl(app.url, ws, room.id), n);
        // Let the presence frames of the joins settle before timing.
        await new Promise((resolve) => setTimeout(resolve, 300 + 20 * n));
        const before = fake.requests.length;
        const cpu0 = groupCpuMs(app.pid);
        const trace = sockets[0].sendChat(`[[fake:chunks=${chunks}]] throughput ${n} ${r}`);
        const traces = await Promise.all(sockets.map((s) => s.waitDone(trace.requestId, 900_000)));
        const req = fake.requests[before];
        const cpu1 = groupCpuMs(app.pid);
        cpuWorkerd.push(((cpu1.workerd - cpu0.workerd) * 1000) / chunks);
        cpuVite.push(((cpu1.other - cpu0.other) * 1000) / chunks);
        const lastAt = Math.max(...traces.map((t) => t.lastDeltaAt ?? Number.NaN));
        const seconds = (lastAt - req.firstChunkAt!) / 1000;
        perClient.push(chunks / seconds);
        aggregate.push((chunks * n) / seconds);
        frames.push(traces[0].deltas);
        firstDelta.push(Math.min(...traces.map((t) => t.firstDeltaAt ?? Number.NaN)) - req.firstChunkAt!);
        missing += traces.reduce((sum, t) => sum + Math.max(0, chunks - t.chunks), 0);
        await Promise.all(sockets.map((s) => s.close()));
        ctx.log(
          `throughput: ${n} client(s), run ${r + 1}/${runs}: ${(chunks / seconds).toFixed(0)} chunks/s per client`
        );
      }
      const label = n === 1 ? "1 client" : `${n} clients`;
      out.figures[`${label}: chunks/s per client`] = summarize(perClient, "chunks/s", 0);
      if (n > 1) out.figures[`${label}: chunks/s aggregate`] = summarize(aggregate, "chunks/s", 0);
      out.figures[`${label}: fake's first chunk → first delta at a client`] = summarize(firstDelta, "ms");
      out.figures[`${label}: missing chunks`] = value(missing, "chunks", 0);
      out.figures[`${label}: text-delta frames per client`] = summarize(frames, "frames", 0);
      out.figures[`${label}: workerd CPU per chunk`] = summarize(cpuWorkerd, "µs", 0);
      out.figures[`${label}: Vite dev proxy (Node) CPU per chunk`] = summarize(cpuVite, "µs", 0);
    }
  });
};
