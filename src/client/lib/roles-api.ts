/**
 * REST calls of roles (docs/roles.md): a room's members and invitations, the
 * workspace's people and roles, and its named API tokens. Apart from api.ts
 * so the rooms client stays about rooms; failures are the same `ApiError`.
 */
import type {
  AcceptedInvite,
  ApiTokenList,
  CreatedApiToken,
  CreatedInvite,
  InviteList,
  InviteView,
  MemberCandidates,
  MemberList,
  PeopleList,
  WorkspaceAccess
} from "@/shared/members";
import type { WorkspaceRole } from "@/shared/permissions";
import { request } from "./api";

const room = (id: string) => `/api/rooms/${encodeURIComponent(id)}`;
const part = encodeURIComponent;

export const rolesApi = {
  // A room's members and invitations
  members: (roomId: string, signal?: AbortSignal) => request<MemberList>(`${room(roomId)}/members`, { signal }),
  /** Removes someone; oneself is leaving. */
  removeMember: (roomId: string, userId: string) =>
    request<void>(`${room(roomId)}/members/${part(userId)}`, { method: "DELETE" }),
  /** Adds someone who has used the workspace (owner and admins). */
  addMember: (roomId: string, userId: string) =>
    request<MemberList>(`${room(roomId)}/members`, { method: "POST", json: { userId } }),
  /** People who could be added, by a part of their name. */
  memberCandidates: (roomId: string, query: string, signal?: AbortSignal) =>
    request<MemberCandidates>(`${room(roomId)}/members/candidates?q=${part(query)}`, { signal }),
  handOver: (roomId: string, userId: string) =>
    request<MemberList>(`${room(roomId)}/owner`, { method: "POST", json: { userId } }),
  createInvite: (roomId: string, body: { expiresIn?: number; maxUses?: number }) =>
    request<CreatedInvite>(`${room(roomId)}/invites`, { method: "POST", json: body }),
  invites: (roomId: string) => request<InviteList>(`${room(roomId)}/invites`),
  revokeInvite: (roomId: string, inviteId: string) =>
    request<void>(`${room(roomId)}/invites/${part(inviteId)}`, { method: "DELETE" }),
  // Opening an invitation
  viewInvite: (token: string, signal?: AbortSignal) => request<InviteView>(`/api/invites/${part(token)}`, { signal }),
  acceptInvite: (token: string) =>
    request<AcceptedInvite>(`/api/invites/${part(token)}/accept`, { method: "POST", json: {} }),
  // The workspace: who I am here, its people, its API tokens
  me: (signal?: AbortSignal) => request<WorkspaceAccess>("/api/me", { signal }),
  people: (signal?: AbortSignal) => request<PeopleList>("/api/people", { signal }),
  setRole: (userId: string, role: WorkspaceRole) =>
    request<PeopleList>(`/api/people/${part(userId)}`, { method: "PATCH", json: { role } }),
  tokens: (signal?: AbortSignal) => request<ApiTokenList>("/api/tokens", { signal }),
  createToken: (name: string, role: WorkspaceRole) =>
    request<CreatedApiToken>("/api/tokens", { method: "POST", json: { name, role } }),
  revokeToken: (tokenId: string) => request<void>(`/api/tokens/${part(tokenId)}`, { method: "DELETE" })
};
