/**
 * ChatRoom: one room, a facet of its workspace's OverseerAgent.
 *
 *   OverseerAgent ("default")           registry, gate, REST entry
 *     └── ChatRoom (<roomId>)           this file: transcript, settings, turns
 *
 * AIChatAgent gives us persistence of every message part, streaming to every
 * socket in the room, cancel, resumable streams kept in SQLite and recovery
 * after eviction. What we add by hand, and why:
 * - settings (name, system prompt, model) live in the agent state, which the
 *   framework keeps in this facet's SQLite and pushes to every client;
 * - activity reports to the parent, so the room list stays current without
 *   the overseer ever waking rooms to count their messages;
 * - a REST send path, because AIChatAgent only speaks WebSocket;
 * - presence and typing, which are ephemeral and never persisted;
 * - error and stop marks on answers, so a reload still shows why an answer
 *   ended early.
 */
import { AIChatAgent, type ChatResponseResult, type OnChatMessageOptions } from "@cloudflare/ai-chat";
import type { Connection, ConnectionContext, WSMessage } from "agents";
import {
  convertToModelMessages,
  type GenerateTextOnFinishCallback,
  isStepCount,
  streamText,
  type ToolSet,
  type UIMessage
} from "ai";
import {
  MAX_AUTHOR_LENGTH,
  MAX_MESSAGE_LENGTH,
  MAX_MESSAGES_PER_CHAT_REQUEST,
  MAX_MESSAGES_PER_ROOM,
  MAX_WS_FRAME_BYTES,
  RATE_LIMITS
} from "../../shared/constants";
import type { ErrorCode } from "../../shared/errors";
import {
  type ChatMessage,
  type MessageMetadata,
  type MessagePage,
  type PresenceUser,
  RoomClientFrame,
  type RoomServerFrame,
  type RoomSettings,
  type RoomState,
  type SendMessageBody,
  type SendMessageResult
} from "../../shared/protocol";
import { guardChatRequest } from "../domain/chat-request-guard";
import { selectContextWindow } from "../domain/context-budget";
import { describeModelError } from "../domain/model-errors";
import { RateLimiter, rateScaleFrom, scaled } from "../domain/rate-limit";
import { createRoomTools, MAX_TOOL_STEPS } from "../domain/room-tools";
import { messagePreview, type RoomActivity } from "../domain/rooms";
import { contextForTurn } from "../domain/turn-context";
import { addUsage, EMPTY_USAGE, toTokenUsage } from "../domain/usage";
import type { Env } from "../env";
import { activeModelId, isOffline, MODEL_MAX_RETRIES, readModelConfig, resolveModel } from "../model/provider";
import { OverseerAgent } from "./overseer-agent";

const DEFAULT_SETTINGS: RoomSettings = { name: "Untitled room", systemPrompt: "", model: null, temperature: null };

type ConnectionInfo = { name?: string; typing?: boolean };

/** Frames of the AIChatAgent protocol we tap for the REST SSE path. */
type ChatResponseFrame = {
  type: "cf_agent_use_chat_response";
  id: string;
  body?: string;
  done?: boolean;
  error?: boolean;
};

export class ChatRoom extends AIChatAgent<Env, RoomState> {
  /**
   * Wake-time hydration window. Durable storage keeps every message; this
   * only bounds what sits in memory (and what the context budget can pick
   * from), so a 100,000-message room wakes as fast as a small one.
   */
  hydrationByteBudget = 512 * 1024;

  initialState: RoomState = {
    settings: DEFAULT_SETTINGS,
    usage: EMPTY_USAGE,
    activeModel: "",
    offline: true
  };

