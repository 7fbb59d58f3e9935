/**
 * The overseer's RPC surface for who is in a workspace and who can see a
 * room: members, invitations, people and roles, API tokens, share links,
 * and the MCP servers an admin gives every room.
 * Each method asks the workspace's access rules (overseer/workspace-access.ts)
 * or the share links (overseer/share-links.ts) and answers; OverseerAgent
 * (overseer-agent.ts) extends this with the rest of the RPC surface, and
 * this extends the framework half (overseer-core.ts).
 */
import { asResult, type RpcResult, unwrap } from "@/server/app-error";
import type {
  InviteRow,
  NewApiToken,
  NewInvite,
  NewShare,
  SharedRoom,
  ShareRow
} from "@/server/contracts/overseer-api";
import type { ToolsCallResults, WorkspaceToolsCall } from "@/server/contracts/room-api";
import type { Caller } from "@/server/domain/access/caller";
import { forViewer } from "@/server/domain/access/viewer-authors";
import { fileKey } from "@/server/domain/files/file-limits";
import type { InviteClaims } from "@/server/domain/roles/invite-token";
import type { FilePage, FilesQuery, RoomFile } from "@/shared/files";
import { authorOf } from "@/shared/identity";
import type {
  AcceptedInvite,
  ApiTokenInfo,
  InviteView,
  MemberCandidates,
  MemberList,
  Person,
  WorkspaceAccess as WorkspaceAccessInfo
} from "@/shared/members";
import type { WorkspaceRole } from "@/shared/permissions";
import type { MessagePage } from "@/shared/protocol";
import type { ShareView } from "@/shared/shares";
import { OverseerCore } from "./overseer-core";

export abstract class OverseerAccess extends OverseerCore {
  // ── Share links (tokens are signed by the Worker, routes/shares-routes.ts; rows live in overseer/share-links.ts) ──

  /** Records a link the Worker signed. An expiring one is ended on time by an alarm, closing its viewers. */
  createShare(roomId: string, share: NewShare, caller: Caller): Promise<RpcResult<ShareRow>> {
    return asResult(() => {
      this.jobs.access.requireRoom(caller, roomId, "room.share");
      return this.jobs.shares.create(roomId, share);
    });
  }

  listShares(roomId: string, caller: Caller): Promise<RpcResult<ShareRow[]>> {
    return asResult(() => {
      this.jobs.access.requireRoom(caller, roomId, "room.share");
      return this.jobs.shares.list(roomId);
    });
  }

  /** Deletes the link at once, then closes every socket opened with it. */
  revokeShare(roomId: string, shareId: string, caller: Caller): Promise<RpcResult<void>> {
    return asResult(() => {
      this.jobs.access.requireRoom(caller, roomId, "room.share");
      return this.jobs.shares.revoke(roomId, shareId);
    });
  }

  /**
   * What a viewer holding a valid token may see; 404 for a revoked, expired
   * or mismatched one. Every viewer request starts here, so this is where a
   * viewer's address is rate-limited (429).
   */
  openShare(shareId: string, roomId: string, tokenHash: string, viewerAddress: string): Promise<RpcResult<ShareView>> {
    return asResult(() => {
      this.jobs.admission.admitShareView(viewerAddress);
      return this.jobs.shares.open(shareId, roomId, tokenHash);
    });
  }

  /** A page of history for a viewer holding a valid token (the link is the right to read). */
  sharedMessages(share: SharedRoom, query: { before?: string; limit: number }): Promise<RpcResult<MessagePage>> {
    return asResult(() => {
      this.jobs.shares.open(share.shareId, share.roomId, share.tokenHash);
      // Names, never identity ids (domain/access/viewer-authors.ts).
      return this.jobs.rooms.callChecked(share.roomId, async (room) =>
        forViewer(await room.listMessages(query), share.shareId)
      );
    });
  }

  /** The room's files for a viewer holding a valid token: read-only (there is no upload or delete for a link). */
  sharedFiles(share: SharedRoom, query: FilesQuery): Promise<RpcResult<FilePage>> {
    return asResult(() => {
      this.jobs.shares.open(share.shareId, share.roomId, share.tokenHash);
      // Who added each file: names, never identity ids.
      return this.jobs.rooms.callChecked(share.roomId, async (room) =>
        forViewer(unwrap(await room.listFiles(query)), share.shareId)
      );
    });
  }

