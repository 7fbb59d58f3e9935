/**
 * A workspace's named API tokens, as admins manage them: each acts as its
 * own identity with its creator's role or less. The secrets are made and
 * hashed by the Worker (routes/workspace-admin-routes.ts); this keeps the
 * hashes (api-tokens.ts) and asks access (workspace-access.ts) who may.
 */
import { AppError } from "@/server/app-error";
import type { Caller } from "@/server/domain/access/caller";
import { leastRole } from "@/server/domain/roles/workspace-roles";
import { authorOf } from "@/shared/identity";
import type { ApiTokenInfo } from "@/shared/members";
import type { Standing, WorkspaceAction, WorkspaceRole } from "@/shared/permissions";
import type { ApiTokenTable } from "./api-tokens";

/** The one check tokens need from access. */
export interface TokenRights {
  requireWorkspace(caller: Caller, action: WorkspaceAction): Standing;
}

export class WorkspaceTokens {
  constructor(
    private readonly table: ApiTokenTable,
    private readonly rights: TokenRights
  ) {}

  create(caller: Caller, input: { id: string; name: string; role: WorkspaceRole | undefined; tokenHash: string }) {
    const who = this.rights.requireWorkspace(caller, "workspace.tokens");
    const role = input.role ?? "member";
    if (leastRole(role, who.role) !== role) {
      throw new AppError("forbidden:not_admin", 403, "A token cannot have a higher role than the person making it.");
    }
    return this.table.create({
      id: input.id,
      name: input.name,
      role,
      tokenHash: input.tokenHash,
      createdBy: authorOf(caller.identity)
    });
  }

  list(caller: Caller): ApiTokenInfo[] {
    this.rights.requireWorkspace(caller, "workspace.tokens");
    return this.table.list();
  }

  revoke(caller: Caller, tokenId: string) {
    this.rights.requireWorkspace(caller, "workspace.tokens");
    if (!this.table.revoke(tokenId)) throw new AppError("not_found:token", 404, "No API token with that id.");
  }

  /** The Worker's check of a presented token; null for a wrong or revoked one. */
  verify(tokenId: string, tokenHash: string): ApiTokenInfo | null {
    return this.table.verify(tokenId, tokenHash);
  }
}
