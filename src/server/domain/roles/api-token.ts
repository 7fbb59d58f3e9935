/**
 * Named API tokens: `rt.<workspace>.<id>.<secret>`. The secret is shown
 * once, when the token is made; the overseer keeps only the SHA-256 of the
 * whole token. The workspace and id travel in the clear so the Worker knows
 * whose overseer to ask and which row to compare, without a lookup table
 * anywhere else. Tokens are 192 random bits: a fast hash is enough (there
 * is nothing to brute-force that a slow hash would protect), and wrong
 * tokens are throttled per address like ACCESS_TOKEN.
 */
import { WORKSPACE_PATTERN } from "@/shared/constants";

const PREFIX = "rt";
const ID_PATTERN = /^[A-Za-z0-9_-]{12}$/;
const SECRET_PATTERN = /^[A-Za-z0-9_-]{32}$/;
/** Anything longer is not one of ours (prefix, workspace ≤ 64, id, secret, dots). */
const MAX_TOKEN_LENGTH = 2 + 1 + 64 + 1 + 12 + 1 + 32;

export interface ApiTokenParts {
  workspace: string;
  tokenId: string;
}

function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** A new token for `workspace`: its id (stored, shown in lists) and the whole secret token (shown once). */
export function newApiToken(
  workspace: string,
  random: (bytes: Uint8Array<ArrayBuffer>) => Uint8Array = (b) => crypto.getRandomValues(b)
): { tokenId: string; token: string } {
  const tokenId = base64url(random(new Uint8Array(9)));
  const secret = base64url(random(new Uint8Array(24)));
  return { tokenId, token: `${PREFIX}.${workspace}.${tokenId}.${secret}` };
}

/** Whether a bearer value is shaped like one of our named tokens (anything else is ACCESS_TOKEN's business). */
export function looksLikeApiToken(bearer: string): boolean {
  return bearer.startsWith(`${PREFIX}.`);
}

/** The workspace and id of a well-formed token; null for anything else. Says nothing about whether it is valid. */
export function parseApiToken(token: string): ApiTokenParts | null {
  if (token.length > MAX_TOKEN_LENGTH) return null;
  const parts = token.split(".");
  if (parts.length !== 4) return null;
  const [prefix, workspace, tokenId, secret] = parts as [string, string, string, string];
  if (prefix !== PREFIX || !WORKSPACE_PATTERN.test(workspace)) return null;
  if (!ID_PATTERN.test(tokenId) || !SECRET_PATTERN.test(secret)) return null;
  return { workspace, tokenId };
}

/** The identity id a token acts as: its own, never the creator's. */
export function tokenIdentityId(tokenId: string): string {
  return `token:${tokenId}`;
}

/** The token id of a token identity, or null for every other identity. */
export function tokenIdOf(identityId: string): string | null {
  return identityId.startsWith("token:") ? identityId.slice("token:".length) : null;
}

/** What the overseer stores and compares: the SHA-256 of the whole token, hex. */
export async function hashApiToken(token: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
