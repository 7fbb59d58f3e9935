/**
 * 11. The framework's floor: the same chat-turn measurements against Rooms
 * and against bench/floor (a bare parent Agent with a bare AIChatAgent facet
 * per room: the documented minimum, same fake provider, same URL shape, same
 * useAgentChat frames), in one run. The floor is a turn as the framework's
 * docs write it, with none of our code; its 1-chunk turn is the framework's
 * fixed cost per turn, and (50-chunk − 1-chunk) its cost per relayed chunk,
 * which Rooms' own relay (coalesced deltas, batched facet → parent frames,
 * parsed socket targets) already undercuts.
 *
 *   npm run bench -- --only floor                    (vite dev)
 *   npm run bench -- --only floor --target preview   (production builds under vite preview)
 *
 * A third phase opens rooms of 10 and 500 messages in each design (open →
 * first page, floor-opening.ts): issue 25's opening target beside its
 * first-token ones.
 *
 * The servers run at once and the phases alternate (turns: Rooms, floor,
 * relay; then opening and concurrency the same), so each set is measured under the same
 * machine load. "relay" is the other design, for comparison: gadgets-chat's
 * (the example issue 10 measured), a plain Agent facet relaying each chunk
 * through an RpcTarget to the parent's own socket. `--quick` measures the floor only, small: the
 * quick run's relay and concurrency sections measure Rooms.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import type { DevServer } from "../../tests/support/dev-server.ts";
import type { FakeOpenAI } from "../../tests/support/fake-openai.ts";
import { Api, RoomSocket, roomSocketUrl } from "../lib/client.ts";
import { type BenchServer, startBenchServer } from "../lib/dev-server.ts";
import {
  buildFloor,
  floorRoomSocketUrl,
  floorStoredMessages,
  relayRoomSocketUrl,
  relayStoredMessages,
  startFloorServer
} from "../lib/floor-server.ts";
import { groupCpuMs } from "../lib/proc.ts";
import {
  appVars,
  type BenchContext,
  type Section,
  type SectionResult,
  startBenchFake,
  targetOptions,
  uniqueWorkspace,
  value
} from "../lib/section.ts";
import { median, percentile, summarize } from "../lib/stats.ts";
import { tallyStored } from "../lib/stored-tally.ts";
import { type OpeningTarget, opening, roomsOpen, socketAndHistory } from "./floor-opening.ts";

const BURST_CHUNKS = 50;
const ANSWER_CHUNKS = 10;
/** Below the per-socket burst of Rooms' send limiter (RATE_LIMITS.socketSend): a fresh socket before that. */
const SENDS_PER_SOCKET = 8;

/** One server under test: how to reach its rooms and read back what they stored. */
interface ChatTarget {
  label: "Rooms" | "floor" | "relay";
  server: BenchServer | DevServer;
  fake: FakeOpenAI;
  /** socket URLs of `count` rooms of a fresh workspace, created first where the server needs that */
  rooms(count: number): Promise<{
    urls: string[];
    stored(i: number): Promise<any[]>;
    /** Rooms only: room i's newest page over REST, as its client asks for it beside the socket */
    newestPage?(i: number, limit: number): Promise<unknown[]>;
  }>;
}

