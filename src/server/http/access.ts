/**
 * Who is calling, decided once per request for /api and /agents:
 *
 *   1. Cloudflare Access configured (CF_ACCESS_TEAM_DOMAIN + CF_ACCESS_AUD):
 *      the verified `Cf-Access-Jwt-Assertion` is the identity.
 *   2. Otherwise a valid session cookie (POST /api/session) is the identity.
 *   3. `Authorization: Bearer rt.<workspace>.…`, a named API token
 *      (routes/workspace-admin-routes.ts), is that token's own identity, in its workspace only;
 *      its workspace's overseer holds the token's hash and says whether it is good.
 *   4. `Authorization: Bearer <ACCESS_TOKEN>` is the bootstrap admin (the API identity).
 *   5. No token configured: anyone else is the anonymous API identity.
 *      With a token configured, anyone else gets 401 (sign-in stays open, and
 *      so does a room's MCP OAuth callback, whose credential is its state:
 *      domain/tools/mcp-oauth.ts).
 *
 * The caller also carries `admin` when the server's configuration makes it
 * an admin (ACCESS_TOKEN, ADMINS, ACCESS_ADMIN_GROUP; domain/roles/workspace-roles.ts).
 *
 * Wrong tokens are throttled per address in a Durable Object (AuthKeeper),
 * so the allowance is shared by every isolate. Only `cf-connecting-ip` is
 * trusted for addresses. WebSocket upgrades from a foreign Origin are
 * refused whatever the credentials, so another site cannot ride a signed-in
 * browser's cookie into a room.
 */
import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { AppError, rateLimited } from "@/server/app-error";
import { accessConfig, remoteAccessKeys, verifyAccessAssertion } from "@/server/domain/access/access-jwt";
import { addressKey } from "@/server/domain/access/address-key";
import { type Caller, RESERVED_HEADER_PREFIXES } from "@/server/domain/access/caller";
import { rateScaleFrom, scaled } from "@/server/domain/access/rate-limit";
import { gateFingerprint, readSession, SESSION_COOKIE } from "@/server/domain/access/session-token";
import { hashApiToken, looksLikeApiToken, parseApiToken, tokenIdentityId } from "@/server/domain/roles/api-token";
import { configuredAdmin } from "@/server/domain/roles/workspace-roles";
import { isMcpCallbackPath } from "@/server/domain/tools/mcp-oauth";
import type { Env } from "@/server/env";
import { RATE_LIMITS } from "@/shared/constants";
import { API_IDENTITY, type Identity } from "@/shared/identity";

/** How the caller was identified. */
type CallerSource = "access" | "session" | "token" | "api_token" | "anonymous";

export type AppEnv = {
  Bindings: Env;
  Variables: {
    /** Null only on the sign-in route, for someone not signed in on a guarded server. */
    caller: Caller | null;
    callerSource: CallerSource | null;
  };
};

/** Paths that answer without an identity: signing in itself. */
const OPEN_PATHS = new Set(["/api/session"]);
/** A share link's viewer: the signed link is the credential (routes/shares-routes.ts checks it). */
const SHARE_VIEWER_PREFIX = "/api/share/";

async function sha256(text: string): Promise<ArrayBuffer> {
  return crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
}

/** Constant-time: both sides are hashed to equal length first. */
async function tokenMatches(given: string | undefined, expected: string): Promise<boolean> {
  if (!given) return false;
  const [a, b] = await Promise.all([sha256(given), sha256(expected)]);
  // A workerd extension of SubtleCrypto (absent from the DOM typings).
  return (crypto.subtle as SubtleCrypto & { timingSafeEqual(a: ArrayBuffer, b: ArrayBuffer): boolean }).timingSafeEqual(
    a,
    b
  );
}

function bearerToken(c: Context): string | undefined {
  const header = c.req.header("authorization");
  return header?.match(/^Bearer\s+(.+)$/i)?.[1]?.trim() || undefined;
}

/** The client's address: Cloudflare's `cf-connecting-ip` only; anything else a client sends is ignored. */
export function clientAddress(request: Request): string {
  return request.headers.get("cf-connecting-ip")?.trim().slice(0, 64) || "local";
}

