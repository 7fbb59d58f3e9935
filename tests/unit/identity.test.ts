import { createLocalJWKSet, exportJWK, generateKeyPair, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { nameFromEmail, verifyAccessAssertion } from "@/server/domain/access/access-jwt";
import { decodeCaller, encodeCaller, limitKeys } from "@/server/domain/access/caller";
import { gateFingerprint, issueSession, readSession } from "@/server/domain/access/session-token";
import { Coalescer, presenceList } from "@/server/domain/sockets/presence-list";
import { authorId, authorName, DisplayName } from "@/shared/identity";

const ann = { identity: { id: "u_ann", name: "Ann", kind: "user" as const }, address: "192.0.2.1" };

describe("session tokens", () => {
  it("round-trip a user, and refuse another secret, another gate or an expired token", async () => {
    const open = await gateFingerprint(undefined);
    const token = await issueSession({ id: "u_ann", name: "Ann" }, "secret", open);
    expect(await readSession(token, "secret", open)).toEqual({
      identity: { id: "u_ann", name: "Ann", kind: "user" },
      generation: 0
    });
    const later = await issueSession({ id: "u_ann", name: "Ann", generation: 3 }, "secret", open);
    expect((await readSession(later, "secret", open))?.generation).toBe(3);
    expect(await readSession(token, "other secret", open)).toBeNull();
    expect(await readSession(token, "secret", await gateFingerprint("a token"))).toBeNull();
    const old = await issueSession({ id: "u_ann", name: "Ann" }, "secret", open, 1_000);
    expect(await readSession(old, "secret", open)).toBeNull();
    expect(await readSession(undefined, "secret", open)).toBeNull();
  });

  it("fingerprint the access token without revealing it", async () => {
    const print = await gateFingerprint("hunter2");
    expect(print).not.toContain("hunter2");
    expect(print).toBe(await gateFingerprint("hunter2"));
    expect(print).not.toBe(await gateFingerprint("hunter3"));
  });
});

describe("display names and authors", () => {
  it("normalise whitespace and refuse empty, long or control-laden names", () => {
    expect(DisplayName.parse("  Ann \n  Lee ")).toBe("Ann Lee");
    for (const bad of ["", "   ", "x".repeat(41), "a\u0007b", "a\u202eb", 42]) {
      expect(DisplayName.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it("read names from new and legacy authors; only new ones have ids", () => {
    expect(authorName({ id: "u_1", name: "Ann" })).toBe("Ann");
    expect(authorName("Legacy")).toBe("Legacy");
    expect(authorName({ name: 5 })).toBeNull();
    expect(authorId({ id: "u_1", name: "Ann" })).toBe("u_1");
    expect(authorId("Legacy")).toBeNull();
  });
});

describe("callers", () => {
  it("survive the header round trip, with non-ASCII names", () => {
    const caller = { ...ann, identity: { ...ann.identity, name: "Zoë 🌱" } };
    expect(decodeCaller(encodeCaller(caller))).toEqual(caller);
  });

  it("decode nothing from forged or malformed values", () => {
    for (const value of [null, "", "%%%", encodeURIComponent('{"identity":{"id":"x"}}'), "null"]) {
      expect(decodeCaller(value)).toBeNull();
    }
  });

  it("key limits by identity, and anonymous callers by address", () => {
    expect(limitKeys(ann)).toEqual({ identity: "id:u_ann", address: "ip:192.0.2.1" });
    const anon = { identity: { id: "api", name: "API", kind: "api" as const }, address: "192.0.2.9" };
    expect(limitKeys(anon).identity).toBe("id:api@192.0.2.9");
  });
});

describe("presence", () => {
  it("lists each identity once, typing if any of its sockets is", () => {
    const ben = { identity: { id: "u_ben", name: "Ben", kind: "user" as const }, address: "x" };
    expect(
      presenceList([
        { caller: ben, typing: false },
        { caller: ann, typing: false },
        { caller: ben, typing: true },
        { caller: null, typing: true }
      ])
    ).toEqual([
      { id: "u_ann", name: "Ann", kind: "user", typing: false },
      { id: "u_ben", name: "Ben", kind: "user", typing: true }
    ]);
  });

  it("coalesces any number of requests into at most one flush per interval", () => {
    let now = 0;
    const timers: Array<{ at: number; fn: () => void }> = [];
    const flushes: number[] = [];
    const coalescer = new Coalescer(
      250,
      () => flushes.push(now),
      () => now,
      {
        set: (fn, ms) => timers.push({ at: now + ms, fn }),
        clear: () => {}
      }
    );
    const advance = (to: number) => {
      now = to;
      for (const timer of timers.splice(0).filter((t) => t.at <= to)) timer.fn();
    };
    coalescer.request(); // quiet before: runs at once
    for (let t = 1; t < 1000; t += 1) {
      advance(t);
      coalescer.request();
    }
    advance(1250);
    expect(flushes[0]).toBe(0);
    expect(flushes.length).toBeLessThanOrEqual(1000 / 250 + 2);
    for (let i = 1; i < flushes.length; i++) expect(flushes[i] - flushes[i - 1]).toBeGreaterThanOrEqual(250);
  });
});

describe("Cloudflare Access assertions", () => {
  it("verify against a local key set: signature, issuer, audience, expiry", async () => {
    const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true });
    const keys = createLocalJWKSet({ keys: [{ ...(await exportJWK(publicKey)), kid: "k1", alg: "ES256" }] });
    const config = { teamDomain: "https://team.cloudflareaccess.com/", audience: "aud-1" };
    const sign = (aud: string, exp: string) =>
      new SignJWT({ email: "dora@example.com", groups: ["staff", 7, "rooms-admins"] })
        .setProtectedHeader({ alg: "ES256", kid: "k1" })
        .setIssuer("https://team.cloudflareaccess.com")
        .setAudience(aud)
        .setSubject("s-1")
        .setExpirationTime(exp)
        .sign(privateKey);
    expect(await verifyAccessAssertion(await sign("aud-1", "1m"), config, keys)).toEqual({
      identity: { id: "access:s-1", name: "dora", kind: "access" },
      email: "dora@example.com",
      // Only group names (strings) are evidence for ACCESS_ADMIN_GROUP.
      groups: ["staff", "rooms-admins"]
    });
    expect(await verifyAccessAssertion(await sign("aud-2", "1m"), config, keys)).toBeNull();
    expect(await verifyAccessAssertion(await sign("aud-1", "-1m"), config, keys)).toBeNull();
  });

  it("take a bounded name from the email's local part", () => {
    expect(nameFromEmail("ann.lee@example.com")).toBe("ann.lee");
    expect(nameFromEmail(`${"x".repeat(80)}@example.com`)).toHaveLength(40);
    expect(nameFromEmail("@example.com")).toBe("Access user");
  });
});
