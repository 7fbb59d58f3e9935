/**
 * Wire types shared by the Worker and the browser: REST bodies, the
 * overseer's room-list frames and the room's extra frames (presence, typing).
 * Runtime-safe for the browser bundle: keep Worker-only imports out.
 */
import type { UIMessage } from "ai";
import { z } from "zod";
import { DailyTokenBudget } from "./budgets";
import {
  DEFAULT_PAGE_SIZE,
  MAX_AUTHOR_LENGTH,
  MAX_MESSAGE_LENGTH,
  MAX_PAGE_SIZE,
  MAX_ROOM_NAME_LENGTH
} from "./constants";
import { type AnswerErrorCode, type ErrorCode, type RoomErrorFrame, WireError } from "./errors";
import { MessageFiles } from "./files";
import type { IdentityKind, MessageAuthor } from "./identity";
import type { RoomAccess } from "./members";
import { ModelName, SystemPrompt, Temperature } from "./model-settings";
import { type Notification, NotificationSchema } from "./notifications";
import { ROOM_VISIBILITIES, type RoomVisibility } from "./permissions";
import { DEFAULT_RESPONDERS, type DefaultResponder, type Persona, type PersonaRef } from "./personas";
import type { ReactionsByMessage } from "./reactions";
import { type ReplyRef, ReplyToId } from "./replies";
import { type ReadMark, ReadMarkSchema } from "./unread";

// ── Room settings and summaries ──

const RoomName = z
  .string({ error: "name must be a string" })
  .trim()
  .min(1, "name must not be empty")
  .max(MAX_ROOM_NAME_LENGTH, `name must be at most ${MAX_ROOM_NAME_LENGTH} characters`)
  .refine((s) => !/\p{Cc}/u.test(s), "name must not contain control characters");

const Visibility = z.enum(ROOM_VISIBILITIES, { error: `visibility must be one of ${ROOM_VISIBILITIES.join(", ")}` });

export const CreateRoomBody = z.strictObject({
  name: RoomName,
  /** `workspace` (default): everyone in the workspace; `private`: its members only. */
  visibility: Visibility.optional(),
  systemPrompt: SystemPrompt.optional(),
  model: ModelName.nullable().optional(),
  temperature: Temperature.nullable().optional()
});
export type CreateRoomBody = z.infer<typeof CreateRoomBody>;

export const UpdateRoomBody = z
  .strictObject({
    name: RoomName.optional(),
    systemPrompt: SystemPrompt.optional(),
    model: ModelName.nullable().optional(),
    temperature: Temperature.nullable().optional(),
    defaultResponder: z
      .enum(DEFAULT_RESPONDERS, { error: `defaultResponder must be one of ${DEFAULT_RESPONDERS.join(", ")}` })
      .optional(),
    /** Tokens per UTC day (0 = unlimited, null = the server default). */
    dailyTokenBudget: DailyTokenBudget.nullable().optional(),
    /** Who may see the room (its owner and admins may change it). */
    visibility: Visibility.optional(),
    /** Whether the room's model reads images (null = the server default, see docs/files.md). */
    imageInput: z.boolean({ error: "imageInput must be true, false or null" }).nullable().optional()
  })
  .refine(
    (b) => Object.keys(b).length > 0,
    "give at least one of name, systemPrompt, model, temperature, defaultResponder, dailyTokenBudget, visibility, imageInput"
  );
export type UpdateRoomBody = z.infer<typeof UpdateRoomBody>;

/** What a room's own SQLite holds about its LLM context. */
export interface RoomSettings {
  name: string;
  systemPrompt: string;
  /** null: the server default (`OPENAI_MODEL`). */
  model: string | null;
  /** null: the provider default. */
  temperature: number | null;
  /** Absent on rooms made before personas: read as "assistant". */
  defaultResponder?: DefaultResponder;
  /** Tokens per UTC day; 0 = unlimited; null or absent = the server default (ROOM_DAILY_TOKEN_BUDGET). */
  dailyTokenBudget?: number | null;
  /** Whether the room's model reads images; null or absent = the server default (MODEL_ACCEPTS_IMAGES). */
  imageInput?: boolean | null;
}

/** One row of the overseer's registry, as every client sees it. */
export interface RoomSummary {
  id: string;
  name: string;
  createdAt: number;
  lastActiveAt: number;
  messageCount: number;
  lastMessagePreview: string | null;
  /** `private` rooms are listed only to their members and the workspace's admins. */
  visibility: RoomVisibility;
}

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

/** `GET /api/rooms/:id`: the summary plus what only the room knows. */
export interface RoomDetail extends RoomSummary {
  settings: RoomSettings;
  usage: TokenUsage;
  /** The model that answers now, e.g. "gpt-4o-mini" or "rooms-offline". */
  activeModel: string;
  offline: boolean;
  /** The room's personas (absent on rooms made before personas). */
  personas?: Persona[];
  /** Bumped when the room's pins or summaries change: clients showing them refetch (GET …/memory). */
  memory?: { revision: number };
  /** The caller's place in the room and what it may do there (shared/permissions.ts). */
  access?: RoomAccess;
}