  /** Per-connection limits on what a socket may send (RATE_LIMIT_SCALE applies). */
  #sendLimiter = new RateLimiter(scaled(RATE_LIMITS.socketSend, rateScaleFrom(this.env.RATE_LIMIT_SCALE)));
  #typingLimiter = new RateLimiter(scaled(RATE_LIMITS.socketTyping, rateScaleFrom(this.env.RATE_LIMIT_SCALE)));

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // AIChatAgent wrapped onMessage in its own constructor to take its
    // protocol frames. Wrap it once more, so every frame passes our checks
    // before the framework acts on it.
    const frameworkOnMessage = this.onMessage.bind(this);
    this.onMessage = async (connection: Connection, message: WSMessage) => {
      await this.#guardFrame(connection, message, frameworkOnMessage);
    };
  }

  /** REST sends waiting to learn the request id of their turn. */
  #restTurns = new Map<string, (requestId: string) => void>();
  /** Listeners on this room's outgoing chat frames, keyed by request id. */
  #frameTaps = new Map<string, (frame: ChatResponseFrame) => void>();

  // ── Lifecycle ──

  async onStart() {
    this.sql`CREATE TABLE IF NOT EXISTS room_activity (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL)`;
    // The provider configuration can change between deploys: re-derive the
    // model label on every wake rather than trusting the stored one.
    const config = readModelConfig(this.env);
    const state = this.state;
    const activeModel = activeModelId(config, state.settings);
    if (state.activeModel !== activeModel || state.offline !== isOffline(config)) {
      this.setState({ ...state, activeModel, offline: isOffline(config) });
    }
  }

  // ── RPC from the overseer ──

  /** Called once, right after the overseer spawns the facet. */
  async initialize(settings: RoomSettings): Promise<RoomState> {
    const config = readModelConfig(this.env);
    this.setState({
      settings,
      usage: EMPTY_USAGE,
      activeModel: activeModelId(config, settings),
      offline: isOffline(config)
    });
    return this.state;
  }

  describe(): RoomState {
    return this.state;
  }

  async updateSettings(patch: Partial<RoomSettings>): Promise<RoomState> {
    const settings = { ...this.state.settings, ...patch };
    const config = readModelConfig(this.env);
    this.setState({ ...this.state, settings, activeModel: activeModelId(config, settings) });
    return this.state;
  }

  /**
   * One page of history, newest page first, oldest message first within the
   * page. Walks the stored path from the cursor backwards and stops after
   * `limit + 1` messages, so the cost is the page, not the room.
   */
  async listMessages(query: { before?: string; limit: number }): Promise<MessagePage> {
    const session = this.sessions.session();
    if (query.before && !(await session.getMessage(query.before))) {
      return { messages: [], nextCursor: null };
    }
    const page: ChatMessage[] = [];
    let hasMore = false;
    for await (const message of session.history({ newestFirst: true, leafId: query.before ?? null })) {
      if (query.before && message.id === query.before) continue;
      if (page.length === query.limit) {
        hasMore = true;
        break;
      }
      page.push(toChatMessage(message));
    }
    page.reverse();
    return { messages: page, nextCursor: hasMore && page.length > 0 ? page[0].id : null };
  }

  /**
   * A send that did not come over this room's WebSocket. Everyone connected
   * sees it live, because the turn runs through the same `saveMessages`
   * path as any other.
   */
  async sendFromRest(body: SendMessageBody): Promise<SendMessageResult> {
    return this.#runRestTurn(restUserMessage(body), () => {});
  }

  /** `sendFromRest` as server-sent events: user-message, chunk…, done. */
  async streamFromRest(body: SendMessageBody): Promise<ReadableStream<Uint8Array>> {
    const userMessage = restUserMessage(body);

    const encoder = new TextEncoder();
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const output = new ReadableStream<Uint8Array>({
      start: (c) => {
        controller = c;
      }
    });
    const emit = (event: string, data: unknown) => {
      try {
        controller.enqueue(encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`));
      } catch (error) {
        // The HTTP client went away; the turn itself carries on for the room.
        console.warn("[ChatRoom] SSE client gone:", error);
      }
    };
    emit("user-message", toChatMessage(userMessage));
    void this.#runRestTurn(userMessage, (frame) => {
      if (frame.body) emit("chunk", JSON.parse(frame.body));
    })
      .then((result) => emit("done", result))
      .catch((error: unknown) => emit("error", { message: error instanceof Error ? error.message : String(error) }))
      .finally(() => {
        try {
          controller.close();
        } catch (error) {
          console.warn("[ChatRoom] SSE stream already closed:", error);
        }
      });
    return output;
  }

  async #runRestTurn(userMessage: UIMessage, onFrame: (frame: ChatResponseFrame) => void): Promise<SendMessageResult> {
    let requestId: string | null = null;
    this.#restTurns.set(userMessage.id, (id) => {
      requestId = id;
      this.#frameTaps.set(id, onFrame);
    });
    try {
      const result = await this.saveMessages((messages) => [...messages, userMessage]);
      const answer = this.messages.find(
        (m) => m.role === "assistant" && (m.metadata as MessageMetadata | undefined)?.answers === userMessage.id
      );
      return {
        userMessage: toChatMessage(userMessage),
        assistantMessage: answer ? toChatMessage(answer) : null,
        status: result.status,
        ...(result.error ? { error: result.error } : {})
      };
    } finally {
      this.#restTurns.delete(userMessage.id);
      if (requestId) this.#frameTaps.delete(requestId);
    }
  }

  /**
   * Benchmarks only (ROOMS_BENCH_SEED=1): appends `count` alternating
   * user/assistant messages to the transcript. `importMessage` writes the
   * same rows (path, content, token estimate, full-text index) as a live
   * append, without the per-message change-feed work a live turn does;
   * then the in-memory window is re-read as on a wake.
   */
  async benchSeed(count: number): Promise<{ messageCount: number }> {
    if (this.env.ROOMS_BENCH_SEED !== "1") throw new Error("Bench seeding is off.");
    const base = this.#messageCount();
    if (base + count > MAX_MESSAGES_PER_ROOM)
      throw new Error(`A room holds at most ${MAX_MESSAGES_PER_ROOM} messages.`);
    const session = this.sessions.session();
    let parentId = (await session.getLatestLeaf())?.id ?? null;
    const createdAt = Date.now();
    const filler =
      "A line of typical chat length, with a few clauses, some numbers like 42 and 3.14, and a closing remark.";
    for (let i = 0; i < count; i++) {
      const n = base + i;
      const user = n % 2 === 0;
      const id = crypto.randomUUID();
      const metadata: MessageMetadata = user
        ? { author: "seed", createdAt }
        : {
            createdAt,
            model: "bench-seed",
            offline: false,
            usage: { inputTokens: 40, outputTokens: 40, totalTokens: 80 }
          };
      await session.importMessage(
        {
          id,
          role: user ? "user" : "assistant",
          parts: [{ type: "text", text: `Seeded ${user ? "question" : "answer"} #${n}. ${filler}` }],
          metadata
        },
        { parentId, createdAt }
      );
      parentId = id;
    }
    this.messages = (await session.getRecentHistory(this.hydrationByteBudget)).messages as UIMessage[];
    this.#reportActivity();
    return { messageCount: this.#messageCount() };
  }

  /** Full-text search over this room's own transcript (the model's tool). */
  async searchHistory(query: string, limit: number) {
    const hits = await this.sessions.session().search(query, { limit });
    return hits.map((hit) => ({ messageId: hit.id, role: hit.role, snippet: hit.content.slice(0, 300) }));
  }

  // ── The turn ──

  async onChatMessage(onFinish: GenerateTextOnFinishCallback<ToolSet>, options?: OnChatMessageOptions) {
    // A continuation (recovery, tool follow-up) extends the last answer as is.
    const turn = options?.continuation ? { answering: null, messages: this.messages } : contextForTurn(this.messages);
    if (turn.answering && options?.requestId) this.#restTurns.get(turn.answering)?.(options.requestId);
    this.#reportActivity();

    const config = readModelConfig(this.env);
    const { settings } = this.state;
    const { model, modelId, offline } = resolveModel(config, settings, {
      roomName: settings.name,
      messageCount: this.#messageCount(),
      systemPrompt: settings.systemPrompt || null
    });
    const window = selectContextWindow(turn.messages, {
      maxTokens: config.contextTokenBudget,
      systemPrompt: settings.systemPrompt
    });

    const result = streamText({
      model,
      system: settings.systemPrompt || undefined,
      messages: await convertToModelMessages(window.messages),
      tools: createRoomTools({
        now: () => new Date(),
        searchHistory: (query, limit) => this.searchHistory(query, limit)
      }),
      stopWhen: isStepCount(MAX_TOOL_STEPS),
      ...(settings.temperature !== null ? { temperature: settings.temperature } : {}),
      maxRetries: MODEL_MAX_RETRIES,
      abortSignal: options?.abortSignal,
      onFinish
    });

    const startedAt = Date.now();
    return result.toUIMessageStreamResponse({
      messageMetadata: ({ part }): MessageMetadata | undefined => {
        if (part.type === "start") {
          return {
            createdAt: startedAt,
            model: modelId,
            offline,
            ...(turn.answering ? { answers: turn.answering } : {})
          };
        }
        if (part.type === "finish") return { usage: toTokenUsage(part.totalUsage) };
        return undefined;
      },
      onError: (error) => describeModelError(error, config)
    });
  }

  protected async onChatResponse(result: ChatResponseResult) {
    const metadata = (result.message.metadata ?? {}) as MessageMetadata;
    if (result.status === "completed" && metadata.usage) {
      this.setState({ ...this.state, usage: addUsage(this.state.usage, metadata.usage) });
    }
    if (result.status === "error" || result.status === "aborted") {
      await this.#markEndedEarly(result);
    }
    this.#reportActivity();
  }

  /** Keeps why an answer ended early in the transcript itself. */
  async #markEndedEarly(result: ChatResponseResult) {
    const mark: MessageMetadata =
      result.status === "aborted" ? { stopped: true } : { error: result.error ?? "The model request failed." };
    const existing = this.messages.find((m) => m.id === result.message.id);
    if (existing) {
      const updated: UIMessage = {
        ...existing,
        metadata: { ...((existing.metadata ?? {}) as MessageMetadata), ...mark }
      };
      await this.persistMessages(this.messages.map((m) => (m.id === existing.id ? updated : m)));
    } else if (result.status === "error") {
      // The provider failed before producing anything: record an empty
      // answer carrying the error, so the failure survives a reload.
      const failed: UIMessage = {
        id: result.message.id || crypto.randomUUID(),
        role: "assistant",
        parts: [],
        metadata: { createdAt: Date.now(), ...mark }
      };
      await this.persistMessages([...this.messages, failed]);
    }
  }

  /**
   * Client-sent metadata is untrusted: a user message keeps only a bounded
   * author and a timestamp. Assistant metadata is written by this server.
   */
  protected sanitizeMessageForPersistence(message: UIMessage): UIMessage {
    if (message.role !== "user") return message;
    const raw = (message.metadata ?? {}) as Record<string, unknown>;
    const author =
      typeof raw.author === "string" && raw.author.trim() ? raw.author.trim().slice(0, MAX_AUTHOR_LENGTH) : undefined;
    const createdAt = typeof raw.createdAt === "number" && Number.isFinite(raw.createdAt) ? raw.createdAt : Date.now();
    return { ...message, metadata: { ...(author ? { author } : {}), createdAt } satisfies MessageMetadata };
  }

  broadcast(msg: string | ArrayBuffer | ArrayBufferView, without?: string[]) {
    super.broadcast(msg, without);
    if (this.#frameTaps.size === 0 || typeof msg !== "string") return;
    // Only chat response frames can belong to a REST turn; skip the parse
    // for everything else.
    if (!msg.startsWith('{"') || !msg.includes("cf_agent_use_chat_response")) return;
    const frame = JSON.parse(msg) as ChatResponseFrame;
    if (frame.type === "cf_agent_use_chat_response") this.#frameTaps.get(frame.id)?.(frame);
  }

  // ── What sockets may send ──

  /** Only the server changes room state; clients change settings over REST. */
  validateStateChange(_next: RoomState, source: Connection | "server") {
    if (source !== "server") throw new Error("Room state is read-only for clients.");
  }

  async #guardFrame(connection: Connection, message: WSMessage, next: (c: Connection, m: WSMessage) => unknown) {
    const refuse = (code: ErrorCode, text: string, requestId?: string) => {
      if (requestId) {
        // Settle the client's pending request, as the framework would.
        connection.send(
          JSON.stringify({ type: "cf_agent_use_chat_response", id: requestId, body: text, done: true, error: true })
        );
      }
      connection.send(JSON.stringify({ type: "rooms_error", code, message: text } satisfies RoomServerFrame));
    };
    if (typeof message !== "string") return refuse("bad_request:body", "Binary frames are not accepted.");
    if (message.length > MAX_WS_FRAME_BYTES) {
      return refuse("payload_too_large:body", `Frames may be at most ${MAX_WS_FRAME_BYTES} bytes.`);
    }
    const frame = parseJson(message);
    const type = typeof frame === "object" && frame !== null ? (frame as { type?: unknown }).type : undefined;
    const requestId =
      typeof (frame as { id?: unknown } | undefined)?.id === "string"
        ? (frame as { id: string }).id.slice(0, 128)
        : undefined;
    switch (type) {
      case "cf_agent_use_chat_request": {
        const admission = this.#sendLimiter.take(connection.id, Date.now());
        if (!admission.ok) {
          return refuse(
            "rate_limited:requests",
            `Too many messages; wait ${Math.ceil(admission.retryAfterMs / 1000)} s.`,
            requestId
          );
        }
        if (this.#messageCount() >= MAX_MESSAGES_PER_ROOM) {
          return refuse(
            "conflict:room_full",
            `This room holds ${MAX_MESSAGES_PER_ROOM} messages, the most it can. Start a new room.`,
            requestId
          );
        }
        const init = (frame as { init?: { method?: unknown; body?: unknown } }).init;
        const guarded = guardChatRequest(init?.body, this.messages, {
          maxMessageLength: MAX_MESSAGE_LENGTH,
          maxMessages: MAX_MESSAGES_PER_CHAT_REQUEST
        });
        if (!guarded.ok) return refuse(guarded.code, guarded.message, requestId);
        return next(connection, JSON.stringify({ type, id: requestId, init: { method: "POST", body: guarded.body } }));
      }
      case "cf_agent_chat_clear":
        return refuse("bad_request:body", "Clearing a room's history is not allowed; delete the room instead.");
      case "cf_agent_tool_result":
      case "cf_agent_tool_approval":
        return refuse("bad_request:body", "This room has no client-side tools.");
      case "rooms_typing": {
        if (!this.#typingLimiter.take(connection.id, Date.now()).ok) return;
        return next(connection, message);
      }
      default:
        return next(connection, message);
    }
  }

  // ── Presence and typing ──

  async onConnect(connection: Connection<ConnectionInfo>, _ctx: ConnectionContext) {
    connection.setState({ name: "Anonymous", typing: false });
    this.#broadcastPresence();
  }

  async onClose(connection: Connection) {
    this.#sendLimiter.forget(connection.id);
    this.#typingLimiter.forget(connection.id);
    this.#broadcastPresence(connection.id);
  }

  async onMessage(connection: Connection<ConnectionInfo>, message: WSMessage) {
    // AIChatAgent has already taken its own protocol frames; what reaches
    // here is ours or garbage.
    const parsed = typeof message === "string" ? parseJson(message) : undefined;
    const frame = RoomClientFrame.safeParse(parsed);
    if (!frame.success) {
      connection.send(
        JSON.stringify({
          type: "rooms_error",
          code: "bad_request:body",
          message: "Unrecognised frame: expected a chat protocol frame, rooms_hello or rooms_typing."
        } satisfies RoomServerFrame)
      );
      return;
    }
    const current = connection.state ?? {};
    if (frame.data.type === "rooms_hello") connection.setState({ ...current, name: frame.data.name });
    else connection.setState({ ...current, typing: frame.data.typing });
    this.#broadcastPresence();
  }

  #broadcastPresence(leavingId?: string) {
    const users: PresenceUser[] = [];
    for (const connection of this.getConnections<ConnectionInfo>()) {
      if (connection.id === leavingId) continue;
      users.push({
        connectionId: connection.id,
        name: connection.state?.name ?? "Anonymous",
        typing: connection.state?.typing ?? false
      });
    }
    this.broadcast(JSON.stringify({ type: "rooms_presence", users } satisfies RoomServerFrame));
  }

  // ── Reporting to the overseer ──

  #messageCount(): number {
    // Counted in SQL so rooms larger than the hydration window report right.
    const rows = this.sql<{ n: number }>`
      SELECT COUNT(*) AS n FROM cf_agents_session_messages
      WHERE session_id = ${this.sessions.session().sessionId} AND type = 'message'`;
    return rows[0]?.n ?? this.messages.length;
  }

  #nextActivitySeq(): number {
    const rows = this.sql<{ seq: number }>`
      INSERT INTO room_activity (id, seq) VALUES (1, 1)
      ON CONFLICT (id) DO UPDATE SET seq = seq + 1
      RETURNING seq`;
    return rows[0].seq;
  }

  /** Best effort: a missed report is corrected by the next one. */
  #reportActivity() {
    const last = this.messages.at(-1);
    const activity: RoomActivity = {
      seq: this.#nextActivitySeq(),
      messageCount: this.#messageCount(),
      lastMessagePreview: last ? messagePreview(last.parts) : null,
      lastActiveAt: Date.now()
    };
    const report = async () => {
      const overseer = await this.parentAgent(OverseerAgent);
      await overseer.recordRoomActivity(this.name, activity);
    };
    this.ctx.waitUntil(
      report().catch((error: unknown) => console.warn("[ChatRoom] failed to report activity:", error))
    );
  }
}

function restUserMessage(body: SendMessageBody): UIMessage {
  return {
    id: crypto.randomUUID(),
    role: "user",
    parts: [{ type: "text", text: body.text }],
    metadata: { author: body.author ?? "API", createdAt: Date.now() } satisfies MessageMetadata
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Not JSON: the caller answers with an error frame.
    return undefined;
  }
}

function toChatMessage(message: { id: string; role: string; parts: unknown[]; metadata?: unknown }): ChatMessage {
  return {
    id: message.id,
    role: message.role as ChatMessage["role"],
    parts: message.parts as ChatMessage["parts"],
    ...(message.metadata ? { metadata: message.metadata as MessageMetadata } : {})
  };
}
