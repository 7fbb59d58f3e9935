/**
 * fake-openai — a local, dependency-free OpenAI Chat Completions server for tests
 * and benchmarks (unit, worker, e2e). Plain `node:http`; runs under vitest, under
 * `node --experimental-strip-types` (see fake-openai-cli.ts), and from any other
 * process via HTTP.
 *
 * Endpoints
 *   POST /v1/chat/completions     OpenAI wire format (streaming SSE and non-streaming JSON)
 *   GET  /v1/models               { object: "list", data: [{ id: "fake-model", ... }] }
 *   GET  /v1/models/:id           a single model object
 *   GET  /stream?chunks=N[&slow=MS]   the answer of [[fake:chunks=N,slow=MS]] as SSE to a plain GET,
 *                                 for a bare Worker that relays a model stream (the relay benchmark's baseline)
 *   GET  /__fake/requests[?match=TEXT][&after=ID]   recorded requests as JSON (bodies > 64 KiB are
 *                                 replaced by a summary); `match`: only requests that match TEXT (see
 *                                 "Keyed scripts"), `after`: only those recorded after request ID
 *   GET  /__fake/wait-request?match=TEXT[&after=ID][&timeoutMs=MS]   the first such request, waiting
 *                                 for it (408 when none came in time)
 *   GET  /__fake/wait-close?id=ID[&timeoutMs=MS]   200 once the client closed request ID before it was
 *                                 answered, 409 if it was answered first, 408 when neither in time
 *   POST /__fake/scenario         set the scenario (JSON body = a FakeScenario), or a keyed script
 *                                 (JSON body = { key, scenario }, scenario null removes it)
 *   POST /__fake/open-gate        open a gate (JSON body = { gate }): streams held by it go on
 *   POST /__fake/reset            clear requests, directive counters, scripts, gates, back to { kind: "text" }
 *   (the `/v1` prefix is optional on the OpenAI routes)
 *
 * Keyed scripts (one fake shared by many test files, see tests/support/README.md)
 *   A request MATCHES a text when its model is that text or any of its messages (system included)
 *   contains it. `script(key, scenario)` answers every request that matches `key` with `scenario`,
 *   until the key is scripted again, so tests sharing one fake script only their own rooms: put a
 *   key of your own (uniqueName()) in a room's system prompt or model, or in a message.
 *   Precedence: a directive in the last user message, then one in the system message(s), then the
 *   most recently set script whose key matches, then the scenario.
 *
 * Per-request directives
 *   The LAST user message (string content, or the text parts of an array content) may contain
 *   ONE directive that overrides the current scenario for that request only (only the first
 *   directive in the message is used):
 *
 *     directive := "[[fake:" param ("," param)* "]]"
 *     param     := key | key "=" value        value: any chars except "," and "]" (URI-decoded,
 *                                             so "%2C" gives a comma)
 *
 *   Kind is chosen by the first matching key in this order:
 *     fail=N[,status=429|500|503][,retryms=MS|none]  fail-then: the first N requests carrying this
 *                                     exact directive string fail with `status` (default 503); later
 *                                     ones follow the scenario described by the remaining params
 *                                     (e.g. [[fake:fail=2,status=503,slow=10]]). The counter is keyed
 *                                     by the directive text, so retries of the same request fail N
 *                                     times then succeed; add e.g. ",id=abc" to get a fresh counter.
 *                                     Failures carry `retry-after-ms: MS` (default 1) so AI-SDK
 *                                     retries are fast; `retryms=none` omits the header.
 *     status=401|429|500|503[,retry=SECONDS][,retryms=MS]   HTTP error with an OpenAI error body
 *                                     (`retry-after` / `retry-after-ms` headers when given)
 *     hang[=noheaders]                accept and never send data (by default a streaming request gets
 *                                     200 + SSE headers first; `hang=noheaders` sends nothing at all)
 *     cut=N[,text=...]                stream N content chunks, then destroy the socket (no [DONE])
 *     malformed                       200 text/event-stream with an invalid JSON `data:` line
 *     tool=NAME[,args=URI-encoded-JSON][,then=TEXT][,loop]   tool call (args default {}); `loop`
 *                                     calls the tool again after every result (a runaway model); once a `tool`
 *                                     message follows the last user message, answers with TEXT
 *                                     (default "Tool said: <tool result content>")
 *     chunks=N[,slow=MS][,gate=NAME]  exactly N content chunks "t0 ", "t1 ", ...; with `gate`, the last
 *                                     chunk waits until the gate NAME is opened (POST /__fake/open-gate):
 *                                     "while it still streams" without racing the stream
 *     split=SEED[,piece=BYTES]        (with chunks or text) a network that cuts anywhere: the SSE bytes
 *                                     go out in separate writes of 1..BYTES bytes (default 24), cut at
 *                                     pseudo-random positions from SEED: inside lines, JSON strings and
 *                                     multi-byte UTF-8 characters alike
 *     text=TEXT | slow=MS | chunk=N | nousage   text scenario (combinable):
 *                                     reply TEXT (default "Echo: <last user text without directive>"),
 *                                     MS delay between chunks, N chars per chunk, omit usage chunk
 *   Examples: "[[fake:status=429]]", "[[fake:hang]]", "[[fake:cut=3]]", "[[fake:malformed]]",
 *             "[[fake:slow=50]]", "[[fake:chunks=10000]]", "[[fake:tool=get_current_time]]",
 *             "[[fake:fail=2,status=503]]".
 *   With no directive in the last user message, the first directive in the system message(s) is
 *   used instead: give one persona (whose system prompt it is) its own behaviour.
 *   Unknown keys are ignored (they still make the directive string, and so the fail counter, distinct).
 *
 * Summary requests (the room's memory, src/server/domain/memory/summary-prompt.ts): a request whose
 *   last user message starts with "## Conversation to summarise" or "## Summaries to combine" is
 *   answered with "Fake summary of N lines: …" (the first words of every "[speaker] text" line, or of
 *   every part), cut to the request's max_tokens (finish_reason "length"), and recorded with
 *   `summary: true`. Only summary requests honour these directive params (found anywhere in the span,
 *   e.g. in a message that is being summarised; other requests ignore them):
 *     sumhang                 never answer (a summary stuck at the provider)
 *     sumslow=MS              answer after MS
 *     sumstatus=429|500|503   fail with that status
 *
 * Auto-mode decisions (src/server/domain/turns/auto-reply.ts): a request whose last user message starts
 *   with "## Should the assistant answer the latest message?" is answered with one line of JSON:
 *   {"answer": true, "reason": "fake: a question to the room"} when the latest message (after
 *   "Latest message, from …:") holds a "?", else {"answer": false, "reason": "fake: people talking to
 *   each other"}. Recorded with `decision: true`.
 * Echo text strips directives from the user text ("[[fake:slow=5]] hi" -> "Echo: hi").
 * Continuations: when the request ends with an assistant message whose text begins the
 * reply, only the remainder is sent (as a model continuing its own answer would).
 * Token accounting: prompt_tokens = max(1, ceil(chars of all message contents / 4));
 * completion_tokens = number of chunks for `chunks`, else max(1, ceil(output chars / 4)).
 *
 * Timing (for benchmarks): every request records when it arrived and when the writes holding
 * its first and last content chunk went out (`arrivedAt`, `firstChunkAt`, `lastChunkAt`, and
 * for a paced answer `chunkAt` of each chunk), as `performance.now()` of this process, so a
 * client in the same process can subtract. Without a delay, the role chunk and the first
 * content chunk go out in one write of their own and the rest in 32 KiB writes that honour
 * backpressure ("fast mode": as fast as the client reads); with `slow=MS` every event is its
 * own write, MS apart ("paced").
 */