export const floor: Section = async (ctx, out) => {
  const burstRuns = ctx.quick ? 5 : 30;
  const clients = ctx.quick ? 10 : 100;
  const roomCount = ctx.quick ? 2 : 20;
  const perClient = ctx.quick ? 2 : 10;
  out.notes.push(
    "floor = bench/floor/worker.ts: `FloorParent extends Agent` (empty) with `FloorChat extends AIChatAgent` facets whose onChatMessage is `streamText({ model: openai.chat(...), messages: convertToModelMessages(this.messages) }).toUIMessageStreamResponse()`; reached at /agents/floor-parent/<ws>/sub/floor-chat/<id> with the same cf_agent_use_chat_request frames and the same fake provider as Rooms.",
    `turns: ${burstRuns} turns of a ${BURST_CHUNKS}-chunk answer (written at once), then ${burstRuns} of a 1-chunk answer, in one room with one socket, after 3 warm-up turns; workerd CPU is the server's workerd processes' user+system time (/proc, 10 ms ticks) over the turns ÷ turns; per further chunk = (${BURST_CHUNKS}-chunk − 1-chunk) ÷ ${BURST_CHUNKS - 1}.`,
    `concurrency: ${clients} sockets over ${roomCount} rooms of one workspace (one parent), ${perClient} messages each, closed loop, ${ANSWER_CHUNKS}-chunk answers; first token = send → the sender's first text-delta.`,
    "relay = gadgets-chat's design in the same Worker (RelayParent/RelayRoom): the parent's own socket, a plain Agent facet that calls an RpcTarget per UI chunk, which sends it to that one socket; no AIChatAgent. Served by its own server (in --quick, by the floor's).",
    "The servers run at once; phases alternate Rooms, floor, relay, so each set shares the machine's load at the time.",
    "opening: a fresh room of each design filled by 1-chunk turns to 10, then 500 messages; then 2 untimed and 20 timed opens of each, alternating: Rooms' socket with ?page=50 and its REST page at once, as the client does (src/client/lib/opened-page.ts), until the first of the two brings the page (the rooms_opened frame or the response); the bare facet's and the relay's socket and history request (get-messages, ?room=) at once, until the history is parsed (floor-opening.ts)."
  );
  const targets: ChatTarget[] = [];
  let floorBuild: string | undefined;
  try {
    if (!ctx.quick) targets.push(await startRooms());
    else out.skipped.push("Rooms side in --quick: the quick run's relay and concurrency sections measure Rooms.");
    if (ctx.target === "preview") {
      floorBuild = mkdtempSync(path.join(tmpdir(), "rooms-bench-floor-build-"));
      ctx.log("floor: building the floor Worker for vite preview …");
      await buildFloor(floorBuild);
    }
    const floorTarget = await startFloor(floorBuild);
    targets.push(floorTarget);
    // Both designs are in the floor Worker: a quick run (which checks that
    // they run) serves them from one server; a full run gives each its own.
    targets.push(await startRelay(floorBuild, ctx.quick ? floorTarget : undefined));

    const medians = new Map<string, { toModel: number; firstToken: number }>();
    for (const t of targets) medians.set(t.label, await burst(ctx, out, t, burstRuns));
    reportTargets(out, medians);
    if (!ctx.quick) await opening(ctx, out, () => openingRooms(targets), 20);
    for (const t of targets) await concurrency(ctx, out, t, { clients, roomCount, perClient });
  } finally {
    for (const server of new Set(targets.map((t) => t.server))) await server.stop();
    for (const fake of new Set(targets.map((t) => t.fake))) await fake.close();
    if (floorBuild) rmSync(floorBuild, { recursive: true, force: true });
  }
};

async function startRooms(): Promise<ChatTarget> {
  const fake = await startBenchFake();
  const server = await startBenchServer({ vars: appVars(fake), ...targetOptions() }).catch(async (error) => {
    await fake.close();
    throw error;
  });
  const api = new Api(server.url);
  return {
    label: "Rooms",
    server,
    fake,
    async rooms(count) {
      const ws = uniqueWorkspace("floorcmp");
      const rooms = await Promise.all(Array.from({ length: count }, (_, i) => api.createRoom(ws, `room-${i}`)));
      return {
        urls: rooms.map((r) => roomSocketUrl(server.url, ws, r.id)),
        stored: (i) => api.allMessages(ws, rooms[i].id),
        newestPage: async (i, limit) => (await api.page(ws, rooms[i].id, limit)).messages
      };
    }
  };
}

/** gadgets-chat's design (bench/floor/worker.ts RelayParent/RelayRoom), served by its own floor Worker. */
async function startRelay(buildDir: string | undefined, on?: ChatTarget): Promise<ChatTarget> {
  const { server, fake } = on ?? (await startFloorTarget(buildDir));
  return {
    label: "relay",
    server,
    fake,
    async rooms(count) {
      const ws = uniqueWorkspace("relay");
      const urls = Array.from({ length: count }, (_, i) => relayRoomSocketUrl(server.url, ws, `room-${i}`));
      return { urls, stored: (i) => relayStoredMessages(server.url, ws, `room-${i}`) };
    }
  };
}

async function startFloorTarget(buildDir: string | undefined): Promise<Pick<ChatTarget, "server" | "fake">> {
  const fake = await startBenchFake();
  const server = await startFloorServer(fake, { buildDir }).catch(async (error) => {
    await fake.close();
    throw error;
  });
  return { server, fake };
}

async function startFloor(buildDir: string | undefined): Promise<ChatTarget> {
  const { server, fake } = await startFloorTarget(buildDir);
  return {
    label: "floor",
    server,
    fake,
    async rooms(count) {
      // Facets are created on first connect: nothing to create.
      const ws = uniqueWorkspace("floor");
      const urls = Array.from({ length: count }, (_, i) => floorRoomSocketUrl(server.url, ws, `room-${i}`));
      return { urls, stored: (i) => floorStoredMessages(server.url, ws, `room-${i}`) };
    }
  };
}

/** A fresh room of each design, and how its client opens it (floor-opening.ts). */
function openingRooms(targets: ChatTarget[]): Promise<OpeningTarget[]> {
  return Promise.all(
    targets.map(async (t) => {
      const { urls, stored, newestPage } = await t.rooms(1);
      const url = urls[0] as string;
      return {
        label: t.label,
        url,
        open: newestPage ? roomsOpen(url, (limit) => newestPage(0, limit)) : socketAndHistory(url, () => stored(0)),
        server: t.server.pid
      };
    })
  );
}

