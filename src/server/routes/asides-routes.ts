/**
 * REST for private asides, mounted under /rooms/:id: a person's own
 * questions to the room's assistant that nobody else sees, until they share
 * one to the room (shared/asides.ts; room/room-asides.ts does the work).
 * Every route touches only the caller's asides: another person's aside id
 * answers 404, as an unknown one does.
 */
import { zValidator } from "@hono/zod-validator";
import { type Context, Hono } from "hono";
import { AppError, unwrap } from "@/server/app-error";
import type { MessageCall, MessageCallResults } from "@/server/contracts/room-api";
import { type AppEnv, requireCaller } from "@/server/http/access";
import { rejectInvalid } from "@/server/http/validation";
import { AsideBody } from "@/shared/asides";
import { overseerFor } from "./overseer-stub";

const ASIDE_ID = /^as_[0-9a-f-]{36}$/;

function asideIdOf(c: Context<AppEnv>): string {
  const asideId = c.req.param("asideId") ?? "";
  if (!ASIDE_ID.test(asideId))
    throw new AppError("not_found:aside", 404, `You have no aside "${asideId.slice(0, 64)}" in this room.`);
  return asideId;
}

async function call<K extends MessageCall["op"]>(
  c: Context<AppEnv>,
  messageCall: Extract<MessageCall, { op: K }>
): Promise<MessageCallResults[K]> {
  const overseer = await overseerFor(c);
  // The contract answers the union of every call's result; this call's is the one for its op.
  return unwrap(
    await overseer.messageCall(c.req.param("id") ?? "", messageCall, requireCaller(c))
  ) as MessageCallResults[K];
}

export const asideRoutes = new Hono<AppEnv>()
  .get("/asides", async (c) => c.json(await call(c, { op: "asides" })))
  .post("/asides", zValidator("json", AsideBody, rejectInvalid("bad_request:body")), async (c) => {
    const aside = await call(c, { op: "ask", text: c.req.valid("json").text });
    return c.json({ aside }, 201);
  })
  .post("/asides/:asideId/share", async (c) =>
    c.json({ aside: await call(c, { op: "shareAside", asideId: asideIdOf(c) }) })
  )
  .delete("/asides/:asideId", async (c) => {
    await call(c, { op: "deleteAside", asideId: asideIdOf(c) });
    return c.body(null, 204);
  });
