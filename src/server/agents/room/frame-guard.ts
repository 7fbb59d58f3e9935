/**
 * What a room's sockets may send. Every frame passes these checks before
 * AIChatAgent acts on it: binary and oversized frames (in UTF-8 bytes),
 * rate limits on cancels and typing, and on sends (per
 * identity and address in this room, then the sender's message allowance
 * across every workspace: one question to its LimitKeeper per chat
 * request, never per frame or token), the room's message cap, a reply's check (it names a stored
 * message of this room), the chat-request guard (only the last,
 * new user message is taken from a client), and the frame-type allow-list
 * (domain/sockets/room-frames.ts): every other type is refused.
 */

import { MessageType } from "@cloudflare/ai-chat/types";
import type { Connection, WSMessage } from "agents";
import type { UIMessage } from "ai";
import { callerOf, isViewer, limitKeys } from "@/server/domain/access/caller";
import type { IdentityLimits } from "@/server/domain/access/identity-limits";
import { type Admission, RateLimiter, rateScaleFrom, scaled } from "@/server/domain/access/rate-limit";
import { type Branch, guardChatRequest } from "@/server/domain/messages/chat-request-guard";
import { replyRefused, requestedReplyTo } from "@/server/domain/messages/reply-rules";
import { overBytes } from "@/server/domain/sockets/frame-bytes";
import { decideRoomFrame } from "@/server/domain/sockets/room-frames";
import {
  ADDRESS_LIMIT_FACTOR,
  MAX_MESSAGE_LENGTH,
  MAX_MESSAGES_PER_CHAT_REQUEST,
  MAX_MESSAGES_PER_ROOM,
  MAX_WS_FRAME_BYTES,
  RATE_LIMITS
} from "@/shared/constants";
import type { ErrorCode } from "@/shared/errors";
import type { FileRef } from "@/shared/files";
import { authorOf, type Identity } from "@/shared/identity";
import type { ReplyRef } from "@/shared/replies";
import { parseJson, sendRoomError } from "./frames";
import type { OutboxSends } from "./outbox-sends";

/** What the guard needs from its room. */
interface GuardedRoom {
  readonly messages: UIMessage[];
  messageCount(): number;
  writeBranch(branch: Branch): Promise<{ ok: true } | { ok: false; message: string }>;
  /** A file part's canonical form when its url names a file of this room (room/room-files.ts). */
  fileOf(url: string): FileRef | null;
  /** What a reply keeps of the stored message with this id, or null when the room holds none (one lookup by id). */
  replyTarget(messageId: string): Promise<ReplyRef | null>;
  /** Someone's chat request was let through: they wrote in the room (room/activity.ts reports it). */
  talked(identity: Identity): void;
}

type Next = (connection: Connection, message: WSMessage) => unknown;
type Refuse = (code: ErrorCode, text: string, requestId?: string) => void;
type ChatRequestFrame = { init?: { method?: unknown; body?: unknown } };

/** What a share link's viewer may send: rejoining the running answer's stream after connecting. */
const VIEWER_FRAMES: ReadonlySet<string> = new Set([
  MessageType.CF_AGENT_STREAM_RESUME_REQUEST,
  MessageType.CF_AGENT_STREAM_RESUME_ACK
]);

