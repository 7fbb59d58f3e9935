import { describe, expect, it } from "vitest";
import { shareToken } from "@/client/lib/routes";
import { decodeCaller, encodeCaller, limitKeys } from "@/server/domain/access/caller";
import { issueSession, readSession } from "@/server/domain/access/session-token";
import {
  hashShareToken,
  issueShareToken,
  newShareId,
  readShareToken,
  type ShareClaims,
  shareExpiry
} from "@/server/domain/access/share-token";
import { CreateShareBody, SHARE_ID_PATTERN } from "@/shared/shares";

const now = Math.floor(Date.now() / 1000);
const claims = (overrides: Partial<ShareClaims> = {}): ShareClaims => ({
  shareId: newShareId(),
  workspace: "default",
  roomId: "r_room",
  issuedAt: now,
  expiresAt: null,
  ...overrides
});

describe("share tokens", () => {
  it("round-trip their claims, with and without an expiry", async () => {
    const forever = claims();
    expect(await readShareToken(await issueShareToken(forever, "secret"), "secret")).toEqual(forever);
    const hourly = claims({ expiresAt: now + 3600 });
    expect(await readShareToken(await issueShareToken(hourly, "secret"), "secret")).toEqual(hourly);
  });

  it("are the same token when signed again from the same claims, so a list can show a link it never stored", async () => {
    const c = claims({ expiresAt: now + 60 });
    const first = await issueShareToken(c, "secret");
    expect(await issueShareToken({ ...c }, "secret")).toBe(first);
    expect(await hashShareToken(await issueShareToken({ ...c }, "secret"))).toBe(await hashShareToken(first));
    expect(await issueShareToken(claims({ shareId: newShareId() }), "secret")).not.toBe(first);
  });

  it("refuse another secret, an expired link, a tampered payload and anything not a token", async () => {
    const token = await issueShareToken(claims(), "secret");
    expect(await readShareToken(token, "other secret")).toBeNull();
    expect(await readShareToken(await issueShareToken(claims({ expiresAt: now - 1 }), "secret"), "secret")).toBeNull();
    const [header, , signature] = token.split(".");
    const forged = Buffer.from(
      JSON.stringify({ typ: "rooms-share", sid: newShareId(), ws: "default", room: "r_other", iat: now })
    ).toString("base64url");
    expect(await readShareToken(`${header}.${forged}.${signature}`, "secret")).toBeNull();
    for (const junk of [undefined, "", "abc", "a.b.c", "x".repeat(5000)]) {
      expect(await readShareToken(junk, "secret")).toBeNull();
    }
  });

  it("never pass for a session, nor a session for a share token", async () => {
    const share = await issueShareToken(claims(), "secret");
    expect(await readSession(share, "secret", "open")).toBeNull();
    const session = await issueSession({ id: "u_ann", name: "Ann" }, "secret", "open");
    expect(await readShareToken(session, "secret")).toBeNull();
  });

  it("hash to a digest that does not contain the token", async () => {
    const token = await issueShareToken(claims(), "secret");
    const hash = await hashShareToken(token);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(token).not.toContain(hash);
  });

  it("expire when asked, in whole seconds, or never", () => {
    expect(shareExpiry(10_500, undefined)).toBeNull();
    expect(shareExpiry(10_500, 60)).toBe(70);
    expect(newShareId()).toMatch(SHARE_ID_PATTERN);
  });
});

describe("share request bodies", () => {
  it("take an optional whole number of seconds up to a year and refuse anything else", () => {
    expect(CreateShareBody.parse({})).toEqual({});
    expect(CreateShareBody.parse({ expiresIn: 3600 })).toEqual({ expiresIn: 3600 });
    for (const bad of [
      { expiresIn: 0 },
      { expiresIn: 1.5 },
      { expiresIn: "60" },
      { expiresIn: 10 ** 9 },
      { roomId: "x" }
    ]) {
      expect(CreateShareBody.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });
});

describe("viewer callers", () => {
  it("travel with their share id, and a viewer's limits are its own per address", () => {
    const viewer = {
      identity: { id: "viewer:sh_x", name: "Viewer", kind: "api" as const },
      address: "192.0.2.9",
      viewerOf: "sh_x"
    };
    expect(decodeCaller(encodeCaller(viewer))).toEqual(viewer);
    expect(limitKeys(viewer).identity).toBe("id:viewer:sh_x@192.0.2.9");
    const member = { identity: { id: "u_ann", name: "Ann", kind: "user" as const }, address: "192.0.2.9" };
    expect(decodeCaller(encodeCaller(member))).toEqual(member);
    expect(decodeCaller(encodeURIComponent(JSON.stringify({ ...viewer, viewerOf: 5 })))).toBeNull();
  });
});

describe("the viewer page's address", () => {
  it("is /share/<token> only, and a malformed one is no page", () => {
    expect(shareToken("/share/aaa.bbb.ccc")).toBe("aaa.bbb.ccc");
    expect(shareToken("/share/aaa.bbb.ccc/")).toBe("aaa.bbb.ccc");
    for (const path of ["/share/", "/share", "/share/a/b", "/sub/chat-room/x", "/", "/share/%E0%A4%A"]) {
      expect(shareToken(path), path).toBeNull();
    }
  });
});
