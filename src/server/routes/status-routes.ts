/**
 * A workspace's status and settings, answered by its overseer from what
 * rooms last reported: no room is woken to answer.
 *
 *   GET   /api/status                           the default workspace
 *   GET   /api/workspaces/<workspace>/status
 *   GET   /api/workspaces/<workspace>/settings  { dailyTokenBudget }
 *   PATCH /api/workspaces/<workspace>/settings
 */
import { zValidator } from "@hono/zod-validator";
import { Hono } from "hono";
import { unwrap } from "@/server/app-error";
import { type AppEnv, requireCaller } from "@/server/http/access";
import { rejectInvalid } from "@/server/http/validation";
import { UpdateWorkspaceSettingsBody } from "@/shared/budgets";
import { overseerFor } from "./overseer-stub";

export const statusRoutes = new Hono<AppEnv>().get("/", async (c) => {
  const overseer = await overseerFor(c);
  return c.json(unwrap(await overseer.workspaceStatus(requireCaller(c))));
});

export const workspaceSettingsRoutes = new Hono<AppEnv>()
  .get("/", async (c) => {
    const overseer = await overseerFor(c);
    return c.json(unwrap(await overseer.workspaceSettings(requireCaller(c))));
  })
  .patch("/", zValidator("json", UpdateWorkspaceSettingsBody, rejectInvalid("bad_request:body")), async (c) => {
    const overseer = await overseerFor(c);
    return c.json(unwrap(await overseer.updateWorkspaceSettings(c.req.valid("json"), requireCaller(c))));
  });
