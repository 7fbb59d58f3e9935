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
import { createOpenAI } from "@ai-sdk/openai";
import { AIChatAgent, type OnChatMessageOptions } from "@cloudflare/ai-chat";
import { Agent, routeAgentRequest } from "agents";
import { convertToModelMessages, streamText } from "ai";

// The tree's global Cloudflare.Env is the app's (Agent requires a subtype of it); this Worker
// only reads the provider variables, which the bench always sets.
type FloorEnv = Cloudflare.Env & { FloorParent: DurableObjectNamespace<FloorParent> };

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

export default {
  async fetch(request: Request, env: FloorEnv): Promise<Response> {
    // Anything else answers 200, which is what the bench's start-up probe waits for.
    return (await routeAgentRequest(request, env)) ?? new Response("floor worker\n");
  }
} satisfies ExportedHandler<FloorEnv>;
