/**
 * 5. Concurrency: 100 WebSocket clients over 20 rooms, each sending 10
 * messages (each sends its next message once its previous answer is done).
 * Throughput, first-chunk latency, and lost messages, checked afterwards
 * against what the server stored.
 */
import { randomUUID } from "node:crypto";
import { Api, RoomSocket, roomSocketUrl } from "../lib/client.ts";
import { groupCpuMs } from "../lib/proc.ts";
import { type Section, uniqueWorkspace, value, withApp } from "../lib/section.ts";
import { percentile, summarize } from "../lib/stats.ts";
import { tallyStored } from "../lib/stored-tally.ts";

const ANSWER_CHUNKS = 10;

export const concurrency: Section = async (ctx, out) => {
  const clients = ctx.quick ? 20 : 100;
  const roomCount = ctx.quick ? 4 : 20;
  const perClient = ctx.quick ? 3 : 10;
  out.notes.push(
    `${clients} sockets over ${roomCount} rooms (${clients / roomCount} per room), ${perClient} messages each, closed loop: a client sends its next message when the answer to its previous one is done. Answers are ${ANSWER_CHUNKS} chunks in fast mode.`,
    "first-chunk latency = send → the sender's socket receives the first text-delta of its own answer; it includes waiting behind the other turns queued in the same room (rooms answer one turn at a time).",
    "lost = user messages not stored exactly once, answers missing, or requests that never completed; checked by paging GET /messages of every room afterwards."
  );
  await withApp(async (app) => {
    const api = new Api(app.url);
    const ws = uniqueWorkspace("conc");
    const rooms = await Promise.all(Array.from({ length: roomCount }, (_, i) => api.createRoom(ws, `conc-${i}`)));
    const sockets = await Promise.all(
      Array.from({ length: clients }, (_, i) => RoomSocket.open(roomSocketUrl(app.url, ws, rooms[i % roomCount].id)))
    );
    await new Promise((r) => setTimeout(r, 1_000));

    const sent: Array<{ room: string; text: string }> = [];
    const firstChunk: number[] = [];
    const doneLatency: number[] = [];
    let failed = 0;
    const t0 = performance.now();
    const cpu0 = groupCpuMs(app.pid);
    await Promise.all(
      sockets.map(async (socket, c) => {
        for (let m = 0; m < perClient; m++) {
          const text = `[[fake:chunks=${ANSWER_CHUNKS}]] client ${c} message ${m} ${randomUUID()}`;
          sent.push({ room: rooms[c % roomCount].id, text });
          const trace = socket.sendChat(text, { author: `client-${c}` });
          try {
            await socket.waitDone(trace.requestId, 300_000);
          } catch {
            failed++;
            continue;
          }
          if (trace.error || trace.firstDeltaAt === undefined) {
            failed++;
            continue;
          }
          firstChunk.push(trace.firstDeltaAt - trace.sentAt);
          doneLatency.push(trace.doneAt! - trace.sentAt);
        }
      })
    );
    const seconds = (performance.now() - t0) / 1000;
    const cpu1 = groupCpuMs(app.pid);
    await Promise.all(sockets.map((s) => s.close()));

    // Verify against storage.
    let lost = 0;
    let duplicated = 0;
    let unanswered = 0;
    for (const room of rooms) {
      const tally = tallyStored(
        await api.allMessages(ws, room.id),
        sent.filter((x) => x.room === room.id).map((x) => x.text)
      );
      lost += tally.missing;
      duplicated += tally.duplicated;
      unanswered += tally.unanswered;
    }
    const total = clients * perClient;
    out.figures.throughput = value(total / seconds, "messages/s", 1);
    out.figures["wall time"] = value(seconds, "s", 1);
    out.figures["workerd CPU per message (turn)"] = value((cpu1.workerd - cpu0.workerd) / total, "ms", 1);
    out.figures["workerd CPU busy during the run"] = value(
      (cpu1.workerd - cpu0.workerd) / 10 / seconds,
      "% of one core",
      0
    );
    out.figures["Vite dev proxy (Node) CPU per message"] = value((cpu1.other - cpu0.other) / total, "ms", 1);
    out.figures["first-chunk latency p50"] = value(percentile(firstChunk, 50), "ms", 1);
    out.figures["first-chunk latency p99"] = value(percentile(firstChunk, 99), "ms", 1);
    out.figures["first-chunk latency"] = summarize(firstChunk, "ms", 1);
    out.figures["answer done latency p50"] = value(percentile(doneLatency, 50), "ms", 1);
    out.figures["answer done latency p99"] = value(percentile(doneLatency, 99), "ms", 1);
    out.figures["messages sent"] = value(total, "messages", 0);
    out.figures["lost messages (not stored)"] = value(lost, "messages", 0);
    out.figures["duplicated messages"] = value(duplicated, "messages", 0);
    out.figures["unanswered messages"] = value(unanswered, "messages", 0);
    out.figures["requests that failed or never finished"] = value(failed, "requests", 0);
    if (lost || duplicated || unanswered || failed) {
      out.notes.push(`NOT CLEAN: ${lost} lost, ${duplicated} duplicated, ${unanswered} unanswered, ${failed} failed.`);
    }
  });
};
