/**
 * Who may reach /api and /agents. With ACCESS_TOKEN set, every request needs
 * it, as `Authorization: Bearer <token>` or the cookie the sign-in page
 * sets; a WebSocket without it is refused before any agent wakes. WebSocket
 * upgrades from a foreign Origin are refused whatever the token, so another
 * site cannot ride a signed-in browser's cookie into a room.
 */
import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import type { Env } from "../env";
import { AppError } from "../errors";

export const SESSION_COOKIE = "rooms_token";

async function sha256(text: string): Promise<ArrayBuffer> {
  return crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
}

/** Constant-time: both sides are hashed to equal length first. */
export async function tokenMatches(given: string | undefined, expected: string): Promise<boolean> {
  if (!given) return false;
  const [a, b] = await Promise.all([sha256(given), sha256(expected)]);
  // A workerd extension of SubtleCrypto (absent from the DOM typings).
  return (crypto.subtle as SubtleCrypto & { timingSafeEqual(a: ArrayBuffer, b: ArrayBuffer): boolean }).timingSafeEqual(
    a,
    b
  );
}

export function presentedToken(c: Context): string | undefined {
  const header = c.req.header("authorization");
  const bearer = header?.match(/^Bearer\s+(.+)$/i)?.[1]?.trim();
  return bearer || getCookie(c, SESSION_COOKIE) || undefined;
}

export function isAllowedOrigin(
  origin: string,
  requestUrl: string,
  host: string | undefined,
  allowed: string | undefined
): boolean {
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  if (parsed.origin === new URL(requestUrl).origin) return true;
  if (host && parsed.host === host) return true;
  const list = (allowed ?? "")
    .split(",")
    .map((entry) => entry.trim().replace(/\/+$/, ""))
    .filter(Boolean);
  return list.includes(parsed.origin);
}

/** Paths under the guard that must stay open: signing in itself. */
const OPEN_PATHS = new Set(["/api/session"]);

export const accessGuard: MiddlewareHandler<{ Bindings: Env }> = async (c, next) => {
  if ((c.req.header("upgrade") ?? "").toLowerCase() === "websocket") {
    const origin = c.req.header("origin");
    // No Origin: not a browser (scripts, tests), which cannot carry a
    // victim's cookie anyway.
    if (origin && !isAllowedOrigin(origin, c.req.url, c.req.header("host"), c.env.ALLOWED_ORIGINS)) {
      throw new AppError("forbidden:origin", 403, `WebSocket connections from ${origin} are not allowed.`);
    }
  }
  const expected = c.env.ACCESS_TOKEN;
  if (expected && !OPEN_PATHS.has(new URL(c.req.url).pathname)) {
    if (!(await tokenMatches(presentedToken(c), expected))) {
      throw new AppError(
        "unauthorized:token",
        401,
        "This server needs an access token: sign in, or send Authorization: Bearer <token>."
      );
    }
  }
  await next();
};