import type { IncomingMessage, ServerResponse } from "node:http";
import http from "node:http";
import type { Socket } from "node:net";
import { clearTimeout, setTimeout } from "node:timers";

export type FakeScenario =
  | {
      kind: "text";
      /** default: "Echo: <last user message text>" */
      text?: string;
      chunkDelayMs?: number;
      /** characters per content chunk, default 4 */
      chunkSize?: number;
      /** include the usage chunk when stream_options.include_usage is requested (default true) */
      usage?: boolean;
      split?: SplitWrites;
    }
  | {
      kind: "chunks";
      count: number;
      chunkDelayMs?: number;
      split?: SplitWrites;
      /** hold the last chunk until this gate is opened (not with `split`) */
      gate?: string;
    }
  | {
      kind: "tool-call";
      /** a runaway model: call the tool again after every tool result */
      loop?: boolean;
      toolName: string;
      args: Record<string, unknown>;
      /** default: "Tool said: <tool result content>" */
      thenText?: string;
    }
  | {
      kind: "status";
      status: 401 | 429 | 500 | 503;
      /** sends `retry-after: <seconds>` */
      retryAfterSeconds?: number;
      /** sends `retry-after-ms: <ms>` */
      retryAfterMs?: number;
      /** replaces the default OpenAI-style `{ error: {...} }` body */
      body?: unknown;
    }
  | {
      kind: "hang";
      /** for streaming requests, send 200 + SSE headers before hanging (default true) */
      headers?: boolean;
    }
  | { kind: "cut"; afterChunks: number; text?: string }
  | { kind: "malformed" }
  | {
      kind: "fail-then";
      failures: number;
      status: 429 | 500 | 503;
      next: FakeScenario;
      /** `retry-after-ms` header on the failures (default 1, so SDK retries are fast); false omits it */
      retryAfterMs?: number | false;
    };

/** The indexes of the first and last content events of a streamed answer (the role chunk is 0). */
interface ContentEvents {
  first: number;
  last: number;
}

/** Write the SSE bytes in pieces of 1..maxPieceBytes, cut at positions drawn from `seed`. */
interface SplitWrites {
  seed: number;
  maxPieceBytes?: number;
}

export interface RecordedRequest {
  id: number;
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  startedAt: number;
  /** `performance.now()` when the request arrived, before its body was read */
  arrivedAt: number;
  /** `performance.now()` of the write holding the first content chunk of a streamed answer */
  firstChunkAt?: number;
  /** `performance.now()` of the write holding the last content chunk of a streamed answer */
  lastChunkAt?: number;
  /** a paced answer (`slow=MS`): `performance.now()` of each content chunk's write, in order */
  chunkAt?: number[];
  /** true when the client closed the connection before the server finished the response */
  closedByClient: boolean;
  /** set when the response ended or the connection closed */
  finishedAt?: number;
  /** scenario kind actually used for this request (chat completions only) */
  scenario?: FakeScenario["kind"];
  /** A summary request of the room's memory (see "Summary requests" above). */
  summary?: boolean;
  /** An auto-mode decision request (see "Auto-mode decisions" above). */
  decision?: boolean;
  /** the directive found in the last user message, if any */
  directive?: string;
  /** HTTP status sent (undefined while hanging without headers) */
  status?: number;
  /** text of the last user message */
  lastUserText?: string;
  /** text of the system message(s), joined */
  systemText?: string;
  /** the model the request named */
  model?: string;
  /** the key of the script that answered it, if one did */
  scriptKey?: string;
}

export interface FakeOpenAI {
  /** e.g. "http://127.0.0.1:PORT/v1" — the OPENAI_BASE_URL to give the app */
  url: string;
  /** e.g. "http://127.0.0.1:PORT" — for the non-OpenAI routes (`/stream`, `/__fake/...`) */
  origin: string;
  port: number;
  requests: RecordedRequest[];
  setScenario(s: FakeScenario): void;
  /** answers requests that match `key` with `s` (null: removes the script); see "Keyed scripts" */
  script(key: string, s: FakeScenario | null): void;
  /** lets every stream held by gate `name` go on, now and later */
  openGate(name: string): void;
  /** resolves with the first recorded request (already recorded or future) matching predicate */
  waitForRequest(predicate?: (r: RecordedRequest) => boolean, timeoutMs?: number): Promise<RecordedRequest>;
  /** resolves once the client closed the connection before the server finished; rejects if the server finished first */
  waitForClientClose(requestId: number, timeoutMs?: number): Promise<void>;
  /** clears requests and counters, back to the scenario the fake started with */
  reset(): void;
  close(): Promise<void>;
}

const FAKE_MODEL_ID = "fake-model";

const DEFAULT_SCENARIO: FakeScenario = { kind: "text" };
const DIRECTIVE_RE = /\[\[fake:([^\]]*)\]\]/;
const DIRECTIVE_RE_GLOBAL = /\[\[fake:[^\]]*\]\]/g;
const MAX_LISTED_BODY_CHARS = 64 * 1024;
const WRITE_BATCH_BYTES = 32 * 1024;

// ---------------------------------------------------------------------------
// message helpers

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((p) => (p && typeof p === "object" && typeof (p as any).text === "string" ? (p as any).text : ""))
      .join("");
  }
  return "";
}

function lastIndexOfRole(messages: any[], role: string): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]?.role === role) return i;
  return -1;
}

function getMessages(body: any): any[] {
  return Array.isArray(body?.messages) ? body.messages : [];
}

function systemText(body: any): string {
  return getMessages(body)
    .filter((m) => m?.role === "system")
    .map((m) => contentText(m.content))
    .join("\n");
}

function lastUserText(body: any): string {
  const messages = getMessages(body);
  const i = lastIndexOfRole(messages, "user");
  return i >= 0 ? contentText(messages[i].content) : "";
}

/**
 * Like a real model asked to continue: when the request ends with a partial
 * assistant answer that begins the reply, only the rest is sent.
 */
