/**
 * Signing in: `POST /api/session { name, token? }` issues a signed session
 * in an HttpOnly, SameSite=Strict cookie; `GET` answers who you are (401 when
 * no one); `PATCH { name }` renames you (same id; every cookie of yours that
 * still stands takes the new name); `DELETE` signs out, ending every cookie
 * of your identity (http/access.ts `revokeSessions`), not only clearing this one.
 * Behind Cloudflare Access there is nothing to sign in to: Access decides.
 * A sign-in that mints a new identity counts against its address
 * (RATE_LIMITS.sessionStarts; 429 with Retry-After over it).
 */
import { zValidator } from "@hono/zod-validator";
import { type Context, Hono } from "hono";
import { deleteCookie, setCookie } from "hono/cookie";
import { AppError } from "@/server/app-error";
import { accessConfig } from "@/server/domain/access/access-jwt";
import {
  gateFingerprint,
  issueSession,
  newUserId,
  SESSION_COOKIE,
  SESSION_LIFETIME_SECONDS
} from "@/server/domain/access/session-token";
import {
  type AppEnv,
  admitSessionStart,
  checkAccessToken,
  clientAddress,
  renameSessions,
  revokeSessions,
  sessionSecret
} from "@/server/http/access";
import { rejectInvalid } from "@/server/http/validation";
import { type Identity, RenameBody, type SessionInfo, SignInBody, type SignInOptions } from "@/shared/identity";

function signInOptions(c: Context<AppEnv>): SignInOptions {
  return { tokenRequired: Boolean(c.env.ACCESS_TOKEN), access: Boolean(accessConfig(c.env)) };
}

async function startSession(
  c: Context<AppEnv>,
  user: { id: string; name: string; generation?: number }
): Promise<SessionInfo> {
  const token = await issueSession(user, await sessionSecret(c.env), await gateFingerprint(c.env.ACCESS_TOKEN));
  setCookie(c, SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: "Strict",
    path: "/",
    secure: new URL(c.req.url).protocol === "https:",
    maxAge: SESSION_LIFETIME_SECONDS
  });
  return { user: { id: user.id, name: user.name, kind: "user" } };
}

function refuseUnderAccess(c: Context<AppEnv>) {
  if (accessConfig(c.env)) {
    throw new AppError(
      "bad_request:body",
      400,
      "This server is behind Cloudflare Access: your identity and name come from Access."
    );
  }
}

export const sessionRoutes = new Hono<AppEnv>()
  .get("/", (c) => {
    const caller = c.get("caller");
    const source = c.get("callerSource");
    if (!caller || source === "anonymous") {
      return c.json(
        {
          error: { code: "unauthorized:session" as const, message: "You are not signed in." },
          signIn: signInOptions(c)
        },
        401
      );
    }
    return c.json({ user: caller.identity, signIn: signInOptions(c) });
  })
  .post("/", zValidator("json", SignInBody, rejectInvalid("bad_request:body")), async (c) => {
    refuseUnderAccess(c);
    const { name, token } = c.req.valid("json");
    if (c.env.ACCESS_TOKEN) {
      if (!token || !(await checkAccessToken(c.env, clientAddress(c.req.raw), token))) {
        throw new AppError("unauthorized:token", 401, "That access token is not right.");
      }
    }
    // Signing in again while signed in keeps who you are (and your messages):
    // a rename, as PATCH.
    const current = c.get("callerSource") === "session" ? c.get("caller")?.identity : undefined;
    if (current) {
      const { generation } = await renameSessions(c.env, current.id, name);
      return c.json(await startSession(c, { id: current.id, name, generation }));
    }
    // Only minting a new identity counts against the address.
    await admitSessionStart(c.env, clientAddress(c.req.raw));
    return c.json(await startSession(c, { id: newUserId(), name }));
  })
  .patch("/", zValidator("json", RenameBody, rejectInvalid("bad_request:body")), async (c) => {
    refuseUnderAccess(c);
    const current: Identity | undefined = c.get("callerSource") === "session" ? c.get("caller")?.identity : undefined;
    if (!current)
      throw new AppError("unauthorized:session", 401, "Sign in first; only a signed-in user has a name to change.");
    const { name } = c.req.valid("json");
    const { generation } = await renameSessions(c.env, current.id, name);
    return c.json(await startSession(c, { id: current.id, name, generation }));
  })
  .delete("/", async (c) => {
    const caller = c.get("caller");
    if (c.get("callerSource") === "session" && caller) await revokeSessions(c.env, caller.identity.id);
    deleteCookie(c, SESSION_COOKIE, { path: "/", secure: new URL(c.req.url).protocol === "https:" });
    // The cookie of older versions, which held the access token itself.
    deleteCookie(c, "rooms_token", { path: "/" });
    return c.body(null, 204);
  });
