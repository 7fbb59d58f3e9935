/**
 * REST for rooms: a thin layer that validates, finds the workspace's
 * overseer and calls it. All room logic lives in the agents.
 *
 *   /api/rooms/...                          the default workspace
 *   /api/workspaces/<workspace>/rooms/...   any other workspace
 */
import { zValidator } from "@hono/zod-validator";
import { type Context, Hono } from "hono";
import { z } from "zod";
import { AppError, unwrap } from "@/server/app-error";
import { MAX_TRACES_PER_ROOM } from "@/server/domain/tracing/trace-spans";
import { type AppEnv, requireCaller } from "@/server/http/access";
import { rejectInvalid } from "@/server/http/validation";
import { CreateRoomBody, MessagesQuery, SendMessageBody, UpdateRoomBody } from "@/shared/protocol";
import { ReactionBody } from "@/shared/reactions";
import { asideRoutes } from "./asides-routes";
import { fileRoutes } from "./files-routes";
import { memoryRoutes } from "./memory-routes";
import { overseerFor } from "./overseer-stub";
import { personaRoutes } from "./personas-routes";
import { toolRoutes } from "./tools-routes";

const TRACE_ID = /^[0-9a-f]{32}$/;
const TracesQuery = z.strictObject({
  limit: z.coerce
    .number({ error: "limit must be a number" })
    .int("limit must be a whole number")
    .min(1, "limit must be at least 1")
    .max(MAX_TRACES_PER_ROOM, `limit must be at most ${MAX_TRACES_PER_ROOM}`)
    .default(50)
});

/** The `:messageId` of a message route, refused before any lookup when it cannot be an id. */
function messageIdOf(c: Context<AppEnv>): string {
  const messageId = c.req.param("messageId") ?? "";
  if (messageId.length > 128) throw new AppError("bad_request:query", 400, "A message id has at most 128 characters.");
  return messageId;
}

export const roomRoutes = new Hono<AppEnv>()
  .get("/", async (c) => {
    const overseer = await overseerFor(c);
    return c.json({ rooms: unwrap(await overseer.listRooms(requireCaller(c))) });
  })
  .post("/", zValidator("json", CreateRoomBody, rejectInvalid("bad_request:body")), async (c) => {
    const overseer = await overseerFor(c);
    const room = unwrap(await overseer.createRoom(c.req.valid("json"), requireCaller(c)));
    return c.json(room, 201, { Location: `/api/rooms/${room.id}` });
  })
  .get("/:id", async (c) => {
    const overseer = await overseerFor(c);
    return c.json(unwrap(await overseer.getRoom(c.req.param("id"), requireCaller(c))));
  })
  .patch("/:id", zValidator("json", UpdateRoomBody, rejectInvalid("bad_request:body")), async (c) => {
    const overseer = await overseerFor(c);
    return c.json(unwrap(await overseer.updateRoom(c.req.param("id"), c.req.valid("json"), requireCaller(c))));
  })
  .delete("/:id", async (c) => {
    const overseer = await overseerFor(c);
    unwrap(await overseer.deleteRoom(c.req.param("id"), requireCaller(c)));
    return c.body(null, 204);
  })
  .route("/:id/personas", personaRoutes)
  .route("/:id", memoryRoutes)
  .route("/:id", asideRoutes)
  .route("/:id", toolRoutes)
  .route("/:id/files", fileRoutes)
  .get("/:id/messages", zValidator("query", MessagesQuery, rejectInvalid("bad_request:query")), async (c) => {
    const overseer = await overseerFor(c);
    return c.json(unwrap(await overseer.listMessages(c.req.param("id"), c.req.valid("query"), requireCaller(c))));
  })
  .get("/:id/traces", zValidator("query", TracesQuery, rejectInvalid("bad_request:query")), async (c) => {
    const overseer = await overseerFor(c);
    return c.json(unwrap(await overseer.listTraces(c.req.param("id"), c.req.valid("query").limit, requireCaller(c))));
  })
  .get("/:id/agents", async (c) => {
    const overseer = await overseerFor(c);
    return c.json(unwrap(await overseer.describeAgents(c.req.param("id"), requireCaller(c))));
  })
  .get("/:id/traces/:traceId", async (c) => {
    const traceId = c.req.param("traceId");
    if (!TRACE_ID.test(traceId)) {
      throw new AppError("bad_request:query", 400, "A trace id is 32 lowercase hexadecimal characters.");
    }
    const overseer = await overseerFor(c);
    return c.json(unwrap(await overseer.getTrace(c.req.param("id"), traceId, requireCaller(c))));
  })
  .get("/:id/messages/:messageId/versions", async (c) => {
    const messageId = messageIdOf(c);
    const overseer = await overseerFor(c);
    return c.json(unwrap(await overseer.messageVersions(c.req.param("id"), messageId, requireCaller(c))));
  })
  .post(
    "/:id/messages/:messageId/reactions",
    zValidator("json", ReactionBody, rejectInvalid("bad_request:body")),
    async (c) => {
      const call = { op: "react" as const, messageId: messageIdOf(c), emoji: c.req.valid("json").emoji };
      const overseer = await overseerFor(c);
      return c.json(unwrap(await overseer.messageCall(c.req.param("id"), call, requireCaller(c))));
    }
  )
  // The caller takes back their question while it waits for the AI (agents/room/room-queue.ts).
  .post("/:id/messages/:messageId/withdraw", async (c) => {
    const call = { op: "withdraw" as const, messageId: messageIdOf(c) };
    const overseer = await overseerFor(c);
    return c.json(unwrap(await overseer.messageCall(c.req.param("id"), call, requireCaller(c))));
  })
  .post("/:id/messages", zValidator("json", SendMessageBody, rejectInvalid("bad_request:body")), async (c) => {
    // When the Worker got it: the trace's root span (and its queue wait) starts here.
    const arrival = { traceparent: c.req.header("traceparent") ?? null, receivedAt: Date.now() };
    const overseer = await overseerFor(c);
    const id = c.req.param("id");
    if ((c.req.header("accept") ?? "").includes("text/event-stream")) {
      const events = unwrap(await overseer.streamMessage(id, c.req.valid("json"), requireCaller(c), arrival));
      return new Response(events, {
        headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache, no-transform" }
      });
    }
    const result = unwrap(await overseer.sendMessage(id, c.req.valid("json"), requireCaller(c), arrival));
    // Over budget is the caller's limit, not the provider failing.
    const failed = result.errorCode?.startsWith("budget_exceeded:") ? 429 : 502;
    return c.json(result, result.status === "error" ? failed : 200);
  });
