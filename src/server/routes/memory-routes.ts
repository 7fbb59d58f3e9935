/**
 * REST for a room's memory, mounted under /rooms/:id: its pins and
 * summaries (`/memory`), and what an answer's context held
 * (`/messages/:messageId/context`). Validates with the shared schemas and
 * hands one call to the overseer, which gates the room and passes it on
 * with the caller (room/room-memory.ts does the work).
 */
import { zValidator } from "@hono/zod-validator";
import { type Context, Hono } from "hono";
import { AppError, unwrap } from "@/server/app-error";
import type { MemoryCall, MemoryCallResults } from "@/server/contracts/room-api";
import { type AppEnv, requireCaller } from "@/server/http/access";
import { rejectInvalid } from "@/server/http/validation";
import { CreatePinBody, UpdatePinBody } from "@/shared/memory";
import { overseerFor } from "./overseer-stub";

function checkedId(value: string | undefined, what: string): string {
  if (!value || value.length > 128) throw new AppError("bad_request:query", 400, `A ${what} id has 1-128 characters.`);
  return value;
}

async function call<K extends MemoryCall["op"]>(
  c: Context<AppEnv>,
  memoryCall: Extract<MemoryCall, { op: K }>
): Promise<MemoryCallResults[K]> {
  const overseer = await overseerFor(c);
  const roomId = c.req.param("id") ?? "";
  // The contract answers the union of every call's result; this call's is the one for its op.
  return unwrap(await overseer.roomMemory(roomId, memoryCall, requireCaller(c))) as MemoryCallResults[K];
}

export const memoryRoutes = new Hono<AppEnv>()
  .get("/memory", async (c) => c.json(await call(c, { op: "view" })))
  .post("/memory/pins", zValidator("json", CreatePinBody, rejectInvalid("bad_request:body")), async (c) => {
    const pin = await call(c, { op: "addPin", body: c.req.valid("json") });
    return c.json({ pin }, 201, { Location: `/api/rooms/${c.req.param("id")}/memory/pins/${pin.id}` });
  })
  .patch("/memory/pins/:pinId", zValidator("json", UpdatePinBody, rejectInvalid("bad_request:body")), async (c) => {
    const pinId = checkedId(c.req.param("pinId"), "pin");
    return c.json({ pin: await call(c, { op: "updatePin", pinId, body: c.req.valid("json") }) });
  })
  .delete("/memory/pins/:pinId", async (c) => {
    await call(c, { op: "deletePin", pinId: checkedId(c.req.param("pinId"), "pin") });
    return c.body(null, 204);
  })
  .post("/memory/summaries/rebuild", async (c) => c.json(await call(c, { op: "rebuild" }), 202))
  .get("/messages/:messageId/context", async (c) => {
    const messageId = checkedId(c.req.param("messageId"), "message");
    return c.json(await call(c, { op: "context", messageId }));
  });
