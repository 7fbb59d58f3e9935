/**
 * The REST send path of a room. AIChatAgent only speaks WebSocket, so a
 * REST send runs the turn through the same `saveMessages` path as a socket
 * send (everyone connected sees it live) and taps the room's outgoing chat
 * frames to stream the answer back as server-sent events.
 */
import type { AIChatAgent } from "@cloudflare/ai-chat";
import { MessageType } from "@cloudflare/ai-chat/types";
import type { UIMessage } from "ai";
import { AppError, toErrorBody } from "@/server/app-error";
import type { RestArrival } from "@/server/contracts/room-api";
import { answerTo, restUserMessage, toChatMessage } from "@/server/domain/messages/chat-messages";
import { replyRefused } from "@/server/domain/messages/reply-rules";
import { logError } from "@/server/log";
import type { FileRef } from "@/shared/files";
import type { MessageAuthor } from "@/shared/identity";
import type { MessageMetadata, SendMessageBody, SendMessageResult } from "@/shared/protocol";
import type { ReplyRef } from "@/shared/replies";

/** Frames of the AIChatAgent protocol we tap for the REST SSE path. */
type ChatResponseFrame = {
  type: MessageType.CF_AGENT_USE_CHAT_RESPONSE;
  id: string;
  body?: string;
  done?: boolean;
  error?: boolean;
};

/** Where a REST send's trace starts (room/turn-trace.ts). */
interface ArrivalRecorder {
  arrive(messageId: string, traceparent: unknown, origin: "rest", arrivedAt: number): unknown;
  forget(messageId: string): void;
}

/** Where a reply's original is looked up (domain/messages/reply-rules.ts). */
interface ReplyLookup {
  /** What a reply keeps of the stored message with this id, or null when the room holds none. */
  replyTarget(messageId: string): Promise<ReplyRef | null>;
}

/** What the bridge needs from its room. */
type RestTurnHost = Pick<AIChatAgent, "messages" | "saveMessages">;

export class RestTurnBridge {
  /** REST sends waiting to learn the request id of their turn. */
  #restTurns = new Map<string, (requestId: string) => void>();
  /** Listeners on this room's outgoing chat frames, keyed by request id. */
  #frameTaps = new Map<string, (frame: ChatResponseFrame) => void>();

  constructor(
    private readonly room: RestTurnHost,
    private readonly arrivals: ArrivalRecorder,
    private readonly replies: ReplyLookup
  ) {}

  /**
   * A send that did not come over this room's WebSocket, by `author` (the verified caller).
   * A reply to a message the room does not hold is refused (400) before anything is stored.
   */
  async send(
    body: SendMessageBody,
    author: MessageAuthor,
    arrival?: RestArrival,
    files: readonly FileRef[] = []
  ): Promise<SendMessageResult> {
    const userMessage = restUserMessage(body, author, files, await this.#replyTo(body));
    return this.#runTurn(userMessage, () => {}, arrival);
  }

  /** `send` as server-sent events: user-message, chunk…, then done, or error (an ErrorBody, as REST answers). */
  async stream(
    body: SendMessageBody,
    author: MessageAuthor,
    arrival?: RestArrival,
    files: readonly FileRef[] = []
  ): Promise<ReadableStream<Uint8Array>> {
    const userMessage = restUserMessage(body, author, files, await this.#replyTo(body));

    const encoder = new TextEncoder();
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const output = new ReadableStream<Uint8Array>({
      start: (c) => {
        controller = c;
      }
    });
    // Once the HTTP client went away (or stopped reading: an MCP post that
    // does not wait), the turn carries on for the room without it: said once, not per chunk.
    let clientGone = false;
    const emit = (event: string, data: unknown) => {
      if (clientGone) return;
      try {
        controller.enqueue(encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`));
      } catch (error) {
        clientGone = true;
        console.warn("[ChatRoom] SSE client gone, the answer goes on:", String(error));
      }
    };
    emit("user-message", toChatMessage(userMessage));
    void this.#runTurn(
      userMessage,
      (frame) => {
        if (frame.body) emit("chunk", JSON.parse(frame.body));
      },
      arrival
    )
      .then((result) => emit("done", result))
      .catch((error: unknown) => {
        if (!(error instanceof AppError)) logError("[ChatRoom] REST send failed:", error);
        emit("error", toErrorBody(error));
      })
      .finally(() => {
        if (clientGone) return;
        try {
          controller.close();
        } catch (error) {
          console.warn("[ChatRoom] SSE stream already closed:", error);
        }
      });
    return output;
  }

  /** The room's quote of the message `body.replyTo` names (one lookup by id), or the refusal. */
  async #replyTo(body: SendMessageBody): Promise<ReplyRef | undefined> {
    if (body.replyTo === undefined) return undefined;
    const replyTo = await this.replies.replyTarget(body.replyTo);
    if (!replyTo) throw replyRefused(body.replyTo);
    return replyTo;
  }

  /** Called when a turn starts: binds a waiting REST send to its request id. */
  turnStarted(answering: string, requestId: string) {
    this.#restTurns.get(answering)?.(requestId);
  }

  /** Sees every frame the room broadcasts; forwards a REST turn's chat frames. */
  tap(msg: string | ArrayBuffer | ArrayBufferView) {
    if (this.#frameTaps.size === 0 || typeof msg !== "string") return;
    // Only chat response frames can belong to a REST turn; skip the parse
    // for everything else.
    if (!msg.startsWith('{"') || !msg.includes(MessageType.CF_AGENT_USE_CHAT_RESPONSE)) return;
    const frame = JSON.parse(msg) as ChatResponseFrame;
    if (frame.type === MessageType.CF_AGENT_USE_CHAT_RESPONSE) this.#frameTaps.get(frame.id)?.(frame);
  }

  async #runTurn(
    userMessage: UIMessage,
    onFrame: (frame: ChatResponseFrame) => void,
    arrival: RestArrival = { traceparent: null, receivedAt: Date.now() }
  ): Promise<SendMessageResult> {
    this.arrivals.arrive(userMessage.id, arrival.traceparent, "rest", arrival.receivedAt);
    let requestId: string | null = null;
    this.#restTurns.set(userMessage.id, (id) => {
      requestId = id;
      this.#frameTaps.set(id, onFrame);
    });
    try {
      const result = await this.room.saveMessages((messages) => [...messages, userMessage]);
      const answer = answerTo(this.room.messages, userMessage.id);
      const errorCode = (answer?.metadata as MessageMetadata | undefined)?.errorCode;
      return {
        userMessage: toChatMessage(userMessage),
        assistantMessage: answer ? toChatMessage(answer) : null,
        status: result.status,
        ...(result.error ? { error: result.error } : {}),
        ...(errorCode ? { errorCode } : {})
      };
    } finally {
      this.#restTurns.delete(userMessage.id);
      this.arrivals.forget(userMessage.id);
      if (requestId) this.#frameTaps.delete(requestId);
    }
  }
}
