/**
 * Search across the rooms of a workspace:
 *
 *   GET /api/search?q=&limit=                      the default workspace
 *   GET /api/workspaces/<workspace>/search?q=      any other workspace
 *   ...&room=<id>                                   one room only (find in room)
 *
 * The overseer fans out to the rooms (see OverseerAgent.search).
 */
import { zValidator } from "@hono/zod-validator";
import { Hono } from "hono";
import { roomNotFound, unwrap } from "@/server/app-error";
import { type AppEnv, requireCaller } from "@/server/http/access";
import { rejectInvalid } from "@/server/http/validation";
import { SearchQuery } from "@/shared/search";
import { overseerFor } from "./overseer-stub";

export const searchRoutes = new Hono<AppEnv>().get(
  "/",
  zValidator("query", SearchQuery, rejectInvalid("bad_request:query")),
  async (c) => {
    const caller = requireCaller(c);
    const overseer = await overseerFor(c);
    const query = c.req.valid("query");
    const found = unwrap(await overseer.search(query, caller));
    // Find in room: a room that is not there is an error, not "no matches".
    if (query.room && found.roomsSearched === 0) throw roomNotFound(query.room);
    return c.json(found);
  }
);
