/**
 * A person's notifications in a workspace (overseer/notification-inbox.ts):
 *
 *   GET  /api/notifications                          my inbox, newest first, with the unread count
 *   POST /api/notifications/read { ids } | { all }   mark some, or all, read
 *   GET  /api/notifications/rooms/:roomId            whether I muted a room's mentions
 *   PUT  /api/notifications/rooms/:roomId { muted }  mute or unmute them (anyone who can see the room, for themselves)
 *   (each also under /api/workspaces/<workspace>/notifications/...)
 *
 * Each caller reads and changes only its own; a room it cannot see is the
 * unknown room's 404.
 */
import { zValidator } from "@hono/zod-validator";
import { Hono } from "hono";
import { unwrap } from "@/server/app-error";
import { type AppEnv, requireCaller } from "@/server/http/access";
import { rejectInvalid } from "@/server/http/validation";
import { MarkNotificationsReadBody, RoomNotificationsBody } from "@/shared/notifications";
import { overseerFor } from "./overseer-stub";

export const notificationRoutes = new Hono<AppEnv>()
  .get("/", async (c) => {
    const overseer = await overseerFor(c);
    return c.json(unwrap(await overseer.listNotifications(requireCaller(c))));
  })
  .post("/read", zValidator("json", MarkNotificationsReadBody, rejectInvalid("bad_request:body")), async (c) => {
    const overseer = await overseerFor(c);
    return c.json(unwrap(await overseer.markNotificationsRead(c.req.valid("json"), requireCaller(c))));
  })
  .get("/rooms/:roomId", async (c) => {
    const overseer = await overseerFor(c);
    return c.json(unwrap(await overseer.roomNotifications(c.req.param("roomId"), requireCaller(c))));
  })
  .put("/rooms/:roomId", zValidator("json", RoomNotificationsBody, rejectInvalid("bad_request:body")), async (c) => {
    const overseer = await overseerFor(c);
    const { muted } = c.req.valid("json");
    return c.json(unwrap(await overseer.roomNotifications(c.req.param("roomId"), requireCaller(c), muted)));
  });
