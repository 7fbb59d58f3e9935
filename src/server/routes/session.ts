/**
 * The sign-in page's API: exchange the access token for an HttpOnly cookie,
 * which browsers then send on every request and WebSocket upgrade.
 */
import { zValidator } from "@hono/zod-validator";
import { Hono } from "hono";
import { deleteCookie, setCookie } from "hono/cookie";
import { z } from "zod";
import type { Env } from "../env";
import { AppError } from "../errors";
import { presentedToken, SESSION_COOKIE, tokenMatches } from "../http/access";
import { rejectInvalid } from "../http/validation";

const SignIn = z.strictObject({ token: z.string().min(1, "token must not be empty").max(512) });

export const sessionRoutes = new Hono<{ Bindings: Env }>()
  .get("/", async (c) => {
    const expected = c.env.ACCESS_TOKEN;
    const authenticated = !expected || (await tokenMatches(presentedToken(c), expected));
    return c.json({ authRequired: Boolean(expected), authenticated });
  })
  .post("/", zValidator("json", SignIn, rejectInvalid("bad_request:body")), async (c) => {
    const expected = c.env.ACCESS_TOKEN;
    const { token } = c.req.valid("json");
    if (expected && !(await tokenMatches(token, expected))) {
      throw new AppError("unauthorized:token", 401, "That access token is not right.");
    }
    setCookie(c, SESSION_COOKIE, token, {
      httpOnly: true,
      sameSite: "Strict",
      path: "/",
      secure: new URL(c.req.url).protocol === "https:",
      maxAge: 60 * 60 * 24 * 30
    });
    return c.body(null, 204);
  })
  .delete("/", (c) => {
    deleteCookie(c, SESSION_COOKIE, { path: "/" });
    return c.body(null, 204);
  });