  /** One file's record and where its bytes are, for a viewer holding a valid token. */
  sharedFile(share: SharedRoom, fileId: string): Promise<RpcResult<{ file: RoomFile; key: string }>> {
    return asResult(() => {
      this.jobs.shares.open(share.shareId, share.roomId, share.tokenHash);
      return this.jobs.rooms.callChecked(share.roomId, async (room) => ({
        file: unwrap(await room.getFile(fileId)),
        key: fileKey(this.name, share.roomId, fileId)
      }));
    });
  }

  // ── Members, invitations, people, API tokens (overseer/workspace-access.ts decides) ──

  listMembers(id: string, caller: Caller): Promise<RpcResult<MemberList>> {
    return asResult(() => this.jobs.access.listMembers(caller, id));
  }

  /** Removes someone (owner, admins) or the caller itself (leaving); their sockets close at once. */
  removeMember(id: string, userId: string, caller: Caller): Promise<RpcResult<void>> {
    return asResult(() => this.jobs.access.removeMember(caller, id, userId));
  }

  addMember(id: string, userId: string, caller: Caller): Promise<RpcResult<MemberList>> {
    return asResult(() => this.jobs.access.addMember(caller, id, userId));
  }

  memberCandidates(id: string, query: string, caller: Caller): Promise<RpcResult<MemberCandidates>> {
    return asResult(() => this.jobs.access.memberCandidates(caller, id, query));
  }

  transferOwnership(id: string, userId: string, caller: Caller): Promise<RpcResult<MemberList>> {
    return asResult(() => {
      const members = this.jobs.access.transferOwnership(caller, id, userId);
      this.jobs.lists.announce(this.jobs.registry.require(id));
      return members;
    });
  }

  /** Records an invitation the Worker signed. */
  createInvite(id: string, invite: NewInvite, caller: Caller): Promise<RpcResult<InviteRow>> {
    return asResult(() => this.jobs.access.createInvite(caller, id, invite));
  }

  listInvites(id: string, caller: Caller): Promise<RpcResult<InviteRow[]>> {
    return asResult(() => this.jobs.access.listInvites(caller, id));
  }

  revokeInvite(id: string, inviteId: string, caller: Caller): Promise<RpcResult<void>> {
    return asResult(() => this.jobs.access.revokeInvite(caller, id, inviteId));
  }

  viewInvite(claims: InviteClaims, tokenHash: string, caller: Caller): Promise<RpcResult<InviteView>> {
    return asResult(() => this.jobs.access.viewInvite(caller, claims, tokenHash));
  }

  acceptInvite(claims: InviteClaims, tokenHash: string, caller: Caller): Promise<RpcResult<AcceptedInvite>> {
    return asResult(async () => {
      const row = await this.jobs.access.acceptInvite(caller, claims, tokenHash);
      return { workspace: this.name, roomId: row.id, roomName: row.name };
    });
  }

  me(caller: Caller): Promise<RpcResult<WorkspaceAccessInfo>> {
    return asResult(() => this.jobs.access.me(caller));
  }

  listPeople(caller: Caller): Promise<RpcResult<Person[]>> {
    return asResult(() => this.jobs.access.listPeople(caller));
  }

  setRole(userId: string, role: WorkspaceRole, caller: Caller): Promise<RpcResult<Person[]>> {
    return asResult(() => this.jobs.access.setRole(caller, userId, role));
  }

  /** Records a token the Worker made (it keeps only the hash); the secret never reaches this object. */
  createApiToken(input: NewApiToken, caller: Caller): Promise<RpcResult<ApiTokenInfo>> {
    return asResult(() => this.jobs.tokens.create(caller, input));
  }

  listApiTokens(caller: Caller): Promise<RpcResult<ApiTokenInfo[]>> {
    return asResult(() => this.jobs.tokens.list(caller));
  }

  revokeApiToken(tokenId: string, caller: Caller): Promise<RpcResult<void>> {
    return asResult(() => this.jobs.tokens.revoke(caller, tokenId));
  }

  /** The workspace's MCP servers, which every room offers besides its own (overseer/workspace-mcp.ts). */
  workspaceTools(
    call: WorkspaceToolsCall,
    caller: Caller
  ): Promise<RpcResult<ToolsCallResults[WorkspaceToolsCall["op"]]>> {
    return asResult(() => {
      // Listing too: the servers' addresses and header names are the admins' business, as a room's are its managers'.
      this.jobs.access.requireWorkspace(caller, "workspace.tools");
      return this.jobs.workspaceMcp.call(call, authorOf(caller.identity));
    });
  }

  /** The Worker's check of a presented API token (http/access.ts): its identity, or null. */
  verifyApiToken(tokenId: string, tokenHash: string): ApiTokenInfo | null {
    return this.jobs.tokens.verify(tokenId, tokenHash);
  }
}
