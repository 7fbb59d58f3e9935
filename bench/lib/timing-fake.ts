/**
 * A minimal OpenAI Chat Completions server for the benchmarks, speaking the
 * same SSE wire format as tests/support/fake-openai.ts, that records WHEN it
 * wrote the first and the last content chunk of every answer
 * (`performance.now()` of this process, so a WebSocket client in the same
 * process can subtract).
 *
 * It is always in fast mode: no delays. The last user message picks the answer:
 *
 *   [[fake:chunks=N]] or [[bench:chunks=N]]   N content chunks "t0 ", "t1 ", ...
 *   anything else                             a 3-chunk answer "ok ok ok "
 *   gapms=M (with chunks)                     paced: each content chunk is its own write,
 *                                             M ms apart, and its time is kept in `chunkAt`
 *   tag=XYZ inside a [[bench:...]] directive  recorded on the request, to correlate
 *
 * Writes: the role chunk and the first content chunk go out in one write (its
 * time is `firstChunkAt`); the rest is batched into 32 KiB writes honouring
 * backpressure, and `lastChunkAt` is the time of the write that holds the
 * last content chunk. This is the same batching as the project's fake.
 */
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface TimedRequest {
  seq: number;
  tag?: string;
  chunks: number;
  arrivedAt: number;
  firstChunkAt?: number;
  lastChunkAt?: number;
  endedAt?: number;
  /** paced answers only: when each content chunk was written */
  chunkAt?: number[];
  closedEarly: boolean;
}

export interface TimingFake {
  /** OPENAI_BASE_URL for the app, e.g. http://127.0.0.1:PORT/v1 */
  url: string;
  /** http://127.0.0.1:PORT/stream?chunks=N — plain SSE of the same format for the baseline worker */
  origin: string;
  requests: TimedRequest[];
  close(): Promise<void>;
}

const WRITE_BATCH_BYTES = 32 * 1024;
const DIRECTIVE = /\[\[(?:fake|bench):([^\]]*)\]\]/;

function lastUserText(body: any): string {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role !== "user") continue;
    const c = messages[i].content;
    if (typeof c === "string") return c;
    if (Array.isArray(c)) return c.map((p: any) => (typeof p?.text === "string" ? p.text : "")).join("");
    return "";
  }
  return "";
}

function parseDirective(text: string): Map<string, string> {
  const params = new Map<string, string>();
  const m = DIRECTIVE.exec(text);
  if (!m) return params;
  for (const part of m[1].split(",")) {
    const [k, v = ""] = part.split("=");
    if (k.trim()) params.set(k.trim().toLowerCase(), v.trim());
  }
  return params;
}

function sseEvents(opts: { chunks: number; includeUsage: boolean; model: string; id: string }): string[] {
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    `data: ${JSON.stringify({
      id: opts.id,
      object: "chat.completion.chunk",
      created,
      model: opts.model,
      system_fingerprint: "fp_fake",
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...(opts.includeUsage ? { usage: null } : {})
    })}\n\n`;
  const events: string[] = [chunk({ role: "assistant", content: "", refusal: null })];
  for (let i = 0; i < opts.chunks; i++) events.push(chunk({ content: `t${i} ` }));
  events.push(chunk({}, "stop"));
  if (opts.includeUsage) {
    events.push(
      `data: ${JSON.stringify({
        id: opts.id,
        object: "chat.completion.chunk",
        created,
        model: opts.model,
        system_fingerprint: "fp_fake",
        choices: [],
        usage: { prompt_tokens: 10, completion_tokens: opts.chunks, total_tokens: 10 + opts.chunks }
      })}\n\n`
    );
  }
  events.push("data: [DONE]\n\n");
  return events;
}

/**
 * Writes events: [role + first content] at once, then 32 KiB batches.
 * `firstIndex`/`lastIndex` are the indexes of the first/last content events.
 */
async function writeTimed(
  res: http.ServerResponse,
  events: string[],
  firstIndex: number,
  lastIndex: number,
  rec: { firstChunkAt?: number; lastChunkAt?: number }
): Promise<boolean> {
  let closed = false;
  res.once("close", () => (closed = true));
  const drain = () =>
    new Promise<void>((resolve) => {
      if (closed) return resolve();
      const done = () => {
        res.off("drain", done);
        res.off("close", done);
        resolve();
      };
      res.on("drain", done);
      res.on("close", done);
    });
  let i = 0;
  // The opening write: everything up to and including the first content chunk.
  let head = "";
  for (; i <= Math.max(0, firstIndex) && i < events.length; i++) head += events[i];
  rec.firstChunkAt = performance.now();
  if (lastIndex <= firstIndex) rec.lastChunkAt = rec.firstChunkAt;
  if (!res.write(head)) await drain();
  let buf = "";
  let holdsLast = false;
  for (; i < events.length; i++) {
    if (closed) return false;
    buf += events[i];
    if (i === lastIndex) holdsLast = true;
    if (buf.length >= WRITE_BATCH_BYTES || i === events.length - 1) {
      if (holdsLast && rec.lastChunkAt === undefined) rec.lastChunkAt = performance.now();
      const ok = res.write(buf);
      buf = "";
      if (!ok) await drain();
      else if (i !== events.length - 1) await new Promise<void>((r) => setImmediate(r));
    }
  }
  return !closed;
}

