/**
 * Cloudflare Access: behind Access, every request carries a
 * `Cf-Access-Jwt-Assertion` signed by the team's keys. We verify it with
 * `jose` (signature, issuer, audience, expiry) and take the identity from it.
 *
 * The key set is a parameter: production passes the team's remote JWKS
 * (`https://<team>/cdn-cgi/access/certs`, derived from configuration only,
 * never from the token), tests pass a local key set. Nothing in a request
 * can choose the keys.
 */
import { createRemoteJWKSet, type JWTVerifyGetKey, jwtVerify } from "jose";
import { MAX_AUTHOR_LENGTH } from "@/shared/constants";
import { type Identity, normalizeDisplayName } from "@/shared/identity";

export interface AccessConfig {
  /** e.g. "myteam.cloudflareaccess.com" (a scheme is allowed and ignored). */
  teamDomain: string;
  /** The application's audience tag. */
  audience: string;
}

export function accessConfig(env: { CF_ACCESS_TEAM_DOMAIN?: string; CF_ACCESS_AUD?: string }): AccessConfig | null {
  const teamDomain = env.CF_ACCESS_TEAM_DOMAIN?.trim();
  const audience = env.CF_ACCESS_AUD?.trim();
  if (!teamDomain || !audience) return null;
  return { teamDomain, audience };
}

function accessIssuer(teamDomain: string): string {
  const host = teamDomain.replace(/^https?:\/\//i, "").replace(/\/+$/, "");
  return `https://${host}`;
}

const remoteKeySets = new Map<string, JWTVerifyGetKey>();

/** The team's published keys; jose caches and refreshes them. */
export function remoteAccessKeys(teamDomain: string): JWTVerifyGetKey {
  const issuer = accessIssuer(teamDomain);
  let keys = remoteKeySets.get(issuer);
  if (!keys) {
    keys = createRemoteJWKSet(new URL(`${issuer}/cdn-cgi/access/certs`));
    remoteKeySets.set(issuer, keys);
  }
  return keys;
}

/** A display name from the email's local part ("ann.lee@x.com" → "ann.lee"). */
export function nameFromEmail(email: string): string {
  const local = email.split("@")[0] ?? "";
  return normalizeDisplayName(local).slice(0, MAX_AUTHOR_LENGTH) || "Access user";
}

/** What a verified assertion says: the identity, and what decides whether it is an admin (workspace-roles.ts). */
export interface AccessAssertion {
  identity: Identity;
  email: string | null;
  /** The `groups` claim (or `custom.groups`), when the identity provider passes group names through. */
  groups: string[];
}

const MAX_GROUPS = 64;

function groupsOf(payload: Record<string, unknown>): string[] {
  const custom = payload.custom as Record<string, unknown> | undefined;
  const raw = Array.isArray(payload.groups) ? payload.groups : Array.isArray(custom?.groups) ? custom.groups : [];
  return raw.filter((g): g is string => typeof g === "string" && g.length <= 256).slice(0, MAX_GROUPS);
}

/** The verified assertion, or null when it is missing, forged, expired or for another app. */
export async function verifyAccessAssertion(
  assertion: string | undefined,
  config: AccessConfig,
  keys: JWTVerifyGetKey
): Promise<AccessAssertion | null> {
  if (!assertion || assertion.length > 16_384) return null;
  try {
    const { payload } = await jwtVerify(assertion, keys, {
      issuer: accessIssuer(config.teamDomain),
      audience: config.audience,
      algorithms: ["RS256", "ES256", "EdDSA", "PS256"],
      requiredClaims: ["exp", "sub"]
    });
    const email = typeof payload.email === "string" ? payload.email : null;
    // Service tokens carry a common_name instead of an email.
    const commonName = typeof payload.common_name === "string" ? payload.common_name : null;
    const subject = payload.sub || commonName;
    if (!subject) return null;
    const name = email ? nameFromEmail(email) : (commonName ?? "Service").slice(0, MAX_AUTHOR_LENGTH);
    return {
      identity: { id: `access:${subject}`.slice(0, 128), name, kind: "access" },
      email,
      groups: groupsOf(payload)
    };
  } catch {
    return null;
  }
}