/**
 * Issue 25's two targets, from the 1-chunk turns' medians: Rooms' model request within 5 ms of the bare
 * facet's, and its first token no later than the relay design's. Only when all three designs ran (not --quick).
 */
function reportTargets(out: SectionResult, medians: Map<string, { toModel: number; firstToken: number }>) {
  const [rooms, floor, relay] = [medians.get("Rooms"), medians.get("floor"), medians.get("relay")];
  if (!rooms || !floor || !relay) return;
  out.figures["targets: Rooms' model request − the bare facet's (1-chunk medians; target ≤ 5 ms)"] = value(
    rooms.toModel - floor.toModel,
    "ms",
    1
  );
  out.figures["targets: Rooms' first token ÷ the relay design's (1-chunk medians; target ≤ 1.0)"] = value(
    rooms.firstToken / relay.firstToken,
    "×",
    2
  );
}

async function burst(
  ctx: BenchContext,
  out: SectionResult,
  t: ChatTarget,
  runs: number
): Promise<{ toModel: number; firstToken: number }> {
  const load = loadavg()[0];
  ctx.log(`floor: ${t.label} ${BURST_CHUNKS}-chunk and 1-chunk turns × ${runs} (load ${load.toFixed(2)}) …`);
  const { urls } = await t.rooms(1);
  let socket = await RoomSocket.open(urls[0]);
  let sent = 0;
  const turn = async (text: string) => {
    if (sent === SENDS_PER_SOCKET) {
      await socket.close();
      socket = await RoomSocket.open(urls[0]);
      sent = 0;
    }
    sent++;
    const before = t.fake.requests.length;
    const trace = socket.sendChat(text);
    await socket.waitDone(trace.requestId);
    const req = t.fake.requests[before];
    if (!req || trace.error || trace.firstDeltaAt === undefined || trace.lastDeltaAt === undefined) {
      throw new Error(`${t.label}: a turn produced no model request or no deltas: ${trace.error ?? ""}`);
    }
    return { trace, req };
  };
  for (let i = 0; i < 3; i++) await turn(`[[fake:chunks=${BURST_CHUNKS}]] warm-up ${i}`);
  const first: number[] = [];
  const last: number[] = [];
  const ttft: number[] = [];
  const cpu0 = groupCpuMs(t.server.pid);
  for (let i = 0; i < runs; i++) {
    const { trace, req } = await turn(`[[fake:chunks=${BURST_CHUNKS}]] burst ${i}`);
    first.push(trace.firstDeltaAt! - req.firstChunkAt!);
    last.push(trace.lastDeltaAt! - req.lastChunkAt!);
    ttft.push(trace.firstDeltaAt! - trace.sentAt);
  }
  const cpu1 = groupCpuMs(t.server.pid);
  // The same turns with a one-chunk answer: the turn's fixed cost, without the per-chunk relay.
  const ttftOne: number[] = [];
  const toModelOne: number[] = [];
  for (let i = 0; i < runs; i++) {
    const { trace, req } = await turn(`[[fake:chunks=1]] one chunk ${i}`);
    ttftOne.push(trace.firstDeltaAt! - trace.sentAt);
    toModelOne.push(req.arrivedAt - trace.sentAt);
  }
  const cpu2 = groupCpuMs(t.server.pid);
  await socket.close();
  const f = out.figures;
  const burstCpu = (cpu1.workerd - cpu0.workerd) / runs;
  const oneCpu = (cpu2.workerd - cpu1.workerd) / runs;
  f[`${BURST_CHUNKS}-chunk turn: workerd CPU per turn (mean): ${t.label}`] = value(burstCpu, "ms", 1);
  f[`1-chunk turn: workerd CPU per turn (mean): ${t.label}`] = value(oneCpu, "ms", 1);
  f[`workerd CPU per further chunk (from the two): ${t.label}`] = value(
    ((burstCpu - oneCpu) * 1000) / (BURST_CHUNKS - 1),
    "µs",
    0
  );
  f[`${BURST_CHUNKS}-chunk turn: Vite/Node CPU per turn (mean): ${t.label}`] = value(
    (cpu1.other - cpu0.other) / runs,
    "ms",
    1
  );
  f[`${BURST_CHUNKS}-chunk turn: send → first token: ${t.label}`] = summarize(ttft, "ms");
  f[`1-chunk turn: send → first token: ${t.label}`] = summarize(ttftOne, "ms");
  // What stands before the provider call (the rest is the call and the relay back).
  f[`1-chunk turn: send → model request arrives: ${t.label}`] = summarize(toModelOne, "ms");
  f[`${BURST_CHUNKS}-chunk turn: fake's first chunk → client: ${t.label}`] = summarize(first, "ms");
  f[`${BURST_CHUNKS}-chunk turn: fake's last chunk → client: ${t.label}`] = summarize(last, "ms");
  f[`turns: 1-min load average at start: ${t.label}`] = value(load, "", 2);
  return { toModel: median(toModelOne), firstToken: median(ttftOne) };
}