function continuationOf(body: any, full: string): string {
  const messages = getMessages(body);
  const last = messages[messages.length - 1];
  if (last?.role !== "assistant") return full;
  const partial = contentText(last.content);
  return partial && full.startsWith(partial) ? full.slice(partial.length) : full;
}

function stripDirectives(text: string): string {
  return text.replace(DIRECTIVE_RE_GLOBAL, "").replace(/\s+/g, " ").trim();
}

const DECISION_HEADING = "## Should the assistant answer the latest message?";

/** The fake's auto-mode decision: a question gets an answer, anything else does not. */
function fakeDecision(text: string): string {
  const latest = text.split(/\nLatest message, from [^\n]*:\n/)[1] ?? "";
  return JSON.stringify(
    latest.includes("?")
      ? { answer: true, reason: "fake: a question to the room" }
      : { answer: false, reason: "fake: people talking to each other" }
  );
}

const SUMMARY_HEADINGS = ["## Conversation to summarise", "## Summaries to combine"];

/** The fake's summary of a summary request's text: the first words of each line (or part), in order. */
function fakeSummary(text: string): string {
  const merge = text.startsWith(SUMMARY_HEADINGS[1]);
  const body = text.slice(text.indexOf("\n") + 1);
  const units = merge
    ? body.split(/^### Part \d+\n/m).filter((part) => part.trim())
    : body.split("\n").filter((line) => line.startsWith("["));
  const firstWords = units.map((unit) => stripDirectives(unit).split(/\s+/).slice(0, 8).join(" "));
  return `Fake ${merge ? "merged summary" : "summary"} of ${units.length} ${merge ? "parts" : "lines"}: ${firstWords.join("; ")}`;
}

function promptTokens(body: any): number {
  let chars = 0;
  for (const m of getMessages(body)) {
    chars += contentText(m?.content).length;
    if (Array.isArray(m?.tool_calls)) {
      for (const tc of m.tool_calls) chars += String(tc?.function?.arguments ?? "").length;
    }
  }
  return Math.max(1, Math.ceil(chars / 4));
}

function tokensFor(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

function splitChunks(text: string, size: number): string[] {
  const chars = Array.from(text);
  const n = Math.max(1, Math.floor(size));
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += n) out.push(chars.slice(i, i + n).join(""));
  return out;
}

// ---------------------------------------------------------------------------
// directive parsing

function parseDirective(text: string): { raw: string; params: Map<string, string> } | undefined {
  const m = DIRECTIVE_RE.exec(text);
  if (!m) return undefined;
  const params = new Map<string, string>();
  for (const part of m[1].split(",")) {
    const trimmed = part.trim();
    if (!trimmed) continue;
    const eq = trimmed.indexOf("=");
    const key = (eq < 0 ? trimmed : trimmed.slice(0, eq)).trim().toLowerCase();
    let value = eq < 0 ? "" : trimmed.slice(eq + 1).trim();
    try {
      value = decodeURIComponent(value);
    } catch {
      // keep raw value
    }
    if (!params.has(key)) params.set(key, value);
  }
  return { raw: m[0], params };
}

function num(v: string | undefined, fallback: number): number {
  if (v === undefined || v === "") return fallback;
  const n = Number(v);
  return Number.isFinite(n) ? n : fallback;
}

function scenarioFromParams(p: Map<string, string>): FakeScenario {
  if (p.has("fail")) {
    const rest = new Map(p);
    for (const k of ["fail", "status", "retryms", "retry"]) rest.delete(k);
    const retryms = p.get("retryms");
    return {
      kind: "fail-then",
      failures: num(p.get("fail"), 1),
      status: num(p.get("status"), 503) as 429 | 500 | 503,
      retryAfterMs: retryms === "none" ? false : num(retryms, 1),
      next: scenarioFromParams(rest)
    };
  }
  if (p.has("status")) {
    const s: FakeScenario = { kind: "status", status: num(p.get("status"), 500) as 401 | 429 | 500 | 503 };
    if (p.has("retry")) s.retryAfterSeconds = num(p.get("retry"), 1);
    if (p.has("retryms")) s.retryAfterMs = num(p.get("retryms"), 1);
    return s;
  }
  if (p.has("hang")) return { kind: "hang", headers: p.get("hang") !== "noheaders" };
  if (p.has("cut")) {
    const s: FakeScenario = { kind: "cut", afterChunks: num(p.get("cut"), 1) };
    if (p.has("text")) s.text = p.get("text");
    return s;
  }
  if (p.has("malformed")) return { kind: "malformed" };
  if (p.has("tool")) {
    let args: Record<string, unknown> = {};
    const rawArgs = p.get("args");
    if (rawArgs) {
      try {
        const parsed = JSON.parse(rawArgs);
        if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) args = parsed;
      } catch {
        // ignore bad args, use {}
      }
    }
    const s: FakeScenario = { kind: "tool-call", toolName: p.get("tool") || "tool", args };
    if (p.has("then")) s.thenText = p.get("then");
    if (p.has("loop")) s.loop = true;
    return s;
  }
  if (p.has("chunks")) {
    const s: FakeScenario = { kind: "chunks", count: num(p.get("chunks"), 1) };
    if (p.has("slow")) s.chunkDelayMs = num(p.get("slow"), 0);
    if (p.get("gate")) s.gate = p.get("gate");
    if (p.has("split")) s.split = splitFromParams(p);
    return s;
  }
  const s: FakeScenario = { kind: "text" };
  if (p.has("text")) s.text = p.get("text");
  if (p.has("slow")) s.chunkDelayMs = num(p.get("slow"), 0);
  if (p.has("chunk")) s.chunkSize = num(p.get("chunk"), 4);
  if (p.has("nousage")) s.usage = false;
  if (p.has("split")) s.split = splitFromParams(p);
  return s;
}

function splitFromParams(p: Map<string, string>): SplitWrites {
  return { seed: num(p.get("split"), 1), maxPieceBytes: Math.max(1, num(p.get("piece"), 24)) };
}

