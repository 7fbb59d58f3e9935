/**
 * Who is calling, decided once per request for /api and /agents:
 *
 *   1. Cloudflare Access configured (CF_ACCESS_TEAM_DOMAIN + CF_ACCESS_AUD):
 *      the verified `Cf-Access-Jwt-Assertion` is the identity.
 *   2. Otherwise a valid session cookie (POST /api/session) is the identity,
 *      while its identity's session generation stands (signing out ends it)
 *      and under the identity's current name.
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
 * so the allowance is shared by every isolate; a right token always passes. Only `cf-connecting-ip` is
 * trusted for addresses. WebSocket upgrades and state-changing requests
 * (POST, PUT, PATCH, DELETE) from a foreign Origin are refused whatever the
 * credentials, so another site cannot ride a signed-in browser's cookie into
 * a room or into a change.
 */
import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { AppError, rateLimited } from "@/server/app-error";
import { accessConfig, remoteAccessKeys, verifyAccessAssertion } from "@/server/domain/access/access-jwt";
import { addressKey } from "@/server/domain/access/address-key";
import { type Caller, RESERVED_HEADER_PREFIXES } from "@/server/domain/access/caller";
import { rateScaleFrom, scaled } from "@/server/domain/access/rate-limit";
import { type SessionStanding, StandingCache, standingIdentity } from "@/server/domain/access/session-standing";
import { gateFingerprint, readSession, SESSION_COOKIE } from "@/server/domain/access/session-token";
import { hashApiToken, looksLikeApiToken, parseApiToken, tokenIdentityId } from "@/server/domain/roles/api-token";
import { configuredAdmin } from "@/server/domain/roles/workspace-roles";
import { isMcpCallbackRequest } from "@/server/domain/tools/mcp-oauth";
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
 * A wrong token from this address: 429 with Retry-After once the address
 * has used up its wrong attempts. Only wrong tokens are counted or refused:
 * the right one always passes (and costs no call here), so someone guessing
 * behind the same address (a shared NAT, an IPv6 /64) cannot lock out
 * whoever holds the token. The price: a throttled guesser still learns that
 * a guess was wrong (429 instead of 401), so what keeps ACCESS_TOKEN from
 * being guessed is its length (docs/limits.md); the throttle bounds what
 * wrong tokens cost (an API token's check asks its workspace's overseer).
 */
async function countWrongToken(env: Env, address: string): Promise<void> {
  const keeper = env.AuthKeeper.get(env.AuthKeeper.idFromName(`ip:${addressKey(address)}`));
  const admission = await keeper.wrongToken(scaled(RATE_LIMITS.tokenAttempts, rateScaleFrom(env.RATE_LIMIT_SCALE)));
  if (!admission.ok) throw rateLimited(admission.retryAfterMs, "wrong access tokens from your address");
}

/** Checks a presented access token against ACCESS_TOKEN; a wrong one counts against the address. */
export async function checkAccessToken(env: Env, address: string, given: string): Promise<boolean> {
  const expected = env.ACCESS_TOKEN;
  if (!expected) return true;
  if (await tokenMatches(given, expected)) return true;
  await countWrongToken(env, address);
  return false;
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

/** This isolate's view of identities' session standings (domain/access/session-standing.ts). */
const standings = new StandingCache();

function standingKeeper(env: Env, identityId: string) {
  return env.AuthKeeper.get(env.AuthKeeper.idFromName(`session:${identityId}`));
}

/** Ends every session of an identity (sign-out): this isolate refuses them at once, others within the cache's life. */
export async function revokeSessions(env: Env, identityId: string): Promise<void> {
  standings.set(identityId, await standingKeeper(env, identityId).revokeSessions());
}

/** A new name for every standing session of an identity; answers the generation a new cookie carries. */
export async function renameSessions(env: Env, identityId: string, name: string): Promise<SessionStanding> {
  const standing = await standingKeeper(env, identityId).renameSessions(name);
  standings.set(identityId, standing);
  return standing;
}

/** The session cookie's identity, if it is well signed and its generation still stands. */
async function sessionIdentity(c: Context<AppEnv>): Promise<Identity | null> {
  const token = getCookie(c, SESSION_COOKIE);
  if (!token) return null;
  const session = await readSession(token, await sessionSecret(c.env), await gateFingerprint(c.env.ACCESS_TOKEN));
  if (!session) return null;
  const id = session.identity.id;
  const standing = await standings.get(id, () => standingKeeper(c.env, id).sessionStanding());
  return standingIdentity(session, standing);
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
  if (!token || !parts) {
    await countWrongToken(env, address);
    return null;
  }
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

/** Methods that change something: a foreign page may not cause them (see `identify`). */
const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export const identify: MiddlewareHandler<AppEnv> = async (c, next) => {
  const origin = c.req.header("origin");
  // No Origin: not a browser (scripts, tests, bearer tokens), which cannot
  // carry a victim's cookie anyway. A foreign one: another site's page
  // riding the browser's cookie (a socket), or posting a form or a fetch at
  // us. The session cookie is SameSite=Strict, but an old browser, a
  // same-site subdomain or the sign-in route itself (no cookie needed)
  // would still let such a write through; refusing it here, before anyone
  // is identified, closes them all. Reads stay open: without CORS another
  // site cannot read their answers.
  if (origin && !isAllowedOrigin(origin, c.req.url, c.req.header("host"), c.env.ALLOWED_ORIGINS)) {
    if ((c.req.header("upgrade") ?? "").toLowerCase() === "websocket") {
      throw new AppError("forbidden:origin", 403, `WebSocket connections from ${origin} are not allowed.`);
    }
    if (STATE_CHANGING.has(c.req.method)) {
      throw new AppError("forbidden:origin", 403, `Changes requested from ${origin} are not allowed.`);
    }
  }
  const address = clientAddress(c.req.raw);
  const resolved = await resolveCaller(c, address);
  const pathname = new URL(c.req.url).pathname;
  if (
    !resolved &&
    !OPEN_PATHS.has(pathname) &&
    !pathname.startsWith(SHARE_VIEWER_PREFIX) &&
    !isMcpCallbackRequest(c.req.raw)
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
