/**
 * Typed REST client for `/api/rooms`. Every failure becomes an `ApiError`
 * whose message is the server's human-readable `error.message`, so callers
 * can show `error.message` as is.
 */

import type { Aside, AsideList } from "@/shared/asides";
import type { CatchUp } from "@/shared/catch-up";
import { type ErrorCode, parseWireError } from "@/shared/errors";
import type { FilePage } from "@/shared/files";
import type { SessionInfo, SignInOptions } from "@/shared/identity";
import type { AgentTree } from "@/shared/introspection";
import type { MemberList } from "@/shared/members";
import type { AnswerContext, CreatePinBody, Pin, RoomMemory, UpdatePinBody } from "@/shared/memory";
import type { MarkNotificationsReadBody, NotificationList, RoomNotifications } from "@/shared/notifications";
import type { CreatePersonaBody, Persona, UpdatePersonaBody } from "@/shared/personas";
import type {
  CreateRoomBody,
  MessagePage,
  MessageVersions,
  RoomDetail,
  RoomSummary,
  UpdateRoomBody
} from "@/shared/protocol";
import type { WithdrawResult } from "@/shared/question-queue";
import type { ReactionToggleResult } from "@/shared/reactions";
import type { SearchResponse } from "@/shared/search";
import type { ShareLink, ShareList, ShareView } from "@/shared/shares";
import type { TraceDetail } from "@/shared/traces";

export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode | undefined;
  constructor(message: string, status: number, code?: ErrorCode) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
  }
}

const BASE = "/api/rooms";

function errorFromBody(body: unknown, status: number): ApiError {
  const error = parseWireError(body);
  if (error) return new ApiError(error.message, status, error.code);
  if (status === 0) return new ApiError("Could not reach the server. Check your connection and try again.", 0);
  return new ApiError(`The server answered with an unexpected error (HTTP ${status}).`, status);
}