// ── Messages ──

/** A page cursor: a message id. */
export const PageCursor = z.string().min(1).max(128);
/** How many messages a page holds. */
export const PageLimit = z.coerce
  .number({ error: "limit must be a number" })
  .int("limit must be a whole number")
  .min(1, "limit must be at least 1")
  .max(MAX_PAGE_SIZE, `limit must be at most ${MAX_PAGE_SIZE}`)
  .default(DEFAULT_PAGE_SIZE);

export const MessagesQuery = z
  .strictObject({
    before: PageCursor.optional(),
    /** The page holding this message, with it near the middle (deep links). */
    around: PageCursor.optional(),
    /** The page just after this message (reading forward from a deep link). */
    after: PageCursor.optional(),
    limit: PageLimit
  })
  .refine(
    (q) => [q.before, q.around, q.after].filter(Boolean).length <= 1,
    "give at most one of before, around and after"
  );
export type MessagesQuery = z.infer<typeof MessagesQuery>;

const Author = z
  .string()
  .trim()
  .min(1, "author must not be empty")
  .max(MAX_AUTHOR_LENGTH, `author must be at most ${MAX_AUTHOR_LENGTH} characters`);

export const SendMessageBody = z.strictObject({
  text: z
    .string({ error: "text must be a string" })
    .refine((s) => s.trim().length > 0, "text must not be empty")
    .refine((s) => s.length <= MAX_MESSAGE_LENGTH, `text must be at most ${MAX_MESSAGE_LENGTH} characters`),
  /** Ignored: the server writes the author from the caller's identity. Accepted so older scripts keep working. */
  author: Author.optional(),
  /** Files of this room the message carries (their ids, from POST …/files); see docs/files.md. */
  files: MessageFiles.optional(),
  /** The id of a message of this room this one replies to (shared/replies.ts); 400 when it names none. */
  replyTo: ReplyToId.optional()
});
export type SendMessageBody = z.infer<typeof SendMessageBody>;

/** Metadata our server writes on messages (the UI reads it). */
export interface MessageMetadata {
  /** On a user message: who wrote it, written by the server (older messages may hold a bare name). */
  author?: MessageAuthor;
  /** On an answer: the id of the question it answers (see turn-context.ts). */
  answers?: string;
  /** On a person's message: the message it replies to, quoted (checked and written by the server; shared/replies.ts). */
  replyTo?: ReplyRef;
  /**
   * On an edit or a regeneration: the id of the message it replaces, kept
   * as an earlier version (a sibling in the room's message tree).
   */
  versionOf?: string;
  /** Which version of its position this is (1 is the original); the newest is shown. */
  version?: number;
  createdAt?: number;
  model?: string;
  offline?: boolean;
  usage?: TokenUsage;
  /** The answer was stopped by a user before it finished. */
  stopped?: boolean;
  /** Who stopped it: the identity of the socket that sent the cancel (written by the server only). */
  stoppedBy?: MessageAuthor;
  /** The answer ended with a provider error; the text says why. */
  error?: string;
  /** On a question: nobody answers it in words (a humans-only room, auto mode staying quiet, or personas that only reacted). */
  noReply?: boolean;
  /** A private aside its asker shared to the room (shared/asides.ts): on its question and its answer. */
  aside?: { sharedAt: number };
  /** On a question: its author withdrew it from the AI's queue before an answer (with `noReply`). */
  withdrawn?: boolean;
  /** A background task's result, posted by that task. */
  task?: { id: string; asked: string; status: string };
  /** A panellist's answer, or the assistant's synthesis of a panel. */
  panel?: "answer" | "synthesis";
  /** The answer was written by this persona, not the room's assistant. */
  persona?: PersonaRef;
  /** The trace of the turn that wrote this answer (GET /api/rooms/:id/traces/:traceId). */
  traceId?: string;
  /** With `error`: its code, e.g. "budget_exceeded:room" or "upstream:http_429". */
  errorCode?: AnswerErrorCode;
}

/** A stored message as REST returns it: the AI SDK's UIMessage. */
export type ChatMessage = UIMessage<MessageMetadata>;

/**
 * `GET …/messages/:id/versions`: every version of a message's position,
 * oldest first (the room shows the newest), each with the messages that
 * followed it on its own branch (at most 20).
 */
export interface MessageVersions {
  messageId: string;
  parentId: string | null;
  versions: Array<{ messages: ChatMessage[] }>;
}