/** The request's headers minus every `x-rooms-*` / `x-agents-*` a client sent. */
export function withoutReservedHeaders(headers: Headers): Headers {
  const clean = new Headers();
  for (const [name, value] of headers) {
    if (RESERVED_HEADER_PREFIXES.some((prefix) => name.toLowerCase().startsWith(prefix))) continue;
    clean.append(name, value);
  }
  return clean;
}

let generatedSecret: Promise<string> | null = null;

/** SESSION_SECRET, or the key AuthKeeper generated and keeps (see auth-keeper.ts). */
export function sessionSecret(env: Env): Promise<string> {
  if (env.SESSION_SECRET) return Promise.resolve(env.SESSION_SECRET);
  generatedSecret ??= env.AuthKeeper.get(env.AuthKeeper.idFromName("secret"))
    .sessionSecret()
    .catch((error: unknown) => {
      generatedSecret = null;
      throw error;
    });
  return generatedSecret;
}

/**
 * Checks a presented access token against ACCESS_TOKEN, throttled per
 * address: 429 with Retry-After once an address has used up its wrong
 * attempts, even for a right token, so guessing learns nothing.
 */
export async function checkAccessToken(env: Env, address: string, given: string): Promise<boolean> {
  const expected = env.ACCESS_TOKEN;
  if (!expected) return true;
  const correct = await tokenMatches(given, expected);
  const keeper = env.AuthKeeper.get(env.AuthKeeper.idFromName(`ip:${addressKey(address)}`));
  const admission = await keeper.tokenAttempt(
    correct,
    scaled(RATE_LIMITS.tokenAttempts, rateScaleFrom(env.RATE_LIMIT_SCALE))
  );
  if (!admission.ok) throw rateLimited(admission.retryAfterMs, "wrong access tokens from your address");
  return correct;
}

/**
 * One new session (a newly minted identity) from this address: 429 with
 * Retry-After once the address has used up its allowance (IPv6 by /64).
 * Every sign-in in open mode mints an identity, so caps per identity mean
 * little unless minting them is limited per address. Off (no call at all)
 * when RATE_LIMIT_SCALE is 0.
 */
export async function admitSessionStart(env: Env, address: string): Promise<void> {
  const limit = scaled(RATE_LIMITS.sessionStarts, rateScaleFrom(env.RATE_LIMIT_SCALE));
  if (limit.burst <= 0 || limit.perMinute <= 0) return;
  const keeper = env.AuthKeeper.get(env.AuthKeeper.idFromName(`ip:${addressKey(address)}`));
  const admission = await keeper.sessionStart(limit);
  if (!admission.ok) throw rateLimited(admission.retryAfterMs, "new sign-ins from your address");
}

async function sessionIdentity(c: Context<AppEnv>): Promise<Identity | null> {
  const token = getCookie(c, SESSION_COOKIE);
  if (!token) return null;
  return readSession(token, await sessionSecret(c.env), await gateFingerprint(c.env.ACCESS_TOKEN));
}

