/**
 * 8. A persona panel: eight answers streaming at once in one room, watched
 * by twenty sockets. One question @-mentions eight personas; each persona
 * (a facet of the room) asks the fake for a numbered answer, and the room
 * relays all eight growing answers to every socket.
 */
import { Api, openViewers, type RoomSocket, roomSocketUrl } from "../lib/client.ts";
import { groupCpuMs } from "../lib/proc.ts";
import { type Section, uniqueWorkspace, value, withApp } from "../lib/section.ts";
import { summarize } from "../lib/stats.ts";

const PERSONAS = 8;
const VIEWERS = 20;

/** Highest numbered chunk ("t<i> ") each persona's answer has reached, from any frame carrying its message. */
function trackAnswers(socket: RoomSocket, personaIds: Set<string>) {
  const reached = new Map<string, number>();
  let frames = 0;
  let lastAt = Number.NaN;
  const off = socket.onFrame((frame, at) => {
    // Live updates carry one growing message; saves carry the transcript window.
    const messages: any[] =
      frame?.type === "cf_agent_message_updated"
        ? [frame.message]
        : frame?.type === "cf_agent_chat_messages"
          ? (frame.messages ?? [])
          : [];
    let counted = false;
    for (const message of messages) {
      const persona = message?.metadata?.persona?.id;
      if (!persona || !personaIds.has(persona)) continue;
      counted = true;
      const text = (message.parts ?? [])
        .filter((p: any) => p.type === "text")
        .map((p: any) => p.text)
        .join("");
      const last = /t(\d+) *$/.exec(text);
      const n = last ? Number(last[1]) + 1 : 0;
      if (n > (reached.get(persona) ?? 0)) {
        reached.set(persona, n);
        lastAt = at;
      }
    }
    if (counted) frames++;
  });
  return {
    off,
    reached,
    get frames() {
      return frames;
    },
    get lastAt() {
      return lastAt;
    }
  };
}

export const panel: Section = async (ctx, out) => {
  const chunks = ctx.quick ? 200 : 1_000;
  const runs = ctx.quick ? 1 : 3;
  out.notes.push(
    `${PERSONAS} personas in one room answer one question that @-mentions them all, in parallel; each answer is ${chunks} chunks written by the fake in one burst; ${VIEWERS} sockets watch; ${runs} run(s), each in a fresh room.`,
    "Persona answers reach sockets as cf_agent_message_updated frames (one growing message) and cf_agent_chat_messages frames (the transcript window, on each save); a chunk counts as delivered when the first frame carrying it reaches a socket.",
    "chunks/s per viewer = all answers' chunks ÷ (send → the last chunk reaches the slowest viewer); aggregate = that × viewers.",
    "CPU: user+system time of the server's workerd process(es) over the run, per model chunk (all eight answers)."
  );
  await withApp(async (app, fake) => {
    const api = new Api(app.url);
    const ws = uniqueWorkspace("panel");
    const perViewer: number[] = [];
    const aggregate: number[] = [];
    const firstChunk: number[] = [];
    const framesPerViewer: number[] = [];
    const cpuPerChunk: number[] = [];
    let missing = 0;
    for (let r = 0; r < runs + 1; r++) {
      const warm = r === 0;
      const room = await api.createRoom(ws, `panel-${r}`);
      const names = Array.from({ length: PERSONAS }, (_, i) => `p${i}x${r}`);
      const personaIds = new Set<string>();
      for (const name of names) {
        const created = await api.json(`${api.roomsPath(ws)}/${room.id}/personas`, {
          method: "POST",
          body: { name },
          expect: [201]
        });
        personaIds.add(created.body.id);
      }
      const sockets = await openViewers(app.url, roomSocketUrl(app.url, ws, room.id), warm ? 1 : VIEWERS);
      await new Promise((resolve) => setTimeout(resolve, 300 + 20 * sockets.length));
      const trackers = sockets.map((s) => trackAnswers(s, personaIds));
      const requestsBefore = fake.requests.length;
      const cpu0 = groupCpuMs(app.pid);
      const sentAt = performance.now();
      const trace = sockets[0].sendChat(
        `${names.map((n) => `@${n}`).join(" ")} [[fake:chunks=${warm ? 50 : chunks}]] panel ${r}`
      );
      await Promise.all(sockets.map((s) => s.waitDone(trace.requestId, 900_000)));
      const cpu1 = groupCpuMs(app.pid);
      for (const t of trackers) t.off();
      const requests = fake.requests.slice(requestsBefore);
      await Promise.all(sockets.map((s) => s.close()));
      if (warm) continue;
      if (requests.length < PERSONAS) {
        // Say how the turn ended, so a failure names what refused or ended it.
        const ended = trace.error ? `an error frame: ${trace.error.slice(0, 300)}` : "its done frame, no error";
        const after = trace.doneAt === undefined ? "" : ` ${(trace.doneAt - sentAt).toFixed(0)} ms after the send`;
        // And what the room stored for it: each message's role, persona and error, if any.
        const stored = (await api.allMessages(ws, room.id).catch(() => [])).map(
          (m: any) =>
            `${m.role}${m.metadata?.persona ? ` @${m.metadata.persona.name}` : ""}${m.metadata?.error ? ` (${m.metadata.errorCode ?? ""} ${m.metadata.error})` : ""}`
        );
        throw new Error(
          `panel: expected ${PERSONAS} model requests, saw ${requests.length}; the turn ended with ${ended}${after} (${trace.deltas} text deltas); stored: ${stored.join("; ").slice(0, 1500)}`
        );
      }
      const total = PERSONAS * chunks;
      const slowest = Math.max(...trackers.map((t) => t.lastAt));
      const seconds = (slowest - sentAt) / 1000;
      perViewer.push(total / seconds);
      aggregate.push((total * VIEWERS) / seconds);
      firstChunk.push(Math.min(...requests.map((q) => q.firstChunkAt ?? Number.NaN)) - sentAt);
      framesPerViewer.push(trackers.reduce((sum, t) => sum + t.frames, 0) / trackers.length);
      cpuPerChunk.push(((cpu1.workerd - cpu0.workerd) * 1000) / total);
      for (const t of trackers) {
        for (const id of personaIds) missing += Math.max(0, chunks - (t.reached.get(id) ?? 0));
      }
      ctx.log(`panel: run ${r}/${runs}: ${(total / seconds).toFixed(0)} chunks/s per viewer`);
    }
    out.figures[`${PERSONAS} answers × ${VIEWERS} viewers: chunks/s per viewer`] = summarize(perViewer, "chunks/s", 0);
    out.figures[`${PERSONAS} answers × ${VIEWERS} viewers: chunks/s aggregate`] = summarize(aggregate, "chunks/s", 0);
    out.figures["send → the fake writes the first persona's first chunk"] = summarize(firstChunk, "ms");
    out.figures["frames carrying persona answers, per viewer"] = summarize(framesPerViewer, "frames", 0);
    out.figures["workerd CPU per model chunk"] = summarize(cpuPerChunk, "µs", 0);
    out.figures["missing chunks (all viewers, all answers)"] = value(missing, "chunks", 0);
  });
};