export interface MessagePage {
  messages: ChatMessage[];
  /** Pass as `before` for the next older page; null when this is the oldest. */
  nextCursor: string | null;
  /** With `around` or `after`: pass as `after` for the next newer page; null when the page reaches the newest. */
  newerCursor?: string | null;
  /** The page's messages' reactions (those with none are left out), see shared/reactions.ts. */
  reactions?: ReactionsByMessage;
}

export interface SendMessageResult {
  userMessage: ChatMessage;
  assistantMessage: ChatMessage | null;
  status: "completed" | "error" | "aborted" | "skipped";
  error?: string;
  /** With `error`: its code (e.g. "budget_exceeded:room", answered with 429). */
  errorCode?: AnswerErrorCode;
}

// ── Overseer frames (room list, live) ──

export type OverseerFrame =
  | { type: "rooms"; rooms: RoomSummary[] }
  | { type: "room_upserted"; room: RoomSummary }
  /** Gone for this reader: deleted, or (`reason: "access"`) no longer theirs to see (removed, made private). */
  | { type: "room_deleted"; id: string; reason?: "access" }
  /** This person's own read marks (never anyone else's): all of them on connect (`replace`), then changes. */
  | { type: "read_marks"; marks: ReadMark[]; replace: boolean }
  /** This person's unread notifications changed (shared/notifications.ts); `added`: a new one, to show or announce. */
  | { type: "notifications"; unread: number; added?: Notification }
  | { type: "error"; code: ErrorCode; message: string };

const RoomSummarySchema = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.number(),
  lastActiveAt: z.number(),
  messageCount: z.number(),
  lastMessagePreview: z.string().nullable(),
  visibility: Visibility
});

export const OverseerFrameSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("rooms"), rooms: z.array(RoomSummarySchema) }),
  z.object({ type: z.literal("room_upserted"), room: RoomSummarySchema }),
  z.object({ type: z.literal("room_deleted"), id: z.string(), reason: z.literal("access").optional() }),
  z.object({ type: z.literal("read_marks"), marks: z.array(ReadMarkSchema), replace: z.boolean() }),
  z.object({ type: z.literal("notifications"), unread: z.number(), added: NotificationSchema.optional() }),
  // The one error model's schema (src/shared/errors.ts): only declared codes parse.
  WireError.extend({ type: z.literal("error") })
]);

// ── Room frames beyond the AIChatAgent protocol ──

/** One identity in a room (however many sockets it has open there). */
export interface PresenceUser {
  /** The identity's id (see shared/identity.ts). */
  id: string;
  name: string;
  kind: IdentityKind;
  typing: boolean;
}

/**
 * Client → room: whether I am typing; that I see the room's newest message
 * (`rooms_read`, with the newest message id I show: the room works out the
 * position itself, see domain/rooms/read-positions.ts). `rooms_hello` is accepted from
 * older clients and changes nothing: names come from the identity.
 */
export const RoomClientFrame = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("rooms_hello"), name: Author.optional() }),
  z.strictObject({ type: z.literal("rooms_typing"), typing: z.boolean() }),
  z.strictObject({ type: z.literal("rooms_read"), messageId: z.string().min(1).max(128).optional() }),
  /** Stop one delegated task (its card's Stop); anyone in the room may, as anyone may stop an answer. */
  z.strictObject({ type: z.literal("rooms_task_stop"), runId: z.string().min(1).max(64) })
]);
export type RoomClientFrame = z.infer<typeof RoomClientFrame>;

/** Room → clients. */
export type RoomServerFrame =
  | { type: "rooms_presence"; users: PresenceUser[] }
  | RoomErrorFrame
  /** An outbox send is stored (or was already: `duplicate`), see shared/outbox.ts. */
  | { type: "rooms_ack"; clientMessageId: string; duplicate: boolean }
  /**
   * A persona or panel turn started or ended (agents/room/live-turns.ts):
   * its request id is what anyone in the room cancels to stop it.
   */
  | { type: "rooms_turn"; requestId: string; kind: LiveTurnKind; running: boolean }
  /** Reactions of these messages now (a message's whole list; `[]`: none left), see room/room-reactions.ts. */
  | { type: "rooms_reactions"; reactions: ReactionsByMessage }
  /** On connect, when the socket asked (`?page=N`): all a client needs to render the room (room/opening-frame.ts). */
  | { type: "rooms_opened"; page: MessagePage; state: RoomState; presence: PresenceUser[] };

export type LiveTurnKind = "personas" | "panel";

/** The room's synced agent state (AIChatAgent `setState`). */
export interface RoomState {
  settings: RoomSettings;
  /** A forked room: where it came from (room and message). */
  origin?: { roomId: string; roomName: string; messageId: string } | null;
  usage: TokenUsage;
  activeModel: string;
  offline: boolean;
  /** The room's personas (absent on rooms made before personas). */
  personas?: Persona[];
  /** Bumped when the room's pins or summaries change: clients showing them refetch (GET …/memory). */
  memory?: { revision: number };
}
