/**
 * Typed REST client for `/api/rooms`. Every failure becomes an `ApiError`
 * whose message is the server's human-readable `error.message`, so callers
 * can show `error.message` as is.
 */
import type { CreateRoomBody, MessagePage, RoomDetail, RoomSummary, UpdateRoomBody } from "../../shared/protocol";

export class ApiError extends Error {
  readonly status: number;
  readonly code: string | undefined;
  constructor(message: string, status: number, code?: string) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
  }
}

const BASE = "/api/rooms";

function errorFromBody(body: unknown, status: number): ApiError {
  if (body && typeof body === "object" && "error" in body) {
    const error = (body as { error: unknown }).error;
    if (error && typeof error === "object") {
      const { message, code } = error as { message?: unknown; code?: unknown };
      if (typeof message === "string" && message) {
        return new ApiError(message, status, typeof code === "string" ? code : undefined);
      }
    }
  }
  if (status === 0) return new ApiError("Could not reach the server. Check your connection and try again.", 0);
  return new ApiError(`The server answered with an unexpected error (HTTP ${status}).`, status);
}

async function request<T>(path: string, init: RequestInit & { json?: unknown } = {}): Promise<T> {
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

export const api = {
  session: () => request<{ authRequired: boolean; authenticated: boolean }>("/api/session"),
  signIn: (token: string) => request<void>("/api/session", { method: "POST", json: { token } }),
  signOut: () => request<void>("/api/session", { method: "DELETE" }),
  listRooms: () => request<{ rooms: RoomSummary[] }>(BASE),
  createRoom: (body: CreateRoomBody) => request<RoomDetail>(BASE, { method: "POST", json: body }),
  getRoom: (id: string, signal?: AbortSignal) => request<RoomDetail>(roomPath(id), { signal }),
  updateRoom: (id: string, body: UpdateRoomBody) => request<RoomDetail>(roomPath(id), { method: "PATCH", json: body }),
  deleteRoom: (id: string) => request<void>(roomPath(id), { method: "DELETE" }),
  listMessages: (id: string, query: { before?: string; limit?: number } = {}, signal?: AbortSignal) => {
    const params = new URLSearchParams();
    if (query.before) params.set("before", query.before);
    if (query.limit) params.set("limit", String(query.limit));
    const qs = params.toString();
    return request<MessagePage>(`${roomPath(id)}/messages${qs ? `?${qs}` : ""}`, { signal });
  }
};

export function errorMessage(error: unknown): string {
  if (error instanceof Error && error.message) return error.message;
  return "Something went wrong. Please try again.";
}
