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
import { median, sleep, summarize } from "../lib/stats.ts";

const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / values.length;

export const summaries: Section = async (ctx, out) => {
  const size = ctx.quick ? 1_000 : 10_000;
  const turnRuns = ctx.quick ? 3 : 30;
  out.notes.push(
    `A room seeded with ${size.toLocaleString("en")} messages (the bench-only seeding route) gets one untimed turn: its history leaves the window and the room summarises the backlog in the background. The section waits until the room reports nothing left unsummarised (GET …/memory: 0, not "not known") and no summary request came for a second (merges done), timing it to the last request, and workerd's CPU (user+system, /proc, 10 ms ticks) meanwhile; per summary = those divided by the summary requests the fake provider received.`,
    "Then that room and a 10-message room (5 REST turns) take turns, one turn each in alternation: 2 untimed and N timed WebSocket turns of a 20-chunk answer per room; send → first text-delta at the client, and workerd CPU from send to done. Summary requests during those turns are counted: a room whose memory is settled writes one now and then, not per turn. A turn in either room during which a summary request reached the model is not timed (a summary is background work, priced on its own above); how many were left out is reported."
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
    // Done when the room knows nothing is left unsummarised (null is "not
    // known": a woken room walks its storage and summarises it part by part,
    // a job that outlasts the first summaries by far) and its merges have
    // stopped: no summary request for a second.
    let memory = await memoryOf();
    let lastCount = -1;
    let stableSince = performance.now();
    let doneAt = performance.now();
    const deadline = Date.now() + 15 * 60_000;
    for (;;) {
      const count = summaryRequests();
      if (count !== lastCount) {
        lastCount = count;
        stableSince = performance.now();
      }
      const caughtUp = memory.unsummarised?.messageCount === 0 && !memory.rebuilding && memory.summaries.length > 0;
      if (!caughtUp) doneAt = performance.now();
      if (caughtUp && performance.now() - stableSince >= 1_000) break;
      if (Date.now() > deadline)
        throw new Error(`the backlog was not summarised in 15 minutes: ${JSON.stringify(memory.unsummarised)}`);
      await sleep(250);
      memory = await memoryOf();
    }
    // The summaries' time ends at the last request, not at the second waited after it.
    const seconds = (Math.max(doneAt, stableSince) - t0) / 1000;
    const cpuMs = groupCpuMs(app.pid).workerd - cpu0;
    const written = summaryRequests() - requests0;
    if (written === 0) throw new Error("the room wrote no summary");
    out.figures[`summarise a ${size.toLocaleString("en")}-message backlog: wall time`] = value(seconds, "s", 1);
    out.figures["summary requests written"] = value(written, "requests", 0);
    out.figures["summaries in use after"] = value(memory.summaries.length, "summaries", 0);
    out.figures["one summary: wall time"] = value((seconds * 1000) / written, "ms", 0);
    out.figures["one summary: workerd CPU"] = value(cpuMs / written, "ms", 0);

    // The two rooms take turns, one turn each in alternation, so neither is
    // measured while the process is colder (or the machine busier) than for
    // the other: measured one room after the other, the first room's turns
    // also paid for whatever warm-up was left.
    const rooms = [
      { label: `${size.toLocaleString("en")} messages, summarised`, socket, ttft: [] as number[], cpu: [] as number[] },
      {
        label: "10 messages",
        socket: await RoomSocket.open(roomSocketUrl(app.url, ws, small.id)),
        ttft: [] as number[],
        cpu: [] as number[]
      }
    ];
    const requestsBeforeTurns = summaryRequests();
    let overlapped = 0;
    for (let i = 0; i < turnRuns + 2; i++) {
      for (const room of rooms) {
        const before = groupCpuMs(app.pid).workerd;
        const summariesBefore = summaryRequests();
        const trace = room.socket.sendChat(`[[fake:chunks=20]] turn ${i}`);
        await room.socket.waitDone(trace.requestId);
        if (trace.firstDeltaAt === undefined) throw new Error(`turn in the ${room.label} room had no delta`);
        if (i < 2) continue; // warm-up
        // Its CPU would hold a summary's too: counted, not timed (unless
        // the room would be left with no timed turn at all).
        if (summaryRequests() !== summariesBefore && (room.ttft.length > 0 || i < turnRuns + 1)) {
          overlapped++;
          continue;
        }
        room.ttft.push(trace.firstDeltaAt - trace.sentAt);
        room.cpu.push(groupCpuMs(app.pid).workerd - before);
      }
    }
    for (const room of rooms) {
      await room.socket.close();
      out.figures[`send → first token, ${room.label}`] = summarize(room.ttft, "ms");
      out.figures[`workerd CPU per turn, ${room.label}`] = summarize(room.cpu, "ms", 0);
    }
    const [summarised, plain] = rooms.map((room) => ({ ttft: median(room.ttft), cpu: mean(room.cpu) }));
    out.figures["send → first token: summarised room / 10 messages (medians)"] = value(
      summarised.ttft / plain.ttft,
      "×",
      2
    );
    // CPU is read in 10 ms ticks: the ratio of the means over all timed turns.
    out.figures["workerd CPU per turn: summarised room / 10 messages (means)"] = value(
      summarised.cpu / plain.cpu,
      "×",
      2
    );
    out.figures["turns not timed: a summary was written during them"] = value(overlapped, "turns", 0);
    out.figures["summary requests during the timed turns"] = value(
      summaryRequests() - requestsBeforeTurns,
      "requests",
      0
    );
  } finally {
    await app?.stop();
    await fake.close();
    rmSync(stateDir, { recursive: true, force: true });
  }
};