export class FrameGuard {
  /**
   * Limits on what sockets may send, per identity and per address, never
   * per connection, so reconnecting resets nothing (RATE_LIMIT_SCALE applies).
   */
  #sendLimiter: RateLimiter;
  #sendAddressLimiter: RateLimiter;
  #typingLimiter: RateLimiter;
  /** Per identity, as the others: each cancel still costs the room a lookup, whatever it names. */
  #cancelLimiter: RateLimiter;
  /**
   * The last question to a sender's keeper: each chat request waits for the
   * one before it, so requests leave the guard in the order they arrived
   * however long each answer takes.
   */
  #acrossTail: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly room: GuardedRoom,
    rateLimitScale: string | undefined,
    /** Where an accepted chat request's trace starts (room/turn-trace.ts). */
    private readonly onAccepted: (messageId: string, traceparent: string | null) => void,
    private readonly outbox: OutboxSends,
    /** The sender's message allowance across workspaces (domain/access/identity-limits.ts). */
    private readonly acrossWorkspaces: IdentityLimits
  ) {
    const scale = rateScaleFrom(rateLimitScale);
    this.#sendLimiter = new RateLimiter(scaled(RATE_LIMITS.socketSend, scale));
    this.#sendAddressLimiter = new RateLimiter(scaled(RATE_LIMITS.socketSend, scale * ADDRESS_LIMIT_FACTOR));
    this.#typingLimiter = new RateLimiter(scaled(RATE_LIMITS.socketTyping, scale));
    this.#cancelLimiter = new RateLimiter(scaled(RATE_LIMITS.socketCancel, scale));
  }

  async check(connection: Connection, message: WSMessage, next: Next) {
    const refuse: Refuse = (code, text, requestId) => {
      if (requestId) {
        // Settle the client's pending request, as the framework would.
        connection.send(
          JSON.stringify({
            type: MessageType.CF_AGENT_USE_CHAT_RESPONSE,
            id: requestId,
            body: text,
            done: true,
            error: true
          })
        );
      }
      sendRoomError(connection, code, text);
    };
    if (typeof message !== "string") return refuse("bad_request:body", "Binary frames are not accepted.");
    if (overBytes(message, MAX_WS_FRAME_BYTES)) {
      return refuse("payload_too_large:body", `Frames may be at most ${MAX_WS_FRAME_BYTES} bytes.`);
    }
    const frame = parseJson(message);
    const type = typeof frame === "object" && frame !== null ? (frame as { type?: unknown }).type : undefined;
    const requestId =
      typeof (frame as { id?: unknown } | undefined)?.id === "string"
        ? (frame as { id: string }).id.slice(0, 128)
        : undefined;
    const decision = decideRoomFrame(frame);
    // A share link's viewer only reads: it may ask to rejoin a running
    // answer's stream, and nothing else (no sends, stops, typing, state).
    if (isViewer(connection)) {
      if (decision.kind === "framework" && VIEWER_FRAMES.has(String(type))) return next(connection, decision.frame);
      return refuse(
        "forbidden:read_only",
        "This is a read-only share link: it can watch the room, not act in it.",
        requestId
      );
    }
    switch (decision.kind) {
      case "refused":
        return refuse("bad_request:body", decision.message);
      case "framework":
        if (type === MessageType.CF_AGENT_CHAT_REQUEST_CANCEL) {
          const admission = this.#cancelLimiter.take(limitKeys(callerOf(connection)).identity, Date.now());
          if (!admission.ok) {
            return refuse(
              "rate_limited:requests",
              `Too many cancels; wait ${Math.ceil(admission.retryAfterMs / 1000)} s.`
            );
          }
          if (requestId) this.outbox.cancelRequested(connection, requestId);
        }
        return next(connection, decision.frame);
      case "room": {
        if (
          type === "rooms_typing" &&
          !this.#typingLimiter.take(limitKeys(callerOf(connection)).identity, Date.now()).ok
        )
          return;
        return next(connection, message);
      }
      case "chat-request":
        if (!requestId) return refuse("bad_request:body", "A chat request needs a string id.");
        return this.#chatRequest(connection, frame as ChatRequestFrame, requestId, refuse, next);
    }
  }

  /**
   * A new message, an edit or a regeneration: within the sender's rate and
   * the room's cap, naming only stored messages it may name (a reply's
   * original, domain/messages/reply-rules.ts), sent once (outbox), and rebuilt
   * from the room's transcript (chat-request-guard.ts) before the framework
   * sees it.
   */
  async #chatRequest(connection: Connection, frame: ChatRequestFrame, requestId: string, refuse: Refuse, next: Next) {
    const type = MessageType.CF_AGENT_USE_CHAT_REQUEST;
    const caller = callerOf(connection);
    const keys = limitKeys(caller);
    const now = Date.now();
    const local = [this.#sendLimiter.take(keys.identity, now), this.#sendAddressLimiter.take(keys.address, now)].find(
      (a) => !a.ok
    );
    // Only once this room's limits pass: they keep a flood from reaching the keeper.
    const admission = local ?? (await this.#takeAcross(keys.identity));
    if (!admission.ok) {
      return refuse(
        "rate_limited:requests",
        `Too many messages; wait ${Math.ceil(admission.retryAfterMs / 1000)} s.`,
        requestId
      );
    }
    if (this.room.messageCount() >= MAX_MESSAGES_PER_ROOM) {
      return refuse(
        "conflict:room_full",
        `This room holds ${MAX_MESSAGES_PER_ROOM} messages, the most it can. Start a new room.`,
        requestId
      );
    }
    const init = frame.init;
    // Before the outbox admits the send: nothing may wait between its check and its claim.
    const reply = await this.#replyTo(init?.body);
    if (!reply.ok) return refuse("bad_request:reply_to", reply.message, requestId);
    const outboxSend = await this.outbox.admit(connection, requestId, init?.body);
    if (outboxSend.kind === "invalid") return refuse("bad_request:body", outboxSend.message, requestId);
    if (outboxSend.kind === "duplicate") return;
    // The author is who opened this socket, whatever the frame says.
    const guarded = guardChatRequest(
      init?.body,
      this.room.messages,
      {
        maxMessageLength: MAX_MESSAGE_LENGTH,
        maxMessages: MAX_MESSAGES_PER_CHAT_REQUEST,
        fileOf: (url) => this.room.fileOf(url),
        replyTo: reply.replyTo
      },
      caller ? authorOf(caller.identity) : null
    );
    if (!guarded.ok) return refuse(guarded.code, guarded.message, requestId);
    // A new message (not an edit or a regeneration, whose versions get
    // server ids) keeps its client id, which must name no stored row.
    const isNewMessage = !guarded.branch && guarded.newText !== null;
    if (isNewMessage && outboxSend.kind !== "new") {
      if (await this.outbox.isTaken(guarded.messageId)) {
        return refuse(
          "conflict:message_id",
          "That message id is already used in this room; send the message under a new id.",
          requestId
        );
      }
      this.outbox.claim(guarded.messageId);
    }
    let body = guarded.body;
    if (guarded.branch) {
      const written = await this.room.writeBranch(guarded.branch);
      if (!written.ok) return refuse("conflict:not_latest", written.message, requestId);
      body = JSON.stringify({ messages: this.room.messages, trigger: JSON.parse(body).trigger });
      // The sender's own copy still holds what it edited or regenerated:
      // give it the room's transcript (the framework tells everyone else).
      connection.send(JSON.stringify({ type: MessageType.CF_AGENT_CHAT_MESSAGES, messages: this.room.messages }));
    }
    // The client's trace context rides in the chat request body (a
    // browser cannot set headers on a WebSocket, and the upgrade is one
    // per socket, not per turn); the framework never sees it.
    this.onAccepted(guarded.messageId, guarded.traceparent);
    if (caller) this.room.talked(caller.identity);
    if (outboxSend.kind === "new") this.outbox.accepted(connection, outboxSend.clientMessageId);
    return next(connection, JSON.stringify({ type, id: requestId, init: { method: "POST", body } }));
  }

  /** One "send" token of the sender's allowance across workspaces, in arrival order. */
  #takeAcross(identityKey: string): Promise<Admission> {
    const taken = this.#acrossTail.then(() => this.acrossWorkspaces.take(identityKey, "send"));
    this.#acrossTail = taken.catch(() => {});
    return taken;
  }

  /** The message a chat request replies to, looked up by id in the room's storage; refused when it is not there. */
  async #replyTo(rawBody: unknown): Promise<{ ok: true; replyTo?: ReplyRef } | { ok: false; message: string }> {
    const request = requestedReplyTo(rawBody);
    if (request.kind === "none") return { ok: true };
    if (request.kind === "invalid") return { ok: false, message: request.message };
    const replyTo = await this.room.replyTarget(request.messageId);
    return replyTo ? { ok: true, replyTo } : { ok: false, message: replyRefused(request.messageId).message };
  }
}
