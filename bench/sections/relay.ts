/**
 * 1. Relay overhead: from the model server writing a chunk to a Node
 * WebSocket client receiving it, for the first and the last chunk of an
 * answer; against a bare Worker that does the same relay (fetch the SSE,
 * one WebSocket frame per content chunk) in the same runtime.
 */
import WebSocket from "ws";
import type { FakeOpenAI } from "../../tests/support/fake-openai.ts";
import { Api, RoomSocket, roomSocketUrl } from "../lib/client.ts";
import { startEchoServer } from "../lib/echo-server.ts";
import { groupCpuMs } from "../lib/proc.ts";
import { type Section, startBenchFake, uniqueWorkspace, value, withApp } from "../lib/section.ts";
import { summarize } from "../lib/stats.ts";

const BURST_CHUNKS = 50;
const PACED_CHUNKS = 20;
const PACED_GAP_MS = 25;
const LONG_CHUNKS = 5_000;
/** A quick run checks the long answer's path, not its figure: a tenth of it. */
const QUICK_LONG_CHUNKS = 500;
/** Below the per-socket burst of the room's send limiter (RATE_LIMITS.socketSend). */
const SENDS_PER_SOCKET = 8;

export const relay: Section = async (ctx, out) => {
  const runs = ctx.quick ? 5 : 30;
  const pacedRuns = ctx.quick ? 2 : 8;
  const longChunks = ctx.quick ? QUICK_LONG_CHUNKS : LONG_CHUNKS;
  const warmup = 3;
  out.notes.push(
    `burst: the fake writes a ${BURST_CHUNKS}-chunk answer at once (fast mode); "first" is role+first chunk write → first text-delta frame at the client, "last" is the write holding the last chunk → last text-delta frame.`,
    `paced: ${PACED_CHUNKS} chunks written one by one ${PACED_GAP_MS} ms apart, so each chunk crosses an idle pipeline; the figure is over every chunk of every run.`,
    "baseline: bench/echo-worker (a bare Worker, no Durable Object) fetching the same SSE and sending one frame per chunk; run under the same Vite plugin as the app (same workerd build, same Node proxy; `vite preview` of its build when the target is preview) and under `wrangler dev` (its own newer workerd and proxy).",
    `${runs} burst runs and ${pacedRuns} paced runs per path after ${warmup} warm-up runs; one client, one room.`
  );

  await withApp(async (app, fake) => {
    const api = new Api(app.url);
    const ws = uniqueWorkspace("relay");
    const room = await api.createRoom(ws, "relay");
    const deltaTimes = new Map<string, Array<{ at: number; delta: string }>>();
    const open = async () => {
      const s = await RoomSocket.open(roomSocketUrl(app.url, ws, room.id));
      s.onFrame((frame, at) => {
        if (
          frame?.type !== "cf_agent_use_chat_response" ||
          typeof frame.body !== "string" ||
          !frame.body.includes('"text-delta"')
        )
          return;
        const list = deltaTimes.get(frame.id) ?? [];
        list.push({ at, delta: JSON.parse(frame.body).delta });
        deltaTimes.set(frame.id, list);
      });
      return s;
    };
    let socket = await open();
    let sentOnSocket = 0;
    const turn = async (text: string) => {
      // A socket may send 10 messages at once, then one a second: take a
      // fresh socket (a fresh bucket) before that, so only relay is timed.
      if (sentOnSocket === SENDS_PER_SOCKET) {
        await socket.close();
        socket = await open();
        sentOnSocket = 0;
      }
      sentOnSocket++;
      const before = fake.requests.length;
      const trace = socket.sendChat(text);
      await socket.waitDone(trace.requestId);
      const req = fake.requests[before];
      if (!req || trace.firstDeltaAt === undefined || trace.lastDeltaAt === undefined) {
        throw new Error(`relay turn produced no model request or no deltas: ${trace.error ?? ""}`);
      }
      return { trace, req, deltas: deltaTimes.get(trace.requestId) ?? [] };
    };
    for (let i = 0; i < warmup; i++) await turn(`[[fake:chunks=${BURST_CHUNKS}]] warm-up ${i}`);

    const first: number[] = [];
    const last: number[] = [];
    const ttft: number[] = [];
    const toModel: number[] = [];
    const burstCpu0 = groupCpuMs(app.pid);
    for (let i = 0; i < runs; i++) {
      const { trace, req } = await turn(`[[fake:chunks=${BURST_CHUNKS}]] burst ${i}`);
      first.push(trace.firstDeltaAt! - req.firstChunkAt!);
      last.push(trace.lastDeltaAt! - req.lastChunkAt!);
      ttft.push(trace.firstDeltaAt! - trace.sentAt);
      toModel.push(req.arrivedAt - trace.sentAt);
    }
    const burstCpu1 = groupCpuMs(app.pid);
    // CPU is read in 10 ms ticks: the mean over all runs, not a per-turn spread.
    out.figures[`app WS ${BURST_CHUNKS}-chunk burst: workerd CPU per turn (mean)`] = value(
      (burstCpu1.workerd - burstCpu0.workerd) / runs,
      "ms",
      1
    );
    out.figures[`app WS ${BURST_CHUNKS}-chunk burst: Vite dev proxy CPU per turn (mean)`] = value(
      (burstCpu1.other - burstCpu0.other) / runs,
      "ms",
      1
    );
    out.figures["app WS burst: first chunk"] = summarize(first, "ms");
    out.figures["app WS burst: last chunk"] = summarize(last, "ms");
    out.figures["app WS: send → model request arrives"] = summarize(toModel, "ms");
    out.figures["app WS: send → first text-delta (time to first token, fast model)"] = summarize(ttft, "ms");

    const paced: number[] = [];
    const pacedFirst: number[] = [];
    for (let i = 0; i < pacedRuns; i++) {
      const { req, deltas } = await turn(`[[fake:chunks=${PACED_CHUNKS},slow=${PACED_GAP_MS}]] paced ${i}`);
      paced.push(...pacedLatencies(req, deltas));
      pacedFirst.push(deltas[0].at - req.chunkAt![0]);
    }
    out.figures["app WS paced: per chunk"] = summarize(paced, "ms");
    out.figures["app WS paced: first chunk"] = summarize(pacedFirst, "ms");

    const longRuns = ctx.quick ? 1 : 3;
    const longTotal: number[] = [];
    let longMissing = 0;
    const longCpu0 = groupCpuMs(app.pid);
    for (let i = 0; i < longRuns; i++) {
      const { trace } = await turn(`[[fake:chunks=${longChunks}]] long ${i}`);
      longTotal.push(trace.lastDeltaAt! - trace.sentAt);
      longMissing += Math.max(0, longChunks - trace.chunks);
    }
    out.figures[`app WS ${longChunks}-chunk burst: send → last chunk at the client`] = summarize(longTotal, "ms", 0);
    out.figures[`app WS ${longChunks}-chunk burst: missing chunks`] = value(longMissing, "chunks", 0);
    const longCpu1 = groupCpuMs(app.pid);
    out.figures[`app WS ${longChunks}-chunk burst: workerd CPU per turn (mean)`] = value(
      (longCpu1.workerd - longCpu0.workerd) / longRuns,
      "ms",
      0
    );
    await socket.close();

    // The REST path: the same turn as server-sent events.
    const sseFirst: number[] = [];
    const sseLast: number[] = [];
    for (let i = 0; i < warmup + runs; i++) {
      const before = fake.requests.length;
      const times = await restSseTurn(
        `${app.url}${api.roomsPath(ws)}/${room.id}/messages`,
        `[[fake:chunks=${BURST_CHUNKS}]] sse ${i}`
      );
      const req = fake.requests[before];
      if (i < warmup) continue;
      sseFirst.push(times.first - req.firstChunkAt!);
      sseLast.push(times.last - req.lastChunkAt!);
    }
    out.figures["app REST SSE burst: first chunk"] = summarize(sseFirst, "ms");
    out.figures["app REST SSE burst: last chunk"] = summarize(sseLast, "ms");
  });

  // A quick run checks the baseline under the Vite plugin only: `wrangler
  // dev` is one more server to bundle and boot in a test run bound by two
  // cores' CPU, so its path runs only in a full run.
  if (ctx.quick) out.skipped.push("the baseline under wrangler dev in --quick (one more server to boot)");
  for (const kind of ctx.quick ? (["vite"] as const) : (["vite", "wrangler"] as const)) {
    const fake = await startBenchFake();
    let echo: Awaited<ReturnType<typeof startEchoServer>> | undefined;
    try {
      echo = await startEchoServer(kind, { preview: ctx.target === "preview" });
      const label = kind === "vite" ? "baseline Worker (vite plugin)" : "baseline Worker (wrangler dev)";
      const client = await EchoClient.open(`${echo.url.replace(/^http/, "ws")}/ws`);
      const rtt: number[] = [];
      for (let i = 0; i < 10 + runs * 2; i++) {
        const t = await client.ping();
        if (i >= 10) rtt.push(t);
      }
      out.figures[`${label}: WebSocket echo round trip`] = summarize(rtt, "ms");
      const first: number[] = [];
      const last: number[] = [];
      for (let i = 0; i < warmup + runs; i++) {
        const before = fake.requests.length;
        const deltas = await client.relay(`${fake.origin}/stream?chunks=${BURST_CHUNKS}`);
        const req = fake.requests[before];
        if (i < warmup) continue;
        first.push(deltas[0].at - req.firstChunkAt!);
        last.push(deltas.at(-1)!.at - req.lastChunkAt!);
      }
      out.figures[`${label} burst: first chunk`] = summarize(first, "ms");
      out.figures[`${label} burst: last chunk`] = summarize(last, "ms");
      const paced: number[] = [];
      for (let i = 0; i < pacedRuns; i++) {
        const before = fake.requests.length;
        const deltas = await client.relay(`${fake.origin}/stream?chunks=${PACED_CHUNKS}&slow=${PACED_GAP_MS}`);
        paced.push(...pacedLatencies(fake.requests[before], deltas));
      }
      out.figures[`${label} paced: per chunk`] = summarize(paced, "ms");
      const longTotal: number[] = [];
      for (let i = 0; i < (ctx.quick ? 1 : 3); i++) {
        const started = performance.now();
        const deltas = await client.relay(`${fake.origin}/stream?chunks=${longChunks}`);
        longTotal.push(deltas.at(-1)!.at - started);
      }
      out.figures[`${label} ${longChunks}-chunk burst: request → last chunk at the client`] = summarize(
        longTotal,
        "ms",
        0
      );
      client.close();
    } catch (error) {
      out.skipped.push(`baseline under ${kind}: ${(error as Error).message.split("\n")[0]}`);
      ctx.log(`relay: baseline ${kind} failed: ${(error as Error).message}`);
    } finally {
      await echo?.stop();
      await fake.close();
    }
  }
};