/** A small seeded generator (LCG), so a split that breaks something can be replayed. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const VALID_KINDS = new Set(["text", "chunks", "tool-call", "status", "hang", "cut", "malformed", "fail-then"]);

function isScenario(x: unknown): x is FakeScenario {
  return !!x && typeof x === "object" && VALID_KINDS.has((x as any).kind);
}

function isKeyedScript(x: unknown): x is { key: string; scenario: FakeScenario | null } {
  if (!x || typeof x !== "object") return false;
  const { key, scenario } = x as { key?: unknown; scenario?: unknown };
  return typeof key === "string" && key.length > 0 && (scenario === null || isScenario(scenario));
}

// ---------------------------------------------------------------------------
// error bodies

function defaultErrorBody(status: number): unknown {
  switch (status) {
    case 401:
      return {
        error: {
          message:
            "Incorrect API key provided: test. You can find your API key at https://platform.openai.com/account/api-keys.",
          type: "invalid_request_error",
          param: null,
          code: "invalid_api_key"
        }
      };
    case 429:
      return {
        error: {
          message: "Rate limit reached for fake-model. Please try again later.",
          type: "requests",
          param: null,
          code: "rate_limit_exceeded"
        }
      };
    case 503:
      return {
        error: {
          message: "The server is overloaded or not ready yet.",
          type: "server_error",
          param: null,
          code: "service_unavailable"
        }
      };
    case 400:
      return { error: { message: "Bad request", type: "invalid_request_error", param: null, code: null } };
    case 404:
      return { error: { message: "Not found", type: "invalid_request_error", param: null, code: "not_found" } };
    default:
      return {
        error: {
          message: "The server had an error while processing your request. Sorry about that!",
          type: "server_error",
          param: null,
          code: null
        }
      };
  }
}

// ---------------------------------------------------------------------------
// server

interface Ctx {
  req: IncomingMessage;
  res: ServerResponse;
  rec: RecordedRequest;
  /** true once the response is closed (by either side) — stop writing */
  closed: boolean;
  timers: Set<ReturnType<typeof setTimeout>>;
  wakers: Set<() => void>;
}

/** The directive for a call of `tool` with `args` (and `then`: the answer once the tool's result is in). */
export function toolDirective(tool: string, args: Record<string, unknown> = {}, then?: string): string {
  const params = [`tool=${tool}`, `args=${encodeURIComponent(JSON.stringify(args))}`];
  if (then !== undefined) params.push(`then=${encodeURIComponent(then)}`);
  return `[[fake:${params.join(",")}]]`;
}

interface FakeOpenAIOptions {
  port?: number;
  host?: string;
  /** what a request without a directive gets, now and after `reset()` (default `{ kind: "text" }`: an echo) */
  scenario?: FakeScenario;
}

