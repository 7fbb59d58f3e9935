/**
 * Who is a workspace admin. Pure: the Worker and the overseer call it with
 * what they know.
 *
 * An admin is, in this order:
 *   1. whoever the server's configuration names (decided by the Worker,
 *      which holds the evidence): ACCESS_TOKEN's holder (the bootstrap
 *      token), anyone listed in ADMINS by Access e-mail or identity id
 *      (never by display name: anyone may claim a name), and, behind
 *      Cloudflare Access, members of ACCESS_ADMIN_GROUP;
 *   2. anyone an admin made one (stored in the workspace's people table);
 *   3. the first person to use a workspace that has no admin, unless the
 *      configuration names admins (then only it does).
 * A named API token acts with the role it was given, and never more than its
 * creator has now.
 */
import type { WorkspaceRole } from "@/shared/permissions";

export interface AdminConfig {
  /** Comma-separated e-mails or identity ids. */
  ADMINS?: string;
  /** Behind Access: the group whose members are admins (from the assertion's `groups` claim). */
  ACCESS_ADMIN_GROUP?: string;
}

/** What the Worker knows of a caller when it decides whether the configuration makes it an admin. */
export interface AdminEvidence {
  identityId: string;
  /** Behind Access: the verified e-mail. */
  email?: string | null;
  /** Behind Access: the verified groups. */
  groups?: readonly string[];
  /** Authenticated with ACCESS_TOKEN. */
  bootstrap: boolean;
}

function adminList(config: AdminConfig): Set<string> {
  return new Set(
    (config.ADMINS ?? "")
      .split(",")
      .map((entry) => entry.trim().toLowerCase())
      .filter(Boolean)
  );
}

/** Whether the configuration names any admin (then nobody becomes one by being first). */
export function adminsConfigured(config: AdminConfig): boolean {
  return adminList(config).size > 0 || Boolean(config.ACCESS_ADMIN_GROUP?.trim());
}

/** Whether the server's configuration makes this caller an admin of every workspace. */
export function configuredAdmin(evidence: AdminEvidence, config: AdminConfig): boolean {
  if (evidence.bootstrap) return true;
  const listed = adminList(config);
  if (listed.has(evidence.identityId.toLowerCase())) return true;
  if (evidence.email && listed.has(evidence.email.trim().toLowerCase())) return true;
  const group = config.ACCESS_ADMIN_GROUP?.trim();
  return Boolean(group && evidence.groups?.includes(group));
}

/** Whether someone seen for the first time becomes the workspace's first admin. */
export function becomesFirstAdmin(input: {
  /** The workspace already has an admin (stored). */
  hasAdmin: boolean;
  /** The configuration names admins. */
  configured: boolean;
  /** The shared anonymous identity, or a token: neither is a person. */
  person: boolean;
}): boolean {
  return !input.hasAdmin && !input.configured && input.person;
}

const RANK: Record<WorkspaceRole, number> = { member: 0, admin: 1 };

/** The lesser of two roles. */
export function leastRole(a: WorkspaceRole, b: WorkspaceRole): WorkspaceRole {
  return RANK[a] <= RANK[b] ? a : b;
}

/** A caller's role in a workspace. */
export function workspaceRoleOf(input: {
  configuredAdmin: boolean;
  /** The stored role; null for someone never seen. */
  stored: WorkspaceRole | null;
  /** For a named API token: its own role and its creator's role now. */
  token?: { role: WorkspaceRole; creatorRole: WorkspaceRole } | null;
}): WorkspaceRole {
  if (input.configuredAdmin) return "admin";
  if (input.token) return leastRole(input.token.role, input.token.creatorRole);
  return input.stored ?? "member";
}