/** Paced: role chunk, then each content chunk alone, `gapMs` apart, then the tail in one write. */
async function writePaced(
  res: http.ServerResponse,
  events: string[],
  chunks: number,
  gapMs: number,
  rec: TimedRequest
): Promise<boolean> {
  let closed = false;
  res.once("close", () => (closed = true));
  res.write(events[0]);
  rec.chunkAt = [];
  for (let i = 1; i <= chunks; i++) {
    if (i > 1) await new Promise((r) => setTimeout(r, gapMs));
    if (closed) return false;
    rec.chunkAt.push(performance.now());
    res.write(events[i]);
  }
  rec.firstChunkAt = rec.chunkAt[0];
  rec.lastChunkAt = rec.chunkAt.at(-1);
  res.write(events.slice(chunks + 1).join(""));
  return !closed;
}

export async function startTimingFake(): Promise<TimingFake> {
  const requests: TimedRequest[] = [];
  const sockets = new Set<Socket>();
  let seq = 0;

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const path = url.pathname.replace(/^\/v1/, "");
    if (req.method === "GET" && path.startsWith("/models")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({ object: "list", data: [{ id: "fake-model", object: "model", created: 0, owned_by: "bench" }] })
      );
      return;
    }
    if (req.method === "GET" && path === "/stream") {
      // The baseline worker fetches this: same events, no request body.
      const chunks = Math.max(1, Number(url.searchParams.get("chunks") ?? "3"));
      const rec: TimedRequest = {
        seq: ++seq,
        tag: url.searchParams.get("tag") ?? undefined,
        chunks,
        arrivedAt: performance.now(),
        closedEarly: false
      };
      requests.push(rec);
      res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
      const events = sseEvents({ chunks, includeUsage: false, model: "fake-model", id: `chatcmpl-bench-${rec.seq}` });
      const gap = Number(url.searchParams.get("gapms") ?? "0");
      const ok =
        gap > 0 ? await writePaced(res, events, chunks, gap, rec) : await writeTimed(res, events, 1, chunks, rec);
      rec.closedEarly = !ok;
      rec.endedAt = performance.now();
      res.end();
      return;
    }
    if (req.method !== "POST" || path !== "/chat/completions") {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          error: { message: "Not found", type: "invalid_request_error", param: null, code: "not_found" }
        })
      );
      return;
    }
    const arrivedAt = performance.now();
    let raw = "";
    for await (const piece of req) raw += piece;
    let body: any = {};
    try {
      body = JSON.parse(raw);
    } catch {
      // leave empty
    }
    const params = parseDirective(lastUserText(body));
    const chunks = params.has("chunks") ? Math.max(1, Number(params.get("chunks")) || 1) : 3;
    const rec: TimedRequest = { seq: ++seq, tag: params.get("tag"), chunks, arrivedAt, closedEarly: false };
    requests.push(rec);
    const model = typeof body?.model === "string" ? body.model : "fake-model";
    const id = `chatcmpl-bench-${rec.seq}`;
    if (body?.stream !== true) {
      const text = Array.from({ length: chunks }, (_, i) => `t${i} `).join("");
      rec.firstChunkAt = rec.lastChunkAt = performance.now();
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id,
          object: "chat.completion",
          created: Math.floor(Date.now() / 1000),
          model,
          choices: [
            {
              index: 0,
              message: { role: "assistant", content: text, refusal: null },
              logprobs: null,
              finish_reason: "stop"
            }
          ],
          usage: { prompt_tokens: 10, completion_tokens: chunks, total_tokens: 10 + chunks }
        })
      );
      rec.endedAt = performance.now();
      return;
    }
    res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      connection: "keep-alive"
    });
    const events = sseEvents({ chunks, includeUsage: body?.stream_options?.include_usage === true, model, id });
    const gap = Number(params.get("gapms") ?? "0");
    const ok =
      gap > 0 ? await writePaced(res, events, chunks, gap, rec) : await writeTimed(res, events, 1, chunks, rec);
    rec.closedEarly = !ok;
    rec.endedAt = performance.now();
    if (ok) res.end();
  });
  server.on("connection", (s) => {
    s.setNoDelay(true);
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      })
  };
}