export function startFakeOpenAI(opts: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const host = opts.host ?? "127.0.0.1";
  const requests: RecordedRequest[] = [];
  const initialScenario = opts.scenario ?? DEFAULT_SCENARIO;
  let scenario: FakeScenario = initialScenario;
  let nextId = 1;
  let closing = false;
  /** fail-then counters for scenarios set via setScenario (keyed by object identity) */
  let scenarioCounters = new WeakMap<object, number>();
  /** fail-then counters for directives (keyed by directive text) */
  const directiveCounters = new Map<string, number>();
  /** keyed scripts, oldest first (see "Keyed scripts") */
  const scripts = new Map<string, FakeScenario>();
  /** gates streams wait at (`gate=NAME`), and whether each is open */
  const gates = new Map<string, { open: boolean; waiters: Set<() => void> }>();
  /** each request's message texts, joined, once something matched against them */
  const searchText = new WeakMap<RecordedRequest, string>();
  const sockets = new Set<Socket>();
  const activeCtx = new Set<Ctx>();
  const requestListeners = new Set<(r: RecordedRequest) => void>();
  const closeListeners = new Set<(r: RecordedRequest) => void>();
  const waiterCleanups = new Set<() => void>();

  function notifyRequest(r: RecordedRequest) {
    for (const l of [...requestListeners]) l(r);
  }
  function notifyClose(r: RecordedRequest) {
    for (const l of [...closeListeners]) l(r);
  }

  // -- write helpers --------------------------------------------------------

  function sleep(ctx: Ctx, ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (ctx.closed) return resolve();
      const t = setTimeout(() => {
        ctx.timers.delete(t);
        ctx.wakers.delete(wake);
        resolve();
      }, ms);
      const wake = () => {
        clearTimeout(t);
        ctx.timers.delete(t);
        resolve();
      };
      ctx.timers.add(t);
      ctx.wakers.add(wake);
    });
  }

  function waitDrain(ctx: Ctx): Promise<void> {
    return new Promise((resolve) => {
      if (ctx.closed) return resolve();
      const done = () => {
        ctx.res.off("drain", done);
        ctx.wakers.delete(done);
        resolve();
      };
      ctx.res.on("drain", done);
      ctx.wakers.add(done);
    });
  }

  /** write and wait until the data has been flushed to the socket (or the response closed) */
  function writeFlushed(ctx: Ctx, data: string | Uint8Array): Promise<void> {
    return new Promise((resolve) => {
      if (ctx.closed) return resolve();
      const done = () => {
        ctx.wakers.delete(done);
        resolve();
      };
      ctx.wakers.add(done);
      ctx.res.write(data, () => done());
    });
  }

  function sendJson(ctx: Ctx, status: number, body: unknown, headers: Record<string, string> = {}) {
    if (ctx.closed) return;
    const text = JSON.stringify(body);
    ctx.rec.status = status;
    ctx.res.writeHead(status, {
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(text)),
      ...headers
    });
    ctx.res.end(text);
  }

  function startSse(ctx: Ctx) {
    ctx.rec.status = 200;
    ctx.res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      connection: "keep-alive"
    });
    ctx.res.flushHeaders();
  }

  function sse(obj: unknown): string {
    return `data: ${typeof obj === "string" ? obj : JSON.stringify(obj)}\n\n`;
  }

  /**
   * Write SSE events. With delayMs > 0 each event is written separately after a delay;
   * otherwise the events up to the first content chunk go out at once and the rest in
   * larger writes (respecting backpressure). `content` gives the indexes of the first
   * and last content events, whose write times the request records (see Timing above).
   * Returns false if the response closed before everything was written.
   */
  function gateNamed(name: string) {
    let gate = gates.get(name);
    if (!gate) {
      gate = { open: false, waiters: new Set() };
      gates.set(name, gate);
    }
    return gate;
  }

  /** Resolves once gate `name` is open or the request closed. */
  function passGate(ctx: Ctx, name: string): Promise<void> {
    const gate = gateNamed(name);
    if (gate.open || ctx.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        gate.waiters.delete(wake);
        ctx.wakers.delete(wake);
        resolve();
      };
      gate.waiters.add(wake);
      ctx.wakers.add(wake);
    });
  }

  async function writeEvents(
    ctx: Ctx,
    events: Iterable<string>,
    delayMs: number,
    split?: SplitWrites,
    content?: ContentEvents,
    gate?: string
  ): Promise<boolean> {
    const { rec } = ctx;
    const isContent = (i: number) => content !== undefined && i >= content.first && i <= content.last;
    /** Records the write of events `from`..`to` (inclusive), just before it is made. */
    const written = (from: number, to: number) => {
      if (!content || to < content.first || from > content.last) return;
      const at = performance.now();
      if (from <= content.first) rec.firstChunkAt = at;
      if (to >= content.last) rec.lastChunkAt = at;
      if (delayMs > 0) {
        rec.chunkAt ??= [];
        for (let i = from; i <= to; i++) if (isContent(i)) rec.chunkAt.push(at);
      }
    };
    if (split) return writeSplit(ctx, events, delayMs, split, written);
    let buf = "";
    let bufFrom = 0;
    let index = 0;
    for (const ev of events) {
      if (ctx.closed) return false;
      if (gate !== undefined && index === content?.last) {
        if (buf) {
          written(bufFrom, index - 1);
          if (!ctx.res.write(buf)) await waitDrain(ctx);
          buf = "";
          bufFrom = index;
        }
        await passGate(ctx, gate);
        if (ctx.closed) return false;
      }
      if (delayMs > 0) {
        if (index > 0) {
          await sleep(ctx, delayMs);
          if (ctx.closed) return false;
        }
        written(index, index);
        if (!ctx.res.write(ev)) await waitDrain(ctx);
      } else {
        buf += ev;
        if (buf.length >= WRITE_BATCH_BYTES || index === content?.first) {
          written(bufFrom, index);
          const ok = ctx.res.write(buf);
          buf = "";
          bufFrom = index + 1;
          if (!ok) await waitDrain(ctx);
          else if (index !== content?.first) await new Promise<void>((r) => setImmediate(r));
        }
      }
      index++;
    }
    if (ctx.closed) return false;
    if (buf) {
      written(bufFrom, index - 1);
      if (!ctx.res.write(buf)) await waitDrain(ctx);
    }
    return !ctx.closed;
  }

  /**
   * Each write is a separate, flushed piece of 1..maxPieceBytes bytes, cut
   * without regard for lines or characters. Without a delay the pieces run
   * across event boundaries; with one, each event is cut up after its delay.
   */
  async function writeSplit(
    ctx: Ctx,
    events: Iterable<string>,
    delayMs: number,
    split: SplitWrites,
    written: (from: number, to: number) => void
  ) {
    const random = seededRandom(split.seed);
    const maxPiece = Math.max(1, Math.floor(split.maxPieceBytes ?? 24));
    let carry = Buffer.alloc(0);
    const writePieces = async (bytes: Buffer, flushAll: boolean) => {
      let from = 0;
      while (from < bytes.length) {
        const size = 1 + Math.floor(random() * maxPiece);
        if (!flushAll && from + size > bytes.length) break;
        const piece = bytes.subarray(from, from + size);
        from += piece.length;
        await writeFlushed(ctx, piece);
        if (ctx.closed) return bytes.subarray(bytes.length);
        // let the socket send it on its own before the next piece
        await new Promise<void>((r) => setImmediate(r));
      }
      return bytes.subarray(from);
    };
    let index = 0;
    for (const ev of events) {
      if (ctx.closed) return false;
      // Timed as the event is handed to the pieces (which may hold part of it back).
      if (delayMs > 0) {
        if (index > 0) await sleep(ctx, delayMs);
        written(index, index);
        await writePieces(Buffer.from(ev, "utf8"), true);
      } else {
        written(index, index);
        carry = await writePieces(Buffer.concat([carry, Buffer.from(ev, "utf8")]), false);
      }
      index++;
    }
    if (carry.length > 0) await writePieces(carry, true);
    return !ctx.closed;
  }

  // -- chat completions -----------------------------------------------------

  function resolveScenario(ctx: Ctx): FakeScenario {
    const d = parseDirective(ctx.rec.lastUserText ?? "") ?? parseDirective(ctx.rec.systemText ?? "");
    if (d) return resolveFailThen(scenarioFromParams(d.params), d.raw, true);
    const keys = [...scripts.keys()];
    for (let i = keys.length - 1; i >= 0; i--) {
      if (!matches(ctx.rec, keys[i])) continue;
      const scripted = scripts.get(keys[i])!;
      ctx.rec.scriptKey = keys[i];
      return resolveFailThen(scripted, scripted, false);
    }
    return resolveFailThen(scenario, scenario, false);
  }

  /** Whether a request names `text` as its model or carries it in any message (see "Keyed scripts"). */
  function matches(r: RecordedRequest, text: string): boolean {
    if (r.model === text) return true;
    let all = searchText.get(r);
    if (all === undefined) {
      all = getMessages(r.body)
        .map((m) => contentText(m?.content))
        .join("\n");
      searchText.set(r, all);
    }
    return all.includes(text);
  }

  /** unwraps fail-then scenarios, counting requests */
  function resolveFailThen(s: FakeScenario, key: object | string, byDirective: boolean): FakeScenario {
    if (s.kind !== "fail-then") return s;
    const seen = byDirective ? (directiveCounters.get(key as string) ?? 0) : (scenarioCounters.get(key as object) ?? 0);
    if (byDirective) directiveCounters.set(key as string, seen + 1);
    else scenarioCounters.set(key as object, seen + 1);
    if (seen < s.failures) {
      const st: FakeScenario = { kind: "status", status: s.status };
      const ms = s.retryAfterMs === undefined ? 1 : s.retryAfterMs;
      if (ms !== false) st.retryAfterMs = ms;
      return st;
    }
    // nested fail-then: key by the inner object (or the directive + suffix)
    return resolveFailThen(s.next, byDirective ? `${key as string}#then` : s.next, byDirective);
  }

  async function handleChat(ctx: Ctx) {
    const body = ctx.rec.body;
    const stream = body?.stream === true;
    const includeUsage = stream && body?.stream_options?.include_usage === true;
    const model = typeof body?.model === "string" ? body.model : FAKE_MODEL_ID;
    const created = Math.floor(Date.now() / 1000);
    const id = `chatcmpl-fake-${ctx.rec.id}`;
    if ((ctx.rec.lastUserText ?? "").startsWith(DECISION_HEADING)) {
      ctx.rec.decision = true;
      return answerText(ctx, { id, created, model, stream }, fakeDecision(ctx.rec.lastUserText ?? ""), "stop");
    }
    if (SUMMARY_HEADINGS.some((h) => (ctx.rec.lastUserText ?? "").startsWith(h))) {
      ctx.rec.summary = true;
      return answerSummary(ctx, { id, created, model, stream });
    }
    const s = resolveScenario(ctx);
    ctx.rec.scenario = s.kind;
    const pTokens = promptTokens(body);

    const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
      id,
      object: "chat.completion.chunk",
      created,
      model,
      system_fingerprint: "fp_fake",
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      ...(includeUsage ? { usage: null } : {})
    });
    const usageObj = (completion: number) => ({
      prompt_tokens: pTokens,
      completion_tokens: completion,
      total_tokens: pTokens + completion
    });
    const usageChunk = (completion: number) => ({
      id,
      object: "chat.completion.chunk",
      created,
      model,
      system_fingerprint: "fp_fake",
      choices: [],
      usage: usageObj(completion)
    });
    const completion = (message: Record<string, unknown>, finishReason: string, completionTokens: number) => ({
      id,
      object: "chat.completion",
      created,
      model,
      system_fingerprint: "fp_fake",
      choices: [{ index: 0, message: { refusal: null, ...message }, logprobs: null, finish_reason: finishReason }],
      usage: usageObj(completionTokens)
    });

    async function streamText(
      pieces: string[],
      delayMs: number,
      completionTokens: number,
      withUsage: boolean,
      split?: SplitWrites
    ) {
      startSse(ctx);
      function* events() {
        yield sse(chunk({ role: "assistant", content: "", refusal: null }));
        for (const p of pieces) yield sse(chunk({ content: p }));
        yield sse(chunk({}, "stop"));
        if (includeUsage && withUsage) yield sse(usageChunk(completionTokens));
        yield sse("[DONE]");
      }
      const content = pieces.length > 0 ? { first: 1, last: pieces.length } : undefined;
      if (await writeEvents(ctx, events(), delayMs, split, content)) ctx.res.end();
    }

    switch (s.kind) {
      case "status": {
        const headers: Record<string, string> = {};
        if (s.retryAfterSeconds !== undefined) headers["retry-after"] = String(s.retryAfterSeconds);
        if (s.retryAfterMs !== undefined) headers["retry-after-ms"] = String(s.retryAfterMs);
        headers["x-request-id"] = `req_fake_${ctx.rec.id}`;
        sendJson(ctx, s.status, s.body !== undefined ? s.body : defaultErrorBody(s.status), headers);
        return;
      }
      case "hang": {
        if (stream && s.headers !== false) startSse(ctx);
        // nothing else: wait for the client (or close()) to go away
        return;
      }
      case "malformed": {
        if (!stream) {
          const text = '{"id": "broken", "choices": [';
          ctx.rec.status = 200;
          ctx.res.writeHead(200, { "content-type": "application/json", "content-length": String(text.length) });
          ctx.res.end(text);
          return;
        }
        startSse(ctx);
        const events = [
          sse(chunk({ role: "assistant", content: "", refusal: null })),
          'data: {"id": "broken", "object": "chat.completion.chunk", "choices": [{"delta": {"content": "oops"\n\n',
          sse(chunk({}, "stop")),
          sse("[DONE]")
        ];
        if (await writeEvents(ctx, events, 0)) ctx.res.end();
        return;
      }
      case "cut": {
        const text = s.text ?? "This stream will be cut off in the middle of a sentence, sorry.";
        const pieces = splitChunks(text, 4).slice(0, Math.max(0, s.afterChunks));
        if (!stream) {
          ctx.rec.status = 200;
          ctx.res.writeHead(200, { "content-type": "application/json" });
          await writeFlushed(
            ctx,
            `{"id":"${id}","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"`
          );
        } else {
          startSse(ctx);
          let data = sse(chunk({ role: "assistant", content: "", refusal: null }));
          for (const p of pieces) data += sse(chunk({ content: p }));
          await writeFlushed(ctx, data);
        }
        // give the client a moment to read what was sent, then kill the connection
        await sleep(ctx, 20);
        if (!ctx.closed) {
          ctx.closed = true;
          ctx.rec.closedByClient = false;
          ctx.req.socket.destroy();
        }
        return;
      }
      case "chunks": {
        const count = Math.max(0, Math.floor(s.count));
        if (!stream) {
          let text = "";
          for (let i = 0; i < count; i++) text += `t${i} `;
          sendJson(ctx, 200, completion({ role: "assistant", content: text }, "stop", Math.max(1, count)));
          return;
        }
        startSse(ctx);
        function* events() {
          yield sse(chunk({ role: "assistant", content: "", refusal: null }));
          for (let i = 0; i < count; i++) yield sse(chunk({ content: `t${i} ` }));
          yield sse(chunk({}, "stop"));
          if (includeUsage) yield sse(usageChunk(Math.max(1, count)));
          yield sse("[DONE]");
        }
        const content = count > 0 ? { first: 1, last: count } : undefined;
        if (await writeEvents(ctx, events(), s.chunkDelayMs ?? 0, s.split, content, s.gate)) ctx.res.end();
        return;
      }
      case "tool-call": {
        const messages = getMessages(body);
        const lastUser = lastIndexOfRole(messages, "user");
        const lastTool = lastIndexOfRole(messages, "tool");
        if (lastTool > lastUser && !s.loop) {
          const text = s.thenText ?? `Tool said: ${contentText(messages[lastTool].content)}`;
          if (!stream) {
            sendJson(ctx, 200, completion({ role: "assistant", content: text }, "stop", tokensFor(text)));
            return;
          }
          await streamText(splitChunks(text, 4), 0, tokensFor(text), true);
          return;
        }
        const toolName = s.toolName;
        const callId = `call_fake_${ctx.rec.id}`;
        const argsJson = JSON.stringify(s.args ?? {});
        const cTokens = tokensFor(toolName + argsJson);
        if (!stream) {
          sendJson(
            ctx,
            200,
            completion(
              {
                role: "assistant",
                content: null,
                tool_calls: [{ id: callId, type: "function", function: { name: toolName, arguments: argsJson } }]
              },
              "tool_calls",
              cTokens
            )
          );
          return;
        }
        startSse(ctx);
        const argPieces = splitChunks(argsJson, 8);
        function* events() {
          yield sse(
            chunk({
              role: "assistant",
              content: null,
              tool_calls: [{ index: 0, id: callId, type: "function", function: { name: toolName, arguments: "" } }],
              refusal: null
            })
          );
          for (const p of argPieces) yield sse(chunk({ tool_calls: [{ index: 0, function: { arguments: p } }] }));
          yield sse(chunk({}, "tool_calls"));
          if (includeUsage) yield sse(usageChunk(cTokens));
          yield sse("[DONE]");
        }
        if (await writeEvents(ctx, events(), 0)) ctx.res.end();
        return;
      }
      case "text": {
        const full = s.text ?? `Echo: ${stripDirectives(ctx.rec.lastUserText ?? "")}`;
        const text = continuationOf(ctx.rec.body, full);
        if (!stream) {
          sendJson(ctx, 200, completion({ role: "assistant", content: text }, "stop", tokensFor(text)));
          return;
        }
        await streamText(
          splitChunks(text, s.chunkSize ?? 4),
          s.chunkDelayMs ?? 0,
          tokensFor(text),
          s.usage !== false,
          s.split
        );
        return;
      }
      case "fail-then":
        // unreachable: resolveScenario unwraps fail-then
        sendJson(ctx, 500, defaultErrorBody(500));
        return;
    }
  }

  /** A summary request (see the file comment): its own directives, then a short deterministic summary. */
  async function answerSummary(ctx: Ctx, r: { id: string; created: number; model: string; stream: boolean }) {
    const text = ctx.rec.lastUserText ?? "";
    const params = parseDirective(text)?.params ?? new Map<string, string>();
    if (params.has("sumhang")) return;
    if (params.has("sumslow")) await sleep(ctx, num(params.get("sumslow"), 0));
    if (ctx.closed) return;
    if (params.has("sumstatus")) {
      const status = num(params.get("sumstatus"), 503);
      sendJson(ctx, status, defaultErrorBody(status), { "retry-after-ms": "1" });
      return;
    }
    const body = ctx.rec.body;
    const maxTokens = Number(body?.max_completion_tokens ?? body?.max_tokens) || Number.POSITIVE_INFINITY;
    let summary = fakeSummary(text);
    let finish = "stop";
    if (tokensFor(summary) > maxTokens) {
      summary = summary.slice(0, maxTokens * 4);
      finish = "length";
    }
    await answerText(ctx, r, summary, finish);
  }

  /** One whole text answer, as JSON or as a short stream (summaries and decisions). */
  async function answerText(
    ctx: Ctx,
    r: { id: string; created: number; model: string; stream: boolean },
    text: string,
    finish: string
  ) {
    const summary = text;
    const pTokens = promptTokens(ctx.rec.body);
    const cTokens = tokensFor(summary);
    const usage = { prompt_tokens: pTokens, completion_tokens: cTokens, total_tokens: pTokens + cTokens };
    if (!r.stream) {
      sendJson(ctx, 200, {
        id: r.id,
        object: "chat.completion",
        created: r.created,
        model: r.model,
        choices: [{ index: 0, message: { role: "assistant", content: summary, refusal: null }, finish_reason: finish }],
        usage
      });
      return;
    }
    startSse(ctx);
    const base = { id: r.id, object: "chat.completion.chunk", created: r.created, model: r.model };
    const events = [
      sse({ ...base, choices: [{ index: 0, delta: { role: "assistant", content: summary }, finish_reason: null }] }),
      sse({ ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }] }),
      sse({ ...base, choices: [], usage }),
      sse("[DONE]")
    ];
    if (await writeEvents(ctx, events, 0)) ctx.res.end();
  }

  // -- control API ----------------------------------------------------------

  function listedRequests(selected: RecordedRequest[] = requests) {
    return selected.map((r) => {
      let body = r.body;
      try {
        const size = JSON.stringify(body ?? null).length;
        if (size > MAX_LISTED_BODY_CHARS) {
          body = {
            truncated: true,
            size,
            model: body?.model,
            stream: body?.stream,
            messageCount: getMessages(body).length
          };
        }
      } catch {
        body = { truncated: true };
      }
      return { ...r, body };
    });
  }

  // -- request handling -----------------------------------------------------

  function readBody(req: IncomingMessage): Promise<string> {
    return new Promise((resolve, reject) => {
      const parts: Buffer[] = [];
      req.on("data", (c: Buffer) => parts.push(c));
      req.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
      req.on("error", reject);
    });
  }

  async function onRequest(req: IncomingMessage, res: ServerResponse) {
    const arrivedAt = performance.now();
    const url = new URL(req.url ?? "/", "http://localhost");
    const path = url.pathname.replace(/\/+$/, "") || "/";
    const method = req.method ?? "GET";
    let raw = "";
    try {
      raw = await readBody(req);
    } catch {
      res.destroy();
      return;
    }

    // control API (not recorded)
    if (path.startsWith("/__fake/")) {
      const reply = (status: number, body: unknown) => {
        const text = JSON.stringify(body);
        res.writeHead(status, {
          "content-type": "application/json",
          "content-length": String(Buffer.byteLength(text))
        });
        res.end(text);
      };
      const match = url.searchParams.get("match");
      const after = num(url.searchParams.get("after") ?? undefined, 0);
      const selects = (r: RecordedRequest) => r.id > after && (match === null || matches(r, match));
      const timeoutMs = Math.min(num(url.searchParams.get("timeoutMs") ?? undefined, 10_000), 300_000);
      if (path === "/__fake/requests" && method === "GET") return reply(200, listedRequests(requests.filter(selects)));
      if (path === "/__fake/wait-request" && method === "GET") {
        return api.waitForRequest(selects, timeoutMs).then(
          (r) => reply(200, listedRequests([r])[0]),
          (error: Error) => reply(408, { ok: false, error: error.message })
        );
      }
      if (path === "/__fake/wait-close" && method === "GET") {
        const id = num(url.searchParams.get("id") ?? undefined, 0);
        return api.waitForClientClose(id, timeoutMs).then(
          () => reply(200, { ok: true }),
          (error: Error) => {
            const answered = requests.find((r) => r.id === id)?.finishedAt !== undefined;
            reply(answered ? 409 : 408, { ok: false, error: error.message });
          }
        );
      }
      if (path === "/__fake/reset" && method === "POST") {
        api.reset();
        return reply(200, { ok: true });
      }
      if (path === "/__fake/scenario" && method === "POST") {
        let s: unknown;
        try {
          s = JSON.parse(raw);
        } catch {
          return reply(400, { ok: false, error: "invalid JSON" });
        }
        if (isKeyedScript(s)) {
          api.script(s.key, s.scenario);
          return reply(200, { ok: true });
        }
        if (!isScenario(s)) return reply(400, { ok: false, error: "invalid scenario" });
        api.setScenario(s);
        return reply(200, { ok: true });
      }
      if (path === "/__fake/scenario" && method === "GET") return reply(200, scenario);
      if (path === "/__fake/open-gate" && method === "POST") {
        let gate: unknown;
        try {
          gate = (JSON.parse(raw) as { gate?: unknown }).gate;
        } catch {
          return reply(400, { ok: false, error: "invalid JSON" });
        }
        if (typeof gate !== "string" || !gate) return reply(400, { ok: false, error: "gate must be a name" });
        api.openGate(gate);
        return reply(200, { ok: true });
      }
      return reply(404, { ok: false, error: "not found" });
    }

    let body: any;
    let badJson = false;
    if (raw) {
      try {
        body = JSON.parse(raw);
      } catch {
        badJson = true;
        body = raw;
      }
    }
    const p = path.replace(/^\/v1(?=\/|$)/, "") || "/";
    const plainStream = p === "/stream" && method === "GET";
    if (plainStream) {
      // The request a chat completion with this directive would be.
      const params = [`chunks=${num(url.searchParams.get("chunks") ?? undefined, 3)}`];
      if (url.searchParams.has("slow")) params.push(`slow=${num(url.searchParams.get("slow") ?? undefined, 0)}`);
      body = {
        model: FAKE_MODEL_ID,
        stream: true,
        messages: [{ role: "user", content: `[[fake:${params.join(",")}]]` }]
      };
    }
    const rec: RecordedRequest = {
      id: nextId++,
      method,
      path,
      headers: { ...req.headers },
      body,
      startedAt: Date.now(),
      arrivedAt,
      closedByClient: false
    };
    if (!badJson && body && typeof body === "object") {
      rec.lastUserText = lastUserText(body);
      rec.systemText = systemText(body);
      if (typeof body.model === "string") rec.model = body.model;
      const d = parseDirective(rec.lastUserText) ?? parseDirective(rec.systemText);
      if (d) rec.directive = d.raw;
    }
    const ctx: Ctx = { req, res, rec, closed: false, timers: new Set(), wakers: new Set() };
    activeCtx.add(ctx);
    res.on("close", () => {
      const byClient = !res.writableEnded && !ctx.closed && !closing;
      ctx.closed = true;
      rec.closedByClient = byClient;
      rec.finishedAt = Date.now();
      for (const t of ctx.timers) clearTimeout(t);
      ctx.timers.clear();
      for (const w of [...ctx.wakers]) w();
      ctx.wakers.clear();
      activeCtx.delete(ctx);
      notifyClose(rec);
    });
    requests.push(rec);
    notifyRequest(rec);

    try {
      if ((p === "/chat/completions" && method === "POST") || plainStream) {
        if (badJson || !body || typeof body !== "object") {
          sendJson(ctx, 400, {
            error: {
              message: "We could not parse the JSON body of your request.",
              type: "invalid_request_error",
              param: null,
              code: null
            }
          });
          return;
        }
        await handleChat(ctx);
        return;
      }
      if (p === "/models" && method === "GET") {
        sendJson(ctx, 200, {
          object: "list",
          data: [{ id: FAKE_MODEL_ID, object: "model", created: 1700000000, owned_by: "fake-openai" }]
        });
        return;
      }
      if (p.startsWith("/models/") && method === "GET") {
        const modelId = decodeURIComponent(p.slice("/models/".length));
        if (modelId === FAKE_MODEL_ID) {
          sendJson(ctx, 200, { id: FAKE_MODEL_ID, object: "model", created: 1700000000, owned_by: "fake-openai" });
        } else {
          sendJson(ctx, 404, {
            error: {
              message: `The model '${modelId}' does not exist`,
              type: "invalid_request_error",
              param: "model",
              code: "model_not_found"
            }
          });
        }
        return;
      }
      sendJson(ctx, 404, defaultErrorBody(404));
    } catch (err) {
      if (!ctx.closed && !res.headersSent) {
        sendJson(ctx, 500, { error: { message: String(err), type: "server_error", param: null, code: null } });
      } else if (!ctx.closed) {
        res.destroy();
      }
    }
  }

  const server = http.createServer((req, res) => {
    void onRequest(req, res);
  });
  server.on("connection", (socket: Socket) => {
    // Each write goes out at once: benchmarks time chunks by their writes.
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  // keep idle keep-alive sockets from holding things open long
  server.keepAliveTimeout = 5000;

  const api = {
    url: "",
    origin: "",
    port: 0,
    requests,
    setScenario(s: FakeScenario) {
      scenario = s;
      scenarioCounters = new WeakMap();
    },
    script(key: string, s: FakeScenario | null) {
      scripts.delete(key);
      if (s) scripts.set(key, s);
    },
    openGate(name: string) {
      const gate = gateNamed(name);
      gate.open = true;
      for (const wake of [...gate.waiters]) wake();
    },
    waitForRequest(
      predicate: (r: RecordedRequest) => boolean = () => true,
      timeoutMs = 5000
    ): Promise<RecordedRequest> {
      const existing = requests.find(predicate);
      if (existing) return Promise.resolve(existing);
      return new Promise<RecordedRequest>((resolve, reject) => {
        const cleanup = () => {
          clearTimeout(timer);
          requestListeners.delete(listener);
          waiterCleanups.delete(abort);
        };
        const listener = (r: RecordedRequest) => {
          if (predicate(r)) {
            cleanup();
            resolve(r);
          }
        };
        const abort = () => {
          cleanup();
          reject(new Error("fake-openai closed while waiting for a request"));
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`fake-openai: no matching request within ${timeoutMs} ms (have ${requests.length})`));
        }, timeoutMs);
        requestListeners.add(listener);
        waiterCleanups.add(abort);
      });
    },
    waitForClientClose(requestId: number, timeoutMs = 5000): Promise<void> {
      const check = (r: RecordedRequest | undefined): "yes" | "no" | "pending" => {
        if (!r || r.finishedAt === undefined) return "pending";
        return r.closedByClient ? "yes" : "no";
      };
      const notClosedError = (r: RecordedRequest) =>
        new Error(
          `fake-openai: request ${r.id} finished (status ${r.status ?? "none"}) without the client closing it first`
        );
      const current = requests.find((r) => r.id === requestId);
      const state = check(current);
      if (state === "yes") return Promise.resolve();
      if (state === "no") return Promise.reject(notClosedError(current!));
      return new Promise<void>((resolve, reject) => {
        const cleanup = () => {
          clearTimeout(timer);
          closeListeners.delete(listener);
          waiterCleanups.delete(abort);
        };
        const listener = (r: RecordedRequest) => {
          if (r.id !== requestId) return;
          cleanup();
          if (r.closedByClient) resolve();
          else reject(notClosedError(r));
        };
        const abort = () => {
          cleanup();
          reject(new Error("fake-openai closed while waiting for a client close"));
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`fake-openai: request ${requestId} was not closed by the client within ${timeoutMs} ms`));
        }, timeoutMs);
        closeListeners.add(listener);
        waiterCleanups.add(abort);
      });
    },
    reset() {
      requests.length = 0;
      scenario = initialScenario;
      scenarioCounters = new WeakMap();
      directiveCounters.clear();
      scripts.clear();
      gates.clear();
    },
    close(): Promise<void> {
      closing = true;
      for (const w of [...waiterCleanups]) w();
      for (const ctx of [...activeCtx]) {
        ctx.closed = true;
        for (const t of ctx.timers) clearTimeout(t);
        ctx.timers.clear();
        for (const w of [...ctx.wakers]) w();
      }
      return new Promise<void>((resolve) => {
        if (!server.listening) {
          for (const s of sockets) s.destroy();
          return resolve();
        }
        server.close(() => resolve());
        server.closeAllConnections();
        for (const s of sockets) s.destroy();
      });
    }
  } satisfies FakeOpenAI;

  return new Promise<FakeOpenAI>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off("error", reject);
      const addr = server.address();
      const port = typeof addr === "object" && addr ? addr.port : (opts.port ?? 0);
      const urlHost = host.includes(":") ? `[${host}]` : host === "0.0.0.0" ? "127.0.0.1" : host;
      api.port = port;
      api.origin = `http://${urlHost}:${port}`;
      api.url = `${api.origin}/v1`;
      resolve(api);
    });
  });
}
