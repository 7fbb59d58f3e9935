/**
 * Catch me up (shared/catch-up.ts):
 *
 *   POST /api/rooms/:id/catch-up { from? }   a summary of what you have not read, for you alone
 *   (also under /api/workspaces/<workspace>/rooms/...)
 *
 * Anyone who can see the room may ask; it is rate-limited like a send, as
 * each one is a model call charged to the room.
 */
import { zValidator } from "@hono/zod-validator";
import { Hono } from "hono";
import { unwrap } from "@/server/app-error";
import { type AppEnv, requireCaller } from "@/server/http/access";
import { rejectInvalid } from "@/server/http/validation";
import { CatchUpBody } from "@/shared/catch-up";
import { overseerFor } from "./overseer-stub";

export const catchUpRoutes = new Hono<AppEnv>().post(
  "/:id/catch-up",
  zValidator("json", CatchUpBody, rejectInvalid("bad_request:body")),
  async (c) => {
    const overseer = await overseerFor(c);
    return c.json(unwrap(await overseer.catchUp(c.req.param("id"), c.req.valid("json"), requireCaller(c))));
  }
);
