/**
 * Search across the rooms of a workspace:
 *
 *   GET /api/search?q=&limit=                      the default workspace
 *   GET /api/workspaces/<workspace>/search?q=      any other workspace
 *
 * The overseer fans out to the rooms (see OverseerAgent.search).
 */
import { zValidator } from "@hono/zod-validator";
import { Hono } from "hono";
import { SearchQuery } from "../../shared/search";
import { type AppEnv, requireCaller } from "../http/access";
import { rejectInvalid } from "../http/validation";
import { overseerFor } from "./rooms";

export const searchRoutes = new Hono<AppEnv>().get(
  "/",
  zValidator("query", SearchQuery, rejectInvalid("bad_request:query")),
  async (c) => {
    requireCaller(c);
    const overseer = await overseerFor(c);
    return c.json(await overseer.search(c.req.valid("query")));
  }
);