async function concurrency(
  ctx: BenchContext,
  out: SectionResult,
  t: ChatTarget,
  size: { clients: number; roomCount: number; perClient: number }
): Promise<void> {
  const load = loadavg()[0];
  ctx.log(
    `floor: ${t.label} concurrency ${size.clients} × ${size.perClient} over ${size.roomCount} rooms (load ${load.toFixed(2)}) …`
  );
  const rooms = await t.rooms(size.roomCount);
  const sockets = await Promise.all(
    Array.from({ length: size.clients }, (_, i) => RoomSocket.open(rooms.urls[i % size.roomCount]))
  );
  // Let the joins' presence and history frames settle before timing.
  await new Promise((r) => setTimeout(r, 1_000));
  const sent: Array<{ room: number; text: string }> = [];
  const firstToken: number[] = [];
  const done: number[] = [];
  let failed = 0;
  const reasons = new Map<string, number>();
  const fail = (reason: string) => {
    failed++;
    reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  };
  const t0 = performance.now();
  const cpu0 = groupCpuMs(t.server.pid);
  await Promise.all(
    sockets.map(async (socket, c) => {
      for (let m = 0; m < size.perClient; m++) {
        const text = `[[fake:chunks=${ANSWER_CHUNKS}]] client ${c} message ${m} ${randomUUID()}`;
        sent.push({ room: c % size.roomCount, text });
        const trace = socket.sendChat(text, { author: `client-${c}` });
        try {
          await socket.waitDone(trace.requestId, 300_000);
        } catch (error) {
          fail((error as Error).message.replace(/request \S+/, "request"));
          continue;
        }
        if (trace.error || trace.firstDeltaAt === undefined) {
          fail(trace.error ? `error frame: ${trace.error.slice(0, 200)}` : "done without a text-delta");
          continue;
        }
        firstToken.push(trace.firstDeltaAt - trace.sentAt);
        done.push(trace.doneAt! - trace.sentAt);
      }
    })
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu1 = groupCpuMs(t.server.pid);
  await Promise.all(sockets.map((s) => s.close()));

  // Every message stored exactly once and answered.
  let missing = 0;
  let duplicated = 0;
  let unanswered = 0;
  for (let i = 0; i < size.roomCount; i++) {
    const tally = tallyStored(
      await rooms.stored(i),
      sent.filter((s) => s.room === i).map((s) => s.text)
    );
    missing += tally.missing;
    duplicated += tally.duplicated;
    unanswered += tally.unanswered;
  }
  const lost = missing + duplicated + unanswered;
  const total = size.clients * size.perClient;
  const f = out.figures;
  f[`concurrency: first token p50: ${t.label}`] = value(percentile(firstToken, 50), "ms", 1);
  f[`concurrency: first token p99: ${t.label}`] = value(percentile(firstToken, 99), "ms", 1);
  f[`concurrency: answer done p50: ${t.label}`] = value(percentile(done, 50), "ms", 1);
  f[`concurrency: answer done p99: ${t.label}`] = value(percentile(done, 99), "ms", 1);
  f[`concurrency: workerd CPU per message: ${t.label}`] = value((cpu1.workerd - cpu0.workerd) / total, "ms", 1);
  f[`concurrency: workerd CPU busy: ${t.label}`] = value(
    (cpu1.workerd - cpu0.workerd) / 10 / seconds,
    "% of one core",
    0
  );
  f[`concurrency: Vite/Node CPU per message: ${t.label}`] = value((cpu1.other - cpu0.other) / total, "ms", 1);
  f[`concurrency: throughput: ${t.label}`] = value(total / seconds, "messages/s", 1);
  f[`concurrency: lost, duplicated, unanswered or failed: ${t.label}`] = value(lost + failed, "messages", 0);
  f[`concurrency: 1-min load average at start: ${t.label}`] = value(load, "", 2);
  if (lost || failed) {
    const why = [...reasons].map(([r, n]) => `${n}× ${r}`).join("; ");
    out.notes.push(
      `${t.label} concurrency NOT CLEAN: ${missing} not stored, ${duplicated} duplicated, ${unanswered} unanswered, ${failed} failed (${why}).`,
      `${t.label} server log, last lines: ${t.server.output().slice(-3000)}`
    );
  }
}
