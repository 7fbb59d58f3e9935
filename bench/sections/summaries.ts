/**
 * 14. Summaries: what a room's memory costs. Send → first token and
 * workerd CPU per turn in a 10,000-message room whose history left the
 * window and was summarised, beside a 10-message room (target: within
 * 10 %), and what writing one summary costs (wall time and workerd CPU
 * per summary request the room made, while it summarised the backlog).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { RoomMemory } from "../../src/shared/memory.ts";
import { Api, RoomSocket, roomSocketUrl } from "../lib/client.ts";
import { type BenchServer, startBenchServer } from "../lib/dev-server.ts";
import { groupCpuMs } from "../lib/proc.ts";
import { appVars, type Section, startBenchFake, targetOptions, uniqueWorkspace, value } from "../lib/section.ts";
import { seedViaRoute } from "../lib/seed.ts";
import { sleep, summarize } from "../lib/stats.ts";

export const summaries: Section = async (ctx, out) => {
  const size = ctx.quick ? 1_000 : 10_000;
  const turnRuns = ctx.quick ? 3 : 10;
  out.notes.push(
    `A room seeded with ${size.toLocaleString("en")} messages (the bench-only seeding route) gets one untimed turn: its history leaves the window and the room summarises the backlog in the background. The section waits until no unsummarised backlog is left (GET …/memory), timing it and workerd's CPU (user+system, /proc, 10 ms ticks) meanwhile; per summary = those divided by the summary requests the fake provider received.`,
    "Then that room and a 10-message room (5 REST turns) each get 2 untimed and N timed WebSocket turns of a 20-chunk answer: send → first text-delta at the client, and workerd CPU from send to done."
  );
  const fake = await startBenchFake();
  const stateDir = mkdtempSync(path.join(tmpdir(), "rooms-bench-summaries-"));
  let app: BenchServer | undefined;
  try {
    app = await startBenchServer({ vars: appVars(fake), stateDir, ...targetOptions() });
    const api = new Api(app.url);
    const ws = uniqueWorkspace("sum");
    const big = await api.createRoom(ws, `summaries-${size}`);
    const seeded = await seedViaRoute(api, ws, big.id, size);
    if (!seeded.ok) {
      out.skipped.push(`${size.toLocaleString("en")} messages: ${seeded.reason}`);
      return;
    }
    const small = await api.createRoom(ws, "summaries-10");
    for (let i = 0; i < 5; i++) await api.send(ws, small.id, `[[fake:chunks=20]] small ${i}`);

    const memoryOf = async (): Promise<RoomMemory> =>
      (await api.json(`${api.roomsPath(ws)}/${big.id}/memory`, { expect: [200] })).body;
    const summaryRequests = () => fake.requests.filter((r) => r.summary).length;
    const requests0 = summaryRequests();
    const cpu0 = groupCpuMs(app.pid).workerd;
    const t0 = performance.now();
    const socket = await RoomSocket.open(roomSocketUrl(app.url, ws, big.id));
    const wake = socket.sendChat("[[fake:chunks=20]] a new question");
    await socket.waitDone(wake.requestId);
    let memory = await memoryOf();
    const deadline = Date.now() + 15 * 60_000;
    while (memory.summaries.length === 0 || memory.unsummarised?.messageCount || memory.rebuilding) {
      if (Date.now() > deadline)
        throw new Error(`the backlog was not summarised in 15 minutes: ${JSON.stringify(memory.unsummarised)}`);
      await sleep(250);
      memory = await memoryOf();
    }
    const seconds = (performance.now() - t0) / 1000;
    const cpuMs = groupCpuMs(app.pid).workerd - cpu0;
    const written = summaryRequests() - requests0;
    if (written === 0) throw new Error("the room wrote no summary");
    out.figures[`summarise a ${size.toLocaleString("en")}-message backlog: wall time`] = value(seconds, "s", 1);
    out.figures["summary requests written"] = value(written, "requests", 0);
    out.figures["summaries in use after"] = value(memory.summaries.length, "summaries", 0);
    out.figures["one summary: wall time"] = value((seconds * 1000) / written, "ms", 0);
    out.figures["one summary: workerd CPU"] = value(cpuMs / written, "ms", 0);

    for (const [label, id, open] of [
      [`${size.toLocaleString("en")} messages, summarised`, big.id, socket],
      ["10 messages", small.id, null]
    ] as const) {
      const s = open ?? (await RoomSocket.open(roomSocketUrl(app.url, ws, id)));
      const ttft: number[] = [];
      const cpu: number[] = [];
      for (let i = 0; i < turnRuns + 2; i++) {
        const before = groupCpuMs(app.pid).workerd;
        const trace = s.sendChat(`[[fake:chunks=20]] turn ${i}`);
        await s.waitDone(trace.requestId);
        if (trace.firstDeltaAt === undefined) throw new Error(`turn in the ${label} room had no delta`);
        if (i < 2) continue; // warm-up
        ttft.push(trace.firstDeltaAt - trace.sentAt);
        cpu.push(groupCpuMs(app.pid).workerd - before);
      }
      await s.close();
      out.figures[`send → first token, ${label}`] = summarize(ttft, "ms");
      out.figures[`workerd CPU per turn, ${label}`] = summarize(cpu, "ms", 0);
    }
  } finally {
    await app?.stop();
    await fake.close();
    rmSync(stateDir, { recursive: true, force: true });
  }
};
