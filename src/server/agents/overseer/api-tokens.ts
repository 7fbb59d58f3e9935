/**
 * Named API tokens of a workspace, in the overseer's SQLite: one row per
 * token with the SHA-256 of the token (never the token; domain/roles/api-token.ts),
 * its name, its role and who made it. A token acts as its own identity
 * (`token:<id>`), with its role, never more than its creator has now.
 * Revoking deletes the row: the very next request with it is refused.
 */

import { AppError } from "@/server/app-error";
import { tokenIdentityId } from "@/server/domain/roles/api-token";
import type { MessageAuthor } from "@/shared/identity";
import { type ApiTokenInfo, MAX_API_TOKENS } from "@/shared/members";
import type { WorkspaceRole } from "@/shared/permissions";

type TokenRow = {
  id: string;
  name: string;
  role: string;
  token_hash: string;
  created_at: number;
  /** JSON of the MessageAuthor who made it. */
  created_by: string;
  creator_id: string;
  last_used_at: number | null;
};

/** Last use is kept to the minute: a busy script costs one write a minute, not one per request. */
const LAST_USE_RESOLUTION_MS = 60_000;

const roleOf = (value: string): WorkspaceRole => (value === "admin" ? "admin" : "member");

function authorOfRow(row: TokenRow): MessageAuthor {
  try {
    return JSON.parse(row.created_by) as MessageAuthor;
  } catch {
    return { id: row.creator_id, name: "Unknown" };
  }
}

const toInfo = (row: TokenRow): ApiTokenInfo => ({
  id: row.id,
  name: row.name,
  role: roleOf(row.role),
  identityId: tokenIdentityId(row.id),
  createdAt: row.created_at,
  createdBy: authorOfRow(row),
  lastUsedAt: row.last_used_at
});

export class ApiTokenTable {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS api_tokens (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      role TEXT NOT NULL,
      token_hash TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      created_by TEXT NOT NULL,
      creator_id TEXT NOT NULL,
      last_used_at INTEGER
    )`);
  }

  create(
    input: { id: string; name: string; role: WorkspaceRole; tokenHash: string; createdBy: MessageAuthor },
    now = Date.now()
  ): ApiTokenInfo {
    const count = this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM api_tokens").one().n;
    if (count >= MAX_API_TOKENS) {
      throw new AppError(
        "conflict:token_limit",
        409,
        `This workspace has ${MAX_API_TOKENS} API tokens, the most it keeps. Revoke one first.`
      );
    }
    this.sql.exec(
      `INSERT INTO api_tokens (id, name, role, token_hash, created_at, created_by, creator_id, last_used_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, NULL)`,
      input.id,
      input.name,
      input.role,
      input.tokenHash,
      now,
      JSON.stringify(input.createdBy),
      input.createdBy.id
    );
    return {
      id: input.id,
      name: input.name,
      role: input.role,
      identityId: tokenIdentityId(input.id),
      createdAt: now,
      createdBy: input.createdBy,
      lastUsedAt: null
    };
  }

  /** Newest first. */
  list(): ApiTokenInfo[] {
    return this.sql.exec<TokenRow>("SELECT * FROM api_tokens ORDER BY created_at DESC, id").toArray().map(toInfo);
  }

  /** The token's row when the hash matches (and its use recorded); null for a revoked or wrong token. */
  verify(tokenId: string, tokenHash: string, now = Date.now()): ApiTokenInfo | null {
    const row = this.sql.exec<TokenRow>("SELECT * FROM api_tokens WHERE id = ?", tokenId).toArray()[0];
    if (!row || !equalHex(row.token_hash, tokenHash)) return null;
    const minute = Math.floor(now / LAST_USE_RESOLUTION_MS) * LAST_USE_RESOLUTION_MS;
    if (row.last_used_at !== minute) {
      this.sql.exec("UPDATE api_tokens SET last_used_at = ? WHERE id = ?", minute, tokenId);
      row.last_used_at = minute;
    }
    return toInfo(row);
  }

  /** A token's role and its creator's id; null once revoked. */
  grant(tokenId: string): { role: WorkspaceRole; creatorId: string } | null {
    const row = this.sql
      .exec<{ role: string; creator_id: string }>("SELECT role, creator_id FROM api_tokens WHERE id = ?", tokenId)
      .toArray()[0];
    return row ? { role: roleOf(row.role), creatorId: row.creator_id } : null;
  }

  /** Whether there was such a token. */
  revoke(tokenId: string): boolean {
    return this.sql.exec("DELETE FROM api_tokens WHERE id = ?", tokenId).rowsWritten > 0;
  }
}

/** Compares two hex digests without stopping at the first difference. */
function equalHex(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