export async function request<T>(path: string, init: RequestInit & { json?: unknown } = {}): Promise<T> {
  const { json, headers, ...rest } = init;
  let response: Response;
  try {
    response = await fetch(path, {
      ...rest,
      headers: {
        accept: "application/json",
        ...(json !== undefined ? { "content-type": "application/json" } : {}),
        ...headers
      },
      ...(json !== undefined ? { body: JSON.stringify(json) } : {})
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === "AbortError") throw error;
    throw errorFromBody(undefined, 0);
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    // The access token is gone or wrong: let the sign-in gate take over.
    if (response.status === 401 && !path.startsWith("/api/session"))
      window.dispatchEvent(new Event(UNAUTHORIZED_EVENT));
    throw errorFromBody(body, response.status);
  }
  return body as T;
}

/** Fired on window when the server answers 401. */
export const UNAUTHORIZED_EVENT = "rooms:unauthorized";

const roomPath = (id: string) => `${BASE}/${encodeURIComponent(id)}`;

/** Who we are, or how to sign in when no one. */
type SessionState = { user: SessionInfo["user"]; signIn: SignInOptions } | { user: null; signIn: SignInOptions };

async function currentSession(): Promise<SessionState> {
  let response: Response;
  try {
    response = await fetch("/api/session", { headers: { accept: "application/json" } });
  } catch {
    throw errorFromBody(undefined, 0);
  }
  const body = (await response.json().catch(() => undefined)) as
    | { user?: SessionInfo["user"]; signIn?: SignInOptions }
    | undefined;
  const signIn = body?.signIn ?? { tokenRequired: false, access: false };
  if (response.ok && body?.user) return { user: body.user, signIn };
  if (response.status === 401) return { user: null, signIn };
  throw errorFromBody(body, response.status);
}

/** A page of a room's files: newest first, older ones `before` a file's id. */
export type FilePageQuery = { before?: string; limit: number };

function pageParams(query: FilePageQuery): string {
  const params = new URLSearchParams({ limit: String(query.limit) });
  if (query.before) params.set("before", query.before);
  return params.toString();
}

export const api = {
  session: currentSession,
  signIn: (name: string, token?: string) =>
    request<SessionInfo>("/api/session", { method: "POST", json: { name, ...(token ? { token } : {}) } }),
  rename: (name: string) => request<SessionInfo>("/api/session", { method: "PATCH", json: { name } }),
  signOut: () => request<void>("/api/session", { method: "DELETE" }),
  listRooms: () => request<{ rooms: RoomSummary[] }>(BASE),
  createRoom: (body: CreateRoomBody) => request<RoomDetail>(BASE, { method: "POST", json: body }),
  getRoom: (id: string, signal?: AbortSignal) => request<RoomDetail>(roomPath(id), { signal }),
  updateRoom: (id: string, body: UpdateRoomBody) => request<RoomDetail>(roomPath(id), { method: "PATCH", json: body }),
  deleteRoom: (id: string) => request<void>(roomPath(id), { method: "DELETE" }),
  createPersona: (roomId: string, body: CreatePersonaBody) =>
    request<Persona>(`${roomPath(roomId)}/personas`, { method: "POST", json: body }),
  updatePersona: (roomId: string, personaId: string, body: UpdatePersonaBody) =>
    request<Persona>(`${roomPath(roomId)}/personas/${encodeURIComponent(personaId)}`, { method: "PATCH", json: body }),
  deletePersona: (roomId: string, personaId: string) =>
    request<void>(`${roomPath(roomId)}/personas/${encodeURIComponent(personaId)}`, { method: "DELETE" }),
  forkRoom: (id: string, messageId: string) =>
    request<RoomDetail>(`${roomPath(id)}/fork`, { method: "POST", json: { messageId } }),
  getTrace: (roomId: string, traceId: string) =>
    request<TraceDetail>(`${roomPath(roomId)}/traces/${encodeURIComponent(traceId)}`),
  describeAgents: (roomId: string, signal?: AbortSignal) =>
    request<AgentTree>(`${roomPath(roomId)}/agents`, { signal }),
  search: (q: string, limit: number, signal?: AbortSignal) =>
    request<SearchResponse>(`/api/search?${new URLSearchParams({ q, limit: String(limit) })}`, { signal }),
  /** Search only these rooms ("Search the rest" of a partial answer). */
  searchRooms: (q: string, limit: number, roomIds: string[], signal?: AbortSignal) =>
    request<SearchResponse>(
      `/api/search?${new URLSearchParams({ q, limit: String(limit), rooms: roomIds.join(",") })}`,
      {
        signal
      }
    ),
  createShare: (roomId: string, expiresIn?: number) =>
    request<ShareLink>(`${roomPath(roomId)}/shares`, {
      method: "POST",
      json: expiresIn === undefined ? {} : { expiresIn }
    }),
  listShares: (roomId: string) => request<ShareList>(`${roomPath(roomId)}/shares`),
  revokeShare: (roomId: string, shareId: string) =>
    request<void>(`${roomPath(roomId)}/shares/${encodeURIComponent(shareId)}`, { method: "DELETE" }),
  /** A share link's viewer: no session, the token is the credential. */
  openShare: (token: string) => request<ShareView>(`/api/share/${encodeURIComponent(token)}`),
  shareMessages: (token: string, query: { before?: string; limit: number }) => {
    const params = new URLSearchParams({ limit: String(query.limit) });
    if (query.before) params.set("before", query.before);
    return request<MessagePage>(`/api/share/${encodeURIComponent(token)}/messages?${params}`);
  },
  /** Search one room's history (find in room). */
  findInRoom: (roomId: string, q: string, limit: number, signal?: AbortSignal) =>
    request<SearchResponse>(`/api/search?${new URLSearchParams({ q, limit: String(limit), room: roomId })}`, {
      signal
    }),
  // The room's files (docs/files.md); uploads go through lib/file-uploads.ts, for their progress
  listFiles: (roomId: string, query: FilePageQuery, signal?: AbortSignal) =>
    request<FilePage>(`${roomPath(roomId)}/files?${pageParams(query)}`, { signal }),
  deleteFile: (roomId: string, fileId: string) =>
    request<void>(`${roomPath(roomId)}/files/${encodeURIComponent(fileId)}`, { method: "DELETE" }),
  shareFiles: (token: string, query: FilePageQuery, signal?: AbortSignal) =>
    request<FilePage>(`/api/share/${encodeURIComponent(token)}/files?${pageParams(query)}`, { signal }),
  // The room's memory (docs/memory.md)
  memory: (roomId: string, signal?: AbortSignal) => request<RoomMemory>(`${roomPath(roomId)}/memory`, { signal }),
  addPin: (roomId: string, body: CreatePinBody) =>
    request<{ pin: Pin }>(`${roomPath(roomId)}/memory/pins`, { method: "POST", json: body }),
  updatePin: (roomId: string, pinId: string, body: UpdatePinBody) =>
    request<{ pin: Pin }>(`${roomPath(roomId)}/memory/pins/${encodeURIComponent(pinId)}`, {
      method: "PATCH",
      json: body
    }),
  deletePin: (roomId: string, pinId: string) =>
    request<void>(`${roomPath(roomId)}/memory/pins/${encodeURIComponent(pinId)}`, { method: "DELETE" }),
  rebuildSummaries: (roomId: string) =>
    request<{ startedAt: number }>(`${roomPath(roomId)}/memory/summaries/rebuild`, { method: "POST", json: {} }),
  answerContext: (roomId: string, messageId: string, signal?: AbortSignal) =>
    request<AnswerContext>(`${roomPath(roomId)}/messages/${encodeURIComponent(messageId)}/context`, { signal }),
  /** Adds my reaction to a message, or takes it back (docs/conversations.md#reactions). */
  toggleReaction: (roomId: string, messageId: string, emoji: string) =>
    request<ReactionToggleResult>(`${roomPath(roomId)}/messages/${encodeURIComponent(messageId)}/reactions`, {
      method: "POST",
      json: { emoji }
    }),
  /** My private asides in a room, newest first (docs/conversations.md#private-asides). */
  asides: (roomId: string, signal?: AbortSignal) => request<AsideList>(`${roomPath(roomId)}/asides`, { signal }),
  askAside: (roomId: string, text: string) =>
    request<{ aside: Aside }>(`${roomPath(roomId)}/asides`, { method: "POST", json: { text } }),
  shareAside: (roomId: string, asideId: string) =>
    request<{ aside: Aside }>(`${roomPath(roomId)}/asides/${encodeURIComponent(asideId)}/share`, {
      method: "POST",
      json: {}
    }),
  deleteAside: (roomId: string, asideId: string) =>
    request<void>(`${roomPath(roomId)}/asides/${encodeURIComponent(asideId)}`, { method: "DELETE" }),
  /** Takes my question out of the AI's queue before its answer starts (docs/conversations.md#the-ais-queue). */
  withdrawQuestion: (roomId: string, messageId: string) =>
    request<WithdrawResult>(`${roomPath(roomId)}/messages/${encodeURIComponent(messageId)}/withdraw`, {
      method: "POST",
      json: {}
    }),
  messageVersions: (roomId: string, messageId: string) =>
    request<MessageVersions>(`${roomPath(roomId)}/messages/${encodeURIComponent(messageId)}/versions`),
  roomMembers: (roomId: string) => request<MemberList>(`${roomPath(roomId)}/members`),
  catchUp: (roomId: string, from?: string) =>
    request<CatchUp>(`${roomPath(roomId)}/catch-up`, { method: "POST", json: from ? { from } : {} }),
  notifications: () => request<NotificationList>("/api/notifications"),
  markNotificationsRead: (which: MarkNotificationsReadBody) =>
    request<NotificationList>("/api/notifications/read", { method: "POST", json: which }),
  roomNotifications: (roomId: string) =>
    request<RoomNotifications>(`/api/notifications/rooms/${encodeURIComponent(roomId)}`),
  muteRoom: (roomId: string, muted: boolean) =>
    request<RoomNotifications>(`/api/notifications/rooms/${encodeURIComponent(roomId)}`, {
      method: "PUT",
      json: { muted }
    }),
  listMessages: (
    id: string,
    query: { before?: string; around?: string; after?: string; limit?: number } = {},
    signal?: AbortSignal
  ) => {
    const params = new URLSearchParams();
    if (query.before) params.set("before", query.before);
    if (query.around) params.set("around", query.around);
    if (query.after) params.set("after", query.after);
    if (query.limit) params.set("limit", String(query.limit));
    const qs = params.toString();
    return request<MessagePage>(`${roomPath(id)}/messages${qs ? `?${qs}` : ""}`, { signal });
  }
};

export function errorMessage(error: unknown): string {
  if (error instanceof Error && error.message) return error.message;
  return "Something went wrong. Please try again.";
}