/** Latency of each paced chunk: its write time at the fake → its frame at the client. */
function pacedLatencies(req: FakeOpenAI["requests"][number], deltas: Array<{ at: number; delta: string }>): number[] {
  const out: number[] = [];
  for (const d of deltas) {
    // A delta may carry several chunks (the room coalesces): each is timed.
    for (const m of d.delta.matchAll(/t(\d+) /g)) {
      const written = req.chunkAt?.[Number(m[1])];
      if (written !== undefined) out.push(d.at - written);
    }
  }
  return out;
}

/** POST a message with Accept: text/event-stream; times of the first and last text-delta event. */
async function restSseTurn(url: string, text: string): Promise<{ first: number; last: number }> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ text, author: "bench" })
  });
  if (!response.ok || !response.body) throw new Error(`SSE send failed: ${response.status}`);
  const decoder = new TextDecoder();
  let buffer = "";
  let first = Number.NaN;
  let last = Number.NaN;
  for await (const piece of response.body as unknown as AsyncIterable<Uint8Array>) {
    const at = performance.now();
    buffer += decoder.decode(piece, { stream: true });
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (event.startsWith("event: chunk") && event.includes('"text-delta"')) {
        if (Number.isNaN(first)) first = at;
        last = at;
      }
    }
  }
  if (Number.isNaN(first)) throw new Error("SSE answer had no text-delta");
  return { first, last };
}

class EchoClient {
  private ws: WebSocket;
  private handler: ((data: string, at: number) => void) | null = null;
  private constructor(ws: WebSocket) {
    this.ws = ws;
    ws.on("message", (data) => this.handler?.(data.toString(), performance.now()));
  }

  static async open(url: string): Promise<EchoClient> {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
    });
    return new EchoClient(ws);
  }

  ping(): Promise<number> {
    return new Promise((resolve) => {
      const token = `ping:${Math.random()}`;
      const sent = performance.now();
      this.handler = (data, at) => {
        if (data === token) resolve(at - sent);
      };
      this.ws.send(token);
    });
  }

  relay(url: string): Promise<Array<{ at: number; delta: string }>> {
    return new Promise((resolve, reject) => {
      const deltas: Array<{ at: number; delta: string }> = [];
      const timer = setTimeout(() => reject(new Error("baseline relay timed out")), 60_000);
      this.handler = (data, at) => {
        const frame = JSON.parse(data);
        if (frame.delta !== undefined) deltas.push({ at, delta: frame.delta });
        if (frame.done) {
          clearTimeout(timer);
          resolve(deltas);
        }
      };
      this.ws.send(JSON.stringify({ relay: url }));
    });
  }

  close() {
    this.ws.close();
  }
}
