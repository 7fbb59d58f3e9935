/**
 * The app's REST API as a test drives it: sign-in and the rooms routes, over
 * any fetch (Node's against a dev server, or the Worker's own entry inside
 * workerd), so integration, e2e and worker tests share one client.
 */
import type { MessagePage, RoomDetail } from "../../src/shared/protocol";
// With its extension: the benchmarks load this file under plain Node (--experimental-strip-types).
import { uniqueName } from "./wait.ts";

export type Fetcher = (request: Request) => Promise<Response>;

export type RequestOptions = RequestInit & { json?: unknown };

/** One request to `baseUrl + path`; `json` becomes the body with its content type. */
export function request(baseUrl: string, path: string, init: RequestOptions = {}, fetcher: Fetcher = fetch) {
  const { json, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (json !== undefined) headers.set("content-type", "application/json");
  const body = json !== undefined ? JSON.stringify(json) : rest.body;
  return fetcher(new Request(`${baseUrl}${path}`, { ...rest, headers, body }));
}

export interface SignedIn {
  user: { id: string; name: string; kind: string };
  /** The `Cookie` header value carrying the session. */
  cookie: string;
  headers: { cookie: string };
}

/** The `name=value` of the session cookie a response sets. */
export function sessionCookie(response: Response): string {
  const header = response.headers.get("set-cookie") ?? "";
  const match = header.match(/rooms_session=[^;]+/);
  if (!match) throw new Error(`no session cookie in: ${header}`);
  return match[0];
}

/** Signs in over POST /api/session as a browser would; each call is another person. */
export async function signIn(
  baseUrl: string,
  name: string,
  extra: Record<string, unknown> = {},
  fetcher: Fetcher = fetch
): Promise<SignedIn> {
  const response = await request(baseUrl, "/api/session", { method: "POST", json: { name, ...extra } }, fetcher);
  if (response.status !== 200) throw new Error(`sign-in failed ${response.status}: ${await response.text()}`);
  const cookie = sessionCookie(response);
  const { user } = (await response.json()) as { user: SignedIn["user"] };
  return { user, cookie, headers: { cookie } };
}

/** Where a workspace's rooms routes are: `default` under /api/rooms, any other under /api/workspaces/<name>/rooms. */
export function roomsPath(workspace: string): string {
  return workspace === "default" ? "/api/rooms" : `/api/workspaces/${workspace}/rooms`;
}

/** A room's WebSocket URL (a facet of its workspace's overseer). */
export function roomSocketUrl(baseUrl: string, workspace: string, roomId: string): string {
  return `${listSocketUrl(baseUrl, workspace)}/sub/chat-room/${roomId}`;
}

/** A workspace's room-list WebSocket URL. */
export function listSocketUrl(baseUrl: string, workspace: string): string {
  return `${baseUrl.replace(/^http/, "ws")}/agents/overseer-agent/${workspace}`;
}

export interface RestClientOptions {
  /** `default` is served under /api/rooms, any other under /api/workspaces/<name>/rooms. */
  workspace?: string;
  /** Act as this signed-in person. */
  as?: SignedIn;
  fetcher?: Fetcher;
}

/** The rooms routes of one workspace, and its socket URLs. */
export function restClient(baseUrl: string, { workspace = "default", as, fetcher = fetch }: RestClientOptions = {}) {
  const root = roomsPath(workspace);
  function call(path: string, init: RequestOptions = {}) {
    const headers = new Headers(init.headers);
    if (as && !headers.has("cookie")) headers.set("cookie", as.cookie);
    return request(baseUrl, `${root}${path}`, { ...init, headers }, fetcher);
  }
  return {
    call,
    async createRoom(body: Record<string, unknown> = {}): Promise<RoomDetail> {
      const response = await call("", { method: "POST", json: { name: uniqueName("room"), ...body } });
      if (response.status !== 201) throw new Error(`create failed ${response.status}: ${await response.text()}`);
      return (await response.json()) as RoomDetail;
    },
    /** Messages stay loosely typed: tests assert on fields a ChatMessage leaves optional. */
    async messages(roomId: string, query = ""): Promise<{ messages: any[]; nextCursor: string | null }> {
      const response = await call(`/${roomId}/messages${query}`);
      if (!response.ok) throw new Error(`messages failed ${response.status}: ${await response.text()}`);
      return (await response.json()) as MessagePage;
    },
    /** Sends over REST, which waits for the answer; `status` and `body` for tests of refusals too. */
    async send(roomId: string, text: string, author?: string) {
      const response = await call(`/${roomId}/messages`, {
        method: "POST",
        json: { text, ...(author ? { author } : {}) }
      });
      return { status: response.status, body: (await response.json()) as any };
    },
    /**
     * A room holding `count` messages (questions and answers in turn, the
     * text of message i from `textOf`), made through the import route: the
     * export of a one-exchange room, its two messages cloned with new ids.
     * The answer template comes from whatever model the server runs.
     */
    async importRoom(count: number, textOf: (i: number) => string): Promise<string> {
      const source = await this.createRoom({ name: uniqueName("template") });
      await this.send(source.id, "template question");
      const exported = (await (await call(`/${source.id}/export`)).json()) as {
        messages: Array<{ id: string; role: string; metadata?: Record<string, unknown> }>;
      };
      await call(`/${source.id}`, { method: "DELETE" });
      const [question, answer] = exported.messages;
      const start = Date.now() - count * 1_000;
      exported.messages = Array.from({ length: count }, (_, i) => ({
        ...(i % 2 === 0 ? question : answer),
        id: `imported-${i}`,
        parts: [{ type: "text", text: textOf(i) }],
        metadata: { ...(i % 2 === 0 ? question : answer).metadata, createdAt: start + i * 1_000 }
      }));
      const response = await call("/import", { method: "POST", json: exported });
      if (response.status !== 201) throw new Error(`import failed ${response.status}: ${await response.text()}`);
      return ((await response.json()) as { rooms: Array<{ id: string }> }).rooms[0].id;
    },
    roomSocketUrl: (roomId: string) => roomSocketUrl(baseUrl, workspace, roomId),
    listSocketUrl: () => listSocketUrl(baseUrl, workspace)
  };
}

export type RestClient = ReturnType<typeof restClient>;
