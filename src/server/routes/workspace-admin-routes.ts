/**
 * Who is who in a workspace, over REST (overseer/workspace-access.ts decides):
 *
 *   GET    /api/me                         the caller here: identity, role, what it may do
 *   GET    /api/people                     everyone who has used the workspace (admins)
 *   PATCH  /api/people/:userId { role }    make someone an admin or a member (admins)
 *   GET    /api/tokens                     named API tokens (admins)
 *   POST   /api/tokens { name, role? }     a new token → its secret, shown this once (admins)
 *   DELETE /api/tokens/:tokenId            revoke: refused from the next request on
 *   (each also under /api/workspaces/<workspace>/...)
 *
 * A token's secret is made and hashed here; the overseer keeps only the hash.
 */
import { zValidator } from "@hono/zod-validator";
import { type Context, Hono } from "hono";
import { unwrap } from "@/server/app-error";
import { hashApiToken, newApiToken } from "@/server/domain/roles/api-token";
import { type AppEnv, requireCaller } from "@/server/http/access";
import { rejectInvalid } from "@/server/http/validation";
import { DEFAULT_WORKSPACE } from "@/shared/constants";
import {
  type ApiTokenList,
  CreateApiTokenBody,
  type CreatedApiToken,
  type PeopleList,
  SetRoleBody
} from "@/shared/members";
import { overseerFor } from "./overseer-stub";

const workspaceOf = (c: Context<AppEnv>) => c.req.param("workspace") ?? DEFAULT_WORKSPACE;

export const meRoutes = new Hono<AppEnv>().get("/", async (c) => {
  const overseer = await overseerFor(c);
  return c.json(unwrap(await overseer.me(requireCaller(c))));
});

export const peopleRoutes = new Hono<AppEnv>()
  .get("/", async (c) => {
    const overseer = await overseerFor(c);
    const list: PeopleList = { people: unwrap(await overseer.listPeople(requireCaller(c))) };
    return c.json(list);
  })
  .patch("/:userId", zValidator("json", SetRoleBody, rejectInvalid("bad_request:body")), async (c) => {
    const overseer = await overseerFor(c);
    const people = unwrap(await overseer.setRole(c.req.param("userId"), c.req.valid("json").role, requireCaller(c)));
    return c.json({ people } satisfies PeopleList);
  });

export const tokenRoutes = new Hono<AppEnv>()
  .get("/", async (c) => {
    const overseer = await overseerFor(c);
    const list: ApiTokenList = { tokens: unwrap(await overseer.listApiTokens(requireCaller(c))) };
    return c.json(list);
  })
  .post("/", zValidator("json", CreateApiTokenBody, rejectInvalid("bad_request:body")), async (c) => {
    const caller = requireCaller(c);
    const overseer = await overseerFor(c);
    const { name, role } = c.req.valid("json");
    const { tokenId, token } = newApiToken(workspaceOf(c));
    const info = unwrap(
      await overseer.createApiToken({ id: tokenId, name, role, tokenHash: await hashApiToken(token) }, caller)
    );
    const created: CreatedApiToken = { ...info, token };
    c.header("cache-control", "no-store");
    return c.json(created, 201);
  })
  .delete("/:tokenId", async (c) => {
    const overseer = await overseerFor(c);
    unwrap(await overseer.revokeApiToken(c.req.param("tokenId"), requireCaller(c)));
    return c.body(null, 204);
  });