function isAllowedOrigin(
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

/**
 * A named API token: its workspace's overseer compares the hash (and
 * records the use). Wrong ones count against the address like wrong
 * ACCESS_TOKENs; a right one is that token's own identity.
 */
async function apiTokenCaller(env: Env, address: string, bearer: string): Promise<Omit<Caller, "address"> | null> {
  const parts = parseApiToken(bearer);
  const overseer = parts ? env.OverseerAgent.get(env.OverseerAgent.idFromName(parts.workspace)) : null;
  const token = parts && overseer ? await overseer.verifyApiToken(parts.tokenId, await hashApiToken(bearer)) : null;
  const keeper = env.AuthKeeper.get(env.AuthKeeper.idFromName(`ip:${addressKey(address)}`));
  const admission = await keeper.tokenAttempt(
    token !== null,
    scaled(RATE_LIMITS.tokenAttempts, rateScaleFrom(env.RATE_LIMIT_SCALE))
  );
  if (!admission.ok) throw rateLimited(admission.retryAfterMs, "wrong access tokens from your address");
  if (!token || !parts) return null;
  return {
    identity: { id: tokenIdentityId(token.id), name: token.name, kind: "api" },
    tokenWorkspace: parts.workspace
  };
}

type Resolved = [Omit<Caller, "address">, CallerSource];

async function resolveCaller(c: Context<AppEnv>, address: string): Promise<Resolved | null> {
  const access = accessConfig(c.env);
  const admin = (evidence: Parameters<typeof configuredAdmin>[0]) =>
    configuredAdmin(evidence, c.env) ? { admin: true as const } : {};
  if (access) {
    const verified = await verifyAccessAssertion(
      c.req.header("cf-access-jwt-assertion"),
      access,
      remoteAccessKeys(access.teamDomain)
    );
    if (verified) {
      const { identity, email, groups } = verified;
      return [{ identity, ...admin({ identityId: identity.id, email, groups, bootstrap: false }) }, "access"];
    }
  } else {
    const identity = await sessionIdentity(c);
    if (identity) return [{ identity, ...admin({ identityId: identity.id, bootstrap: false }) }, "session"];
  }
  const bearer = bearerToken(c);
  if (bearer && looksLikeApiToken(bearer)) {
    const caller = await apiTokenCaller(c.env, address, bearer);
    if (caller) return [caller, "api_token"];
    throw new AppError("unauthorized:token", 401, "This API token is not valid: it was revoked, or mistyped.");
  }
  if (bearer && c.env.ACCESS_TOKEN) {
    if (await checkAccessToken(c.env, address, bearer)) return [{ identity: API_IDENTITY, admin: true }, "token"];
    return null;
  }
  if (!access && !c.env.ACCESS_TOKEN) return [{ identity: API_IDENTITY }, "anonymous"];
  return null;
}

export const identify: MiddlewareHandler<AppEnv> = async (c, next) => {
  if ((c.req.header("upgrade") ?? "").toLowerCase() === "websocket") {
    const origin = c.req.header("origin");
    // No Origin: not a browser (scripts, tests), which cannot carry a
    // victim's cookie anyway.
    if (origin && !isAllowedOrigin(origin, c.req.url, c.req.header("host"), c.env.ALLOWED_ORIGINS)) {
      throw new AppError("forbidden:origin", 403, `WebSocket connections from ${origin} are not allowed.`);
    }
  }
  const address = clientAddress(c.req.raw);
  const resolved = await resolveCaller(c, address);
  const pathname = new URL(c.req.url).pathname;
  if (
    !resolved &&
    !OPEN_PATHS.has(pathname) &&
    !pathname.startsWith(SHARE_VIEWER_PREFIX) &&
    !(c.req.method === "GET" && isMcpCallbackPath(pathname))
  ) {
    if (accessConfig(c.env)) {
      throw new AppError(
        "unauthorized:access",
        401,
        "This server is behind Cloudflare Access: sign in through Access."
      );
    }
    throw new AppError(
      "unauthorized:token",
      401,
      "This server needs an access token: sign in, or send Authorization: Bearer <token>."
    );
  }
  c.set("caller", resolved ? { ...resolved[0], address } : null);
  c.set("callerSource", resolved ? resolved[1] : null);
  await next();
};

/**
 * `identify` for /mcp: only a named API token (`Authorization: Bearer rt.…`)
 * opens it, whatever else the request carries (a session cookie, the
 * bootstrap ACCESS_TOKEN, an open server): an MCP client acts as one named
 * member of one workspace, the token's (routes/mcp-endpoint-routes.ts).
 */
export const identifyApiToken: MiddlewareHandler<AppEnv> = async (c, next) => {
  const bearer = bearerToken(c);
  if (!bearer || !looksLikeApiToken(bearer)) {
    throw new AppError(
      "unauthorized:token",
      401,
      "The MCP endpoint needs a personal API token: send Authorization: Bearer rt.<workspace>.<id>.<secret> (a workspace admin makes one: POST /api/tokens)."
    );
  }
  const address = clientAddress(c.req.raw);
  const caller = await apiTokenCaller(c.env, address, bearer);
  if (!caller)
    throw new AppError("unauthorized:token", 401, "This API token is not valid: it was revoked, or mistyped.");
  c.set("caller", { ...caller, address });
  c.set("callerSource", "api_token");
  await next();
};

/** The caller of a route that `identify` guards (every route but sign-in). */
export function requireCaller(c: Context<AppEnv>): Caller {
  const caller = c.get("caller");
  if (!caller) throw new AppError("unauthorized:session", 401, "Sign in first.");
  return caller;
}
