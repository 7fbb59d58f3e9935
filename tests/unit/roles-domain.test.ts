import { describe, expect, it } from "vitest";
import { hashShareToken, issueShareToken, newShareId, readShareToken } from "@/server/domain/access/share-token";
import {
  hashApiToken,
  looksLikeApiToken,
  newApiToken,
  parseApiToken,
  tokenIdentityId,
  tokenIdOf
} from "@/server/domain/roles/api-token";
import { type InviteClaims, issueInviteToken, newInviteId, readInviteToken } from "@/server/domain/roles/invite-token";
import {
  adminsConfigured,
  becomesFirstAdmin,
  configuredAdmin,
  workspaceRoleOf
} from "@/server/domain/roles/workspace-roles";
import { CreateApiTokenBody, CreateInviteBody } from "@/shared/members";

describe("who the configuration makes an admin", () => {
  const person = { identityId: "u_1", bootstrap: false };

  it("ACCESS_TOKEN's holder, ADMINS by identity id or Access e-mail (any case), the Access admin group", () => {
    expect(configuredAdmin({ ...person, bootstrap: true }, {})).toBe(true);
    expect(configuredAdmin(person, {})).toBe(false);
    expect(configuredAdmin(person, { ADMINS: " ann@x.com , U_1 " })).toBe(true);
    expect(
      configuredAdmin({ identityId: "access:abc", email: "Ann@X.com", bootstrap: false }, { ADMINS: "ann@x.com" })
    ).toBe(true);
    expect(
      configuredAdmin({ identityId: "access:abc", email: "bob@x.com", bootstrap: false }, { ADMINS: "ann@x.com" })
    ).toBe(false);
    const inGroup = { identityId: "access:abc", groups: ["staff", "rooms-admins"], bootstrap: false };
    expect(configuredAdmin(inGroup, { ACCESS_ADMIN_GROUP: "rooms-admins" })).toBe(true);
    expect(configuredAdmin(inGroup, { ACCESS_ADMIN_GROUP: "owners" })).toBe(false);
    expect(configuredAdmin(inGroup, {})).toBe(false);
  });

  it("never by display name: only ids and e-mails are listed, and names are not evidence", () => {
    // A person who calls themselves "ann@x.com" is still u_2.
    expect(configuredAdmin({ identityId: "u_2", bootstrap: false }, { ADMINS: "ann@x.com" })).toBe(false);
  });

  it("the first person of a workspace with no admin becomes its admin, unless the configuration names admins", () => {
    expect(becomesFirstAdmin({ hasAdmin: false, configured: false, person: true })).toBe(true);
    expect(becomesFirstAdmin({ hasAdmin: true, configured: false, person: true })).toBe(false);
    expect(becomesFirstAdmin({ hasAdmin: false, configured: true, person: true })).toBe(false);
    expect(becomesFirstAdmin({ hasAdmin: false, configured: false, person: false })).toBe(false);
    expect(adminsConfigured({ ADMINS: " , " })).toBe(false);
    expect(adminsConfigured({ ADMINS: "a@b.c" })).toBe(true);
    expect(adminsConfigured({ ACCESS_ADMIN_GROUP: "admins" })).toBe(true);
  });

  it("a token acts with its own role, never more than its creator has now", () => {
    expect(workspaceRoleOf({ configuredAdmin: false, stored: null })).toBe("member");
    expect(workspaceRoleOf({ configuredAdmin: false, stored: "admin" })).toBe("admin");
    expect(workspaceRoleOf({ configuredAdmin: true, stored: "member" })).toBe("admin");
    const token = (role: "admin" | "member", creatorRole: "admin" | "member") =>
      workspaceRoleOf({ configuredAdmin: false, stored: null, token: { role, creatorRole } });
    expect(token("admin", "admin")).toBe("admin");
    expect(token("admin", "member")).toBe("member");
    expect(token("member", "admin")).toBe("member");
  });
});

describe("named API tokens", () => {
  it("carry their workspace and id, 192 random bits of secret, and hash to a fixed-length digest", async () => {
    const { tokenId, token } = newApiToken("team-a");
    expect(looksLikeApiToken(token)).toBe(true);
    expect(parseApiToken(token)).toEqual({ workspace: "team-a", tokenId });
    expect(token.split(".")[3]).toHaveLength(32);
    expect(await hashApiToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(await hashApiToken(token)).not.toBe(await hashApiToken(newApiToken("team-a").token));
    expect(tokenIdOf(tokenIdentityId(tokenId))).toBe(tokenId);
    expect(tokenIdOf("u_123")).toBeNull();
  });

  it("refuse anything not shaped like one", () => {
    const { token } = newApiToken("default");
    const [, , id, secret] = token.split(".");
    for (const junk of [
      "",
      "rt",
      `rt.default.${id}`,
      `xx.default.${id}.${secret}`,
      `rt.Default.${id}.${secret}`,
      `rt.default.${id}.${secret}.x`,
      `rt.default.${id}x.${secret}`,
      `rt.default.${id}.${secret}!`,
      `rt.${"a".repeat(65)}.${id}.${secret}`
    ]) {
      expect(parseApiToken(junk), junk).toBeNull();
    }
    expect(looksLikeApiToken("some-access-token")).toBe(false);
  });
});

describe("invitation tokens", () => {
  const now = Math.floor(Date.now() / 1000);
  const claims = (overrides: Partial<InviteClaims> = {}): InviteClaims => ({
    inviteId: newInviteId(),
    workspace: "default",
    roomId: "r_room",
    issuedAt: now,
    expiresAt: now + 3600,
    ...overrides
  });

  it("round-trip, sign the same claims to the same token, and refuse forgeries and expired ones", async () => {
    const c = claims();
    const token = await issueInviteToken(c, "secret");
    expect(await readInviteToken(token, "secret")).toEqual(c);
    expect(await issueInviteToken({ ...c }, "secret")).toBe(token);
    expect(await readInviteToken(token, "other")).toBeNull();
    expect(
      await readInviteToken(await issueInviteToken(claims({ expiresAt: now - 1 }), "secret"), "secret")
    ).toBeNull();
    for (const junk of [undefined, "", "a.b.c", "x".repeat(2000)])
      expect(await readInviteToken(junk, "secret")).toBeNull();
  });

  it("are never mistaken for share links, nor share links for them", async () => {
    const invite = await issueInviteToken(claims(), "secret");
    expect(await readShareToken(invite, "secret")).toBeNull();
    const share = await issueShareToken(
      { shareId: newShareId(), workspace: "default", roomId: "r_room", issuedAt: now, expiresAt: null },
      "secret"
    );
    expect(await readInviteToken(share, "secret")).toBeNull();
    expect(await hashShareToken(invite)).toMatch(/^[0-9a-f]{64}$/);
  });

  it("are asked for with bounded lifetimes and uses", () => {
    expect(CreateInviteBody.safeParse({}).success).toBe(true);
    expect(CreateInviteBody.safeParse({ expiresIn: 3600, maxUses: 1 }).success).toBe(true);
    for (const bad of [{ expiresIn: 10 }, { expiresIn: 31 * 86400 }, { maxUses: 0 }, { maxUses: 1.5 }, { extra: 1 }]) {
      expect(CreateInviteBody.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
    expect(CreateApiTokenBody.safeParse({ name: "  CI  bot " }).data).toEqual({ name: "CI bot" });
    expect(CreateApiTokenBody.safeParse({ name: "x", role: "owner" }).success).toBe(false);
  });
});
