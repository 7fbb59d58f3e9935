/**
 * The framework's floor for a chat turn: the least the mandated architecture
 * (one parent Agent per workspace, each room an AIChatAgent facet of it,
 * reached at /agents/<parent>/<ws>/sub/<facet>/<id>) can cost, with none of
 * Rooms' own code. `bench/sections/floor.ts` runs the same measurements
 * against this Worker and against Rooms, side by side.
 *
 *   ws://…/agents/floor-parent/<ws>/sub/floor-chat/<room>   useAgentChat's protocol
 *   GET …/agents/floor-parent/<ws>/sub/floor-chat/<room>/get-messages
 *
 * `FloorChat` is the documented minimum of docs/chat-agents.md ("Quick
 * Start"): `streamText(...).toUIMessageStreamResponse()` over the stored
 * messages, here with `@ai-sdk/openai` against the same fake provider the
 * bench gives Rooms. No guards, gates, traces, budgets or ledgers: the
 * parent is a bare Agent and facets are created on first connect (the
 * framework's default, permissive `onBeforeSubAgent`).
 *
 * Only bench/floor/vite.config.ts builds this entry; the production bundle
 * never contains it.
 */

import { RpcTarget } from "cloudflare:workers";
import { createOpenAI } from "@ai-sdk/openai";
import { AIChatAgent, type OnChatMessageOptions } from "@cloudflare/ai-chat";
import { Agent, type Connection, type ConnectionContext, routeAgentRequest, type WSMessage } from "agents";
import { convertToModelMessages, streamText, type UIMessage } from "ai";

// The tree's global Cloudflare.Env is the app's (Agent requires a subtype of it); this Worker
// only reads the provider variables, which the bench always sets.
type FloorEnv = Cloudflare.Env & {
  FloorParent: DurableObjectNamespace<FloorParent>;
  RelayParent: DurableObjectNamespace<RelayParent>;
};

export class FloorParent extends Agent<FloorEnv> {}

export class FloorChat extends AIChatAgent<FloorEnv> {
  async onChatMessage(_onFinish: unknown, options?: OnChatMessageOptions) {
    const openai = createOpenAI({ baseURL: this.env.OPENAI_BASE_URL, apiKey: this.env.OPENAI_API_KEY });
    const result = streamText({
      model: openai.chat(this.env.OPENAI_MODEL ?? "fake-model"),
      messages: await convertToModelMessages(this.messages),
      abortSignal: options?.abortSignal,
      // Only on failure: the bench prints the server's log when a turn fails.
      onError: ({ error }) => console.error("floor: model stream failed:", error)
    });
    return result.toUIMessageStreamResponse();
  }
}

/**
 * The other design, for comparison: experimental/gadgets-chat's relay (the
 * example issue 10 measured). The browser's socket is the parent's own
 * (/agents/relay-parent/<ws>?room=<id>), the room is a plain `Agent` facet,
 * and the parent hands it an `RpcTarget` that the room calls once per UI
 * message chunk and that sends it to that one socket, in the same
 * `cf_agent_use_chat_response` frames. No AIChatAgent: no resumable-stream
 * rows, no transcript broadcast, the answer's text stored once at the end.
 */
class ChunkRelay extends RpcTarget {
  readonly #connection: Connection;
  readonly #requestId: string;
  constructor(connection: Connection, requestId: string) {
    super();
    this.#connection = connection;
    this.#requestId = requestId;
  }
  onChunk(body: string) {
    this.#connection.send(
      JSON.stringify({ type: "cf_agent_use_chat_response", id: this.#requestId, body, done: false })
    );
  }
  onDone() {
    this.#connection.send(
      JSON.stringify({ type: "cf_agent_use_chat_response", id: this.#requestId, body: "", done: true })
    );
  }
}

export class RelayParent extends Agent<FloorEnv> {
  readonly #roomOf = new Map<string, string>();

  onConnect(connection: Connection, ctx: ConnectionContext) {
    this.#roomOf.set(connection.id, new URL(ctx.request.url).searchParams.get("room") ?? "default");
  }

  async onMessage(connection: Connection, message: WSMessage) {
    if (typeof message !== "string") return;
    const frame = JSON.parse(message) as { type?: string; id?: string; init?: { body?: string } };
    if (frame.type !== "cf_agent_use_chat_request" || !frame.id) return;
    const { messages } = JSON.parse(frame.init?.body ?? "{}") as { messages?: UIMessage[] };
    const text = (messages?.at(-1)?.parts ?? []).map((p) => (p.type === "text" ? p.text : "")).join("");
    const room = await this.dynamicAgents.get(RelayRoom, this.#roomOf.get(connection.id) ?? "default");
    await room.chat(text, new ChunkRelay(connection, frame.id));
  }

  /** GET …?room=<id>: the room's stored messages, as AIChatAgent's /get-messages returns them. */
  async onRequest(request: Request): Promise<Response> {
    const room = await this.dynamicAgents.get(RelayRoom, new URL(request.url).searchParams.get("room") ?? "default");
    return Response.json(await room.storedMessages());
  }
}

export class RelayRoom extends Agent<FloorEnv> {
  onStart() {
    this.sql`CREATE TABLE IF NOT EXISTS messages (seq INTEGER PRIMARY KEY AUTOINCREMENT, role TEXT, content TEXT)`;
  }

  storedMessages(): UIMessage[] {
    return this.sql<{ seq: number; role: "user" | "assistant"; content: string }>`
      SELECT seq, role, content FROM messages ORDER BY seq`.map((r) => ({
      id: String(r.seq),
      role: r.role,
      parts: [{ type: "text", text: r.content }]
    }));
  }

  async chat(text: string, relay: ChunkRelay): Promise<void> {
    this.sql`INSERT INTO messages (role, content) VALUES ('user', ${text})`;
    const openai = createOpenAI({ baseURL: this.env.OPENAI_BASE_URL, apiKey: this.env.OPENAI_API_KEY });
    const result = streamText({
      model: openai.chat(this.env.OPENAI_MODEL ?? "fake-model"),
      messages: await convertToModelMessages(this.storedMessages()),
      onError: ({ error }) => console.error("relay: model stream failed:", error)
    });
    let answer = "";
    for await (const chunk of result.toUIMessageStream()) {
      if (chunk.type === "text-delta") answer += chunk.delta;
      await relay.onChunk(JSON.stringify(chunk));
    }
    this.sql`INSERT INTO messages (role, content) VALUES ('assistant', ${answer})`;
    await relay.onDone();
  }
}

export default {
  async fetch(request: Request, env: FloorEnv): Promise<Response> {
    // Anything else answers 200, which is what the bench's start-up probe waits for.
    return (await routeAgentRequest(request, env)) ?? new Response("floor worker\n");
  }
} satisfies ExportedHandler<FloorEnv>;
