/**
 * 12. Files: an upload's throughput and what it costs memory (a 20 MB file
 * must not cost more than a 5 MB one: the Worker streams it into R2 parts
 * through one reused 5 MiB buffer), as workerd's RSS and as the app
 * isolate's own (RSS also holds workerd's native buffers and the local R2
 * bucket, which grow with the file under `vite dev`: lib/upload-memory.ts),
 * the time to index a 300-page PDF (upload answered → indexed), and send →
 * first token in a room with 200 indexed documents beside one with none
 * (retrieval must not make a turn dearer with the room's files; target
 * within 10 %).
 */
import path from "node:path";
import { freePort, ROOT, startDevServer } from "../../tests/support/dev-server.ts";
import { makePdf } from "../../tests/support/files.ts";
import { Api, RoomSocket, roomSocketUrl } from "../lib/client.ts";
import { workerdRssKiB } from "../lib/proc.ts";
import { type Section, type SectionResult, uniqueWorkspace, value, withApp } from "../lib/section.ts";
import { summarize } from "../lib/stats.ts";
import { measureUploadMemory } from "../lib/upload-memory.ts";
import { imageBytes, MiB, upload } from "../lib/uploads.ts";

async function waitIndexed(api: Api, ws: string, roomId: string, count: number, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await api.json(`${api.roomsPath(ws)}/${roomId}/files?limit=200`, { expect: [200] });
    const files = body.files as Array<{ state: string; error: string | null }>;
    const failed = files.find((f) => f.state === "failed");
    if (failed) throw new Error(`a document failed to index: ${failed.error}`);
    if (files.filter((f) => f.state === "indexed").length >= count) return;
    if (Date.now() > deadline) throw new Error(`documents not indexed within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Peak growth of workerd's RSS while `work` runs, sampled every 50 ms. */
async function peakRssGrowthMiB(pid: number, work: () => Promise<unknown>): Promise<number> {
  const before = workerdRssKiB(pid);
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, workerdRssKiB(pid));
  }, 50);
  try {
    await work();
    return (Math.max(peak, workerdRssKiB(pid)) - before) / 1024;
  } finally {
    clearInterval(sampler);
  }
}

/**
 * The floors for upload memory, each on a fresh server of its own (RSS is a
 * high-water mark), the same sizes in the same order as the app's uploads:
 * a bare Worker (bench/r2-floor) that only reads the body and drops it, what
 * receiving the bytes costs workerd; and one that streams them into the same
 * local bucket, what workerd and the local bucket take for the bytes.
 */
async function r2Floors(sizes: number[], out: SectionResult) {
  const floors = [
    { path: "/drain", label: "floor (bare Worker, body read and dropped)" },
    { path: "/put", label: "floor (bare Worker, one streamed put)" }
  ];
  for (const { path: route, label } of floors) {
    const floor = await startDevServer({ configFile: path.join(ROOT, "bench/r2-floor/vite.config.ts") });
    try {
      const send = async (mb: number) => {
        const response = await fetch(`${floor.url}${route}?key=${mb}-${Math.random()}`, {
          method: "PUT",
          body: imageBytes(mb * MiB)
        });
        if (response.status !== 201) throw new Error(`r2 floor ${route}: ${response.status} ${await response.text()}`);
      };
      await send(1);
      for (const [i, mb] of [...sizes, sizes[sizes.length - 1] as number].entries()) {
        const again = i === sizes.length ? " again" : "";
        out.figures[`${label}, ${mb} MB${again}: workerd RSS peak growth`] = value(
          await peakRssGrowthMiB(floor.pid, () => send(mb)),
          "MiB",
          1
        );
      }
    } finally {
      await floor.stop();
    }
  }
}

/**
 * The app isolate's memory during the same uploads, through the inspector
 * (lib/upload-memory.ts): on a server of its own, after the timed phase, so
 * the inspector's requests cost the throughput figures nothing.
 */
async function appIsolateMemory(sizes: number[], out: SectionResult, log: (message: string) => void) {
  const inspectorPort = await freePort();
  await withApp(
    async (app) => {
      let i = 0;
      await measureUploadMemory(app, inspectorPort, [...sizes, sizes[sizes.length - 1] as number], (r) => {
        const name = `upload ${r.mb} MB${i++ === sizes.length ? " again" : ""}: app isolate`;
        out.figures[`${name} live peak growth`] = value(r.live.peak.total / MiB, "MiB", 1);
        out.figures[`${name} peak growth, garbage included`] = value(r.sampled.peak.total / MiB, "MiB", 1);
        log(
          `files: ${name} +${(r.live.peak.total / MiB).toFixed(1)} MiB live, +${(r.sampled.peak.total / MiB).toFixed(1)} with garbage`
        );
      });
    },
    { vars: { ROOMS_INSPECTOR_PORT: String(inspectorPort) } }
  );
}

export const files: Section = async (ctx, out) => {
  const sizes = ctx.quick ? [5, 10] : [5, 20];
  const pdfPages = ctx.quick ? 10 : 300;
  const documents = ctx.quick ? 20 : 200;
  const turnRuns = ctx.quick ? 3 : 10;
  out.notes.push(
    "Uploads: one multipart POST each from a Node client on loopback, timed from request to 201 (MB/s = MiB / s); workerd RSS is the peak growth during the upload, sampled every 50 ms (/proc), after one warm-up upload. RSS only grows, so each figure is a high-water mark: the largest size is uploaded twice. Floors: bench/r2-floor, a bare Worker that reads a PUT body and drops it, and one that streams it into the same kind of local bucket in one put, each on a fresh server, the same sizes in the same order (vite dev).",
    "App isolate: the app Worker's own memory through workerd's V8 inspector (Runtime.getHeapUsage: JS heap + workerd's C++ heap + ArrayBuffer backing stores; not workerd's native buffers, not the local R2 bucket), on another server with the inspector on, after a 1 MB warm-up, each upload from the floor of a forced collection; the largest size twice. Live: the upload sent in 1 MiB slices, after each a collection and a reading: what the code holds, the bytes waiting for the next 5 MiB part plus the reused part buffer, so ~10 MiB from a file's second part on (a 5 MB file's one part is cut at its end). Garbage included: the same size at full speed, read as often as workerd answers (a few times an upload: between the isolate's tasks), a lower bound that also depends on when V8 collects.",
    `PDF: ${pdfPages} pages of generated text, timed from the upload's 201 to the file reading state "indexed" (polled every 100 ms): the Worker's extraction with unpdf, the passages sent to the room in batches, FTS5 inserts.`,
    `Turns: ${documents} indexed text documents (~2 KB each, words shared with the question) in one room, none in another; ${turnRuns} timed WebSocket turns of a 20-chunk answer each after 2 untimed, a question that matches the documents; send → first text-delta at the client.`
  );
  if (ctx.quick) out.skipped.push("the R2 floors in --quick (two more servers to boot)");
  else await r2Floors(sizes, out);
  await withApp(async (app) => {
    const api = new Api(app.url);
    const ws = uniqueWorkspace("files");
    const room = await api.createRoom(ws, "uploads");
    await upload(app.url, ws, room.id, imageBytes(MiB), "warm-up.png");
    for (const mb of sizes) {
      const bytes = imageBytes(mb * MiB);
      let ms = 0;
      const growth = await peakRssGrowthMiB(app.pid, async () => {
        const t = performance.now();
        await upload(app.url, ws, room.id, bytes, `${mb}mb.png`);
        ms = performance.now() - t;
      });
      out.figures[`upload ${mb} MB: throughput`] = value(mb / (ms / 1000), "MB/s", 1);
      out.figures[`upload ${mb} MB: workerd RSS peak growth`] = value(growth, "MiB", 1);
      ctx.log(`files: ${mb} MB in ${ms.toFixed(0)} ms, RSS +${growth.toFixed(1)} MiB`);
    }
    // RSS only grows (a high-water mark): the same size again shows what an upload keeps.
    const largest = sizes[sizes.length - 1] as number;
    out.figures[`upload ${largest} MB again: workerd RSS peak growth`] = value(
      await peakRssGrowthMiB(app.pid, () => upload(app.url, ws, room.id, imageBytes(largest * MiB), "again.png")),
      "MiB",
      1
    );

    const pages = Array.from({ length: pdfPages }, (_, p) =>
      Array.from(
        { length: 30 },
        (_, l) => `Page ${p + 1}, line ${l + 1}: the quarterly report on harbour traffic and tides.`
      )
    );
    const pdfRoom = await api.createRoom(ws, "pdf");
    const pdf = makePdf(pages);
    const file = await upload(app.url, ws, pdfRoom.id, pdf, "report.pdf");
    const t0 = performance.now();
    await waitIndexed(api, ws, pdfRoom.id, 1, 600_000);
    out.figures[`index a ${pdfPages}-page PDF (${(pdf.length / MiB).toFixed(1)} MB)`] = value(
      performance.now() - t0,
      "ms",
      0
    );
    void file;

    const full = await api.createRoom(ws, "documents");
    const empty = await api.createRoom(ws, "no-documents");
    for (let i = 0; i < documents; i++) {
      const text = Array.from(
        { length: 30 },
        (_, l) => `Document ${i} line ${l}: notes on the lighthouse, the ferry timetable and harbour fees.`
      ).join("\n");
      await upload(app.url, ws, full.id, text, `doc-${i}.txt`);
    }
    await waitIndexed(api, ws, full.id, documents, 300_000);
    const medians: Record<string, number> = {};
    for (const [label, id] of [
      ["no documents", empty.id],
      [`${documents} documents`, full.id]
    ] as const) {
      const socket = await RoomSocket.open(roomSocketUrl(app.url, ws, id));
      const ttft: number[] = [];
      for (let i = 0; i < turnRuns + 2; i++) {
        const trace = socket.sendChat(`[[fake:chunks=20]] What are the harbour fees for the ferry? ${i}`);
        await socket.waitDone(trace.requestId);
        if (trace.firstDeltaAt === undefined) throw new Error(`turn in the room with ${label} had no delta`);
        if (i >= 2) ttft.push(trace.firstDeltaAt - trace.sentAt);
      }
      await socket.close();
      const summary = summarize(ttft, "ms");
      out.figures[`send → first token, ${label}`] = summary;
      medians[label] = summary.median;
    }
    const ratio = medians[`${documents} documents`]! / medians["no documents"]!;
    out.figures[`send → first token: ${documents} documents / none (median)`] = value(ratio, "×", 2);
  });
  // 10 MB too: the live set is flat from a file's second part on.
  await appIsolateMemory(ctx.quick ? sizes : [5, 10, 20], out, ctx.log);
};
