/**
 * The app as benchmarks run it: the production Worker plus one route that
 * fills a room with synthetic history fast (live turns are far too slow for
 * 10,000 or 100,000 messages):
 *
 *   POST /api/rooms/<id>/__bench/seed                      {"count": n}
 *   POST /api/workspaces/<ws>/rooms/<id>/__bench/seed      (n ≤ 10,000 a call)
 *
 * Only bench/vite.bench.config.ts (through bench/app/wrangler.jsonc) builds
 * this entry, so the production bundle never contains it. The two classes
 * extend the production ones and keep their names: the framework finds
 * facets and parents by class name (ctx.exports[Class.name]).
 */
import { zValidator } from "@hono/zod-validator";
import { type DynamicAgentStub, getAgentByName } from "agents";
import type { UIMessage } from "ai";
import { Hono } from "hono";
import { z } from "zod";
import { AppError, asResult, type RpcResult, unwrap } from "../../src/server/app-error";
import { type AppEnv, identify } from "../../src/server/http/access";
import { handleError } from "../../src/server/http/error-response";
import { rejectInvalid } from "../../src/server/http/validation";
import app, { ChatRoom, OverseerAgent } from "../../src/server/index";
import { DEFAULT_WORKSPACE, MAX_MESSAGES_PER_ROOM, WORKSPACE_PATTERN } from "../../src/shared/constants";
import { API_IDENTITY } from "../../src/shared/identity";
import type { MessageMetadata } from "../../src/shared/protocol";

function keepClassName(cls: abstract new (...args: never[]) => unknown, name: string) {
  Object.defineProperty(cls, "name", { value: name });
}

class BenchChatRoom extends ChatRoom {
  static {
    keepClassName(BenchChatRoom, "ChatRoom");
  }

  /**
   * Appends `count` alternating user/assistant messages to the transcript.
   * `importMessage` writes the same rows (path, content, token estimate,
   * full-text index) as a live append, without the per-message change-feed
   * work a live turn does; then the in-memory window is re-read as on a wake.
   */
  async benchSeed(count: number): Promise<{ messageCount: number }> {
    const base = this.messageCount();
    if (base + count > MAX_MESSAGES_PER_ROOM) {
      throw new Error(`A room holds at most ${MAX_MESSAGES_PER_ROOM} messages.`);
    }
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
        ? { author: { id: "seed", name: "seed" }, createdAt }
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
    this.reportActivity();
    return { messageCount: this.messageCount() };
  }
}

/** The bench seeds rooms as the bootstrap admin (ACCESS_TOKEN's holder) would. */
const BENCH_CALLER = { identity: API_IDENTITY, address: "local", admin: true as const };

class BenchOverseerAgent extends OverseerAgent {
  static {
    keepClassName(BenchOverseerAgent, "OverseerAgent");
  }

  benchSeed(id: string, count: number): Promise<RpcResult<{ messageCount: number }>> {
    return asResult(async () => {
      const detail = unwrap(await this.getRoom(id, BENCH_CALLER));
      if (detail.messageCount + count > MAX_MESSAGES_PER_ROOM) {
        throw new AppError("conflict:room_full", 409, `A room holds at most ${MAX_MESSAGES_PER_ROOM} messages.`);
      }
      const room = (await this.dynamicAgents.get(ChatRoom, id)) as unknown as DynamicAgentStub<BenchChatRoom>;
      return room.benchSeed(count);
    });
  }
}

/** Messages one seeding call may add: one call holds the room for well under a second per 10,000. */
const BenchSeedBody = z.strictObject({ count: z.number().int().min(1).max(10_000) });

const seed = new Hono<AppEnv>().post(
  "/",
  identify,
  zValidator("json", BenchSeedBody, rejectInvalid("bad_request:body")),
  async (c) => {
    const workspace = c.req.param("workspace") ?? DEFAULT_WORKSPACE;
    if (!WORKSPACE_PATTERN.test(workspace)) {
      throw new AppError("bad_request:workspace", 400, "workspace must be 1-64 lowercase letters, digits, _ or -.");
    }
    const overseer = (await getAgentByName(c.env.OverseerAgent, workspace)) as unknown as BenchOverseerAgent;
    return c.json(unwrap(await overseer.benchSeed(c.req.param("id") ?? "", c.req.valid("json").count)));
  }
);

const benchApp = new Hono<AppEnv>()
  .route("/api/rooms/:id/__bench/seed", seed)
  .route("/api/workspaces/:workspace/rooms/:id/__bench/seed", seed)
  .all("*", (c) => app.fetch(c.req.raw, c.env, c.executionCtx))
  .onError(handleError);

export default benchApp;
// Facets are found by class name: the app's other facet classes, as they are.
export { PersonaAgent } from "../../src/server/agents/persona-agent";
export { AuthKeeper, LimitKeeper } from "../../src/server/index";
export { BenchChatRoom as ChatRoom, BenchOverseerAgent as OverseerAgent };
