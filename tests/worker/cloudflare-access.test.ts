/**
 * Behind Cloudflare Access the identity is the verified
 * `Cf-Access-Jwt-Assertion`. The team's key set is served locally: the
 * Worker fetches `https://<team>/cdn-cgi/access/certs` (a URL derived from
 * configuration only) and the test answers that fetch with its own keys.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import app from "../../src/server/index";
import type { ErrorBody } from "../../src/shared/errors";
import type { Identity } from "../../src/shared/identity";
import type { SendMessageResult } from "../../src/shared/protocol";
import { BASE, createRoom, signIn as signInOpen, uniqueName } from "./helpers";

const TEAM = `team-${crypto.randomUUID().slice(0, 8)}.cloudflareaccess.com`;
const AUD = "rooms-app-audience-tag";
const accessEnv = { ...env, CF_ACCESS_TEAM_DOMAIN: TEAM, CF_ACCESS_AUD: AUD };

let teamKey: CryptoKey;
let strangerKey: CryptoKey;
const certFetches: string[] = [];

beforeAll(async () => {
  const team = await generateKeyPair("RS256", { extractable: true });
  const stranger = await generateKeyPair("RS256", { extractable: true });
  teamKey = team.privateKey as CryptoKey;
  strangerKey = stranger.privateKey as CryptoKey;
  const jwk = { ...(await exportJWK(team.publicKey)), kid: "team-key", alg: "RS256", use: "sig" };
  const realFetch = globalThis.fetch;
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (url.includes("/cdn-cgi/access/certs")) {
      certFetches.push(url);
      return Response.json({ keys: [jwk] });
    }
    return realFetch(input, init);
  });
});

afterAll(() => {
  vi.restoreAllMocks();
});

async function assertion(
  claims: Record<string, unknown>,
  { key = teamKey, kid = "team-key", issuer = `https://${TEAM}`, audience = AUD, expiresIn = "5m" } = {}
) {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "RS256", kid })
    .setIssuer(issuer)
    .setAudience(audience)
    .setSubject((claims.sub as string) ?? "user-123")
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(key);
}

async function call(path: string, init: RequestInit = {}) {
  const ctx = createExecutionContext();
  const response = await app.fetch(new Request(`${BASE}${path}`, init), accessEnv, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

describe("Cloudflare Access", () => {
  it("takes the identity from a verified assertion, with the name from the email", async () => {
    const token = await assertion({ sub: "sub-ann", email: "ann.lee@example.com" });
    const response = await call("/api/session", { headers: { "cf-access-jwt-assertion": token } });
    expect(response.status).toBe(200);
    expect((await response.json<{ user: Identity }>()).user).toEqual({
      id: "access:sub-ann",
      name: "ann.lee",
      kind: "access"
    });
    expect(certFetches.every((url) => url === `https://${TEAM}/cdn-cgi/access/certs`)).toBe(true);
    expect(certFetches.length).toBeGreaterThan(0);
  });

  it("writes the Access identity as the author of a REST send", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const token = await assertion({ sub: "sub-ben", email: "ben@example.com" });
    const sent = await call(`/api/workspaces/${ws}/rooms/${room.id}/messages`, {
      method: "POST",
      headers: { "cf-access-jwt-assertion": token, "content-type": "application/json" },
      body: JSON.stringify({ text: "hello from Access", author: "Not Ben" })
    });
    expect(sent.status).toBe(200);
    expect((await sent.json<SendMessageResult>()).userMessage.metadata?.author).toEqual({
      id: "access:sub-ben",
      name: "ben"
    });
  });

  it.each([
    ["no assertion", async () => undefined],
    ["another audience", () => assertion({ email: "a@x.com" }, { audience: "some-other-app" })],
    ["another issuer", () => assertion({ email: "a@x.com" }, { issuer: "https://evil.cloudflareaccess.com" })],
    ["an expired assertion", () => assertion({ email: "a@x.com" }, { expiresIn: "-1m" })],
    ["a key that is not the team's", () => assertion({ email: "a@x.com" }, { key: strangerKey })],
    ["a garbage assertion", async () => "not.a.jwt"]
  ])("refuses %s with 401, on REST and on sockets", async (_label, make) => {
    const token = await make();
    const headers: Record<string, string> = token ? { "cf-access-jwt-assertion": token } : {};
    const rest = await call("/api/rooms", { headers });
    expect(rest.status).toBe(401);
    expect((await rest.json<ErrorBody>()).error.code).toBe("unauthorized:access");
    const socket = await call(`/agents/overseer-agent/${uniqueName()}`, {
      headers: { ...headers, upgrade: "websocket" }
    });
    expect(socket.status).toBe(401);
    expect(socket.webSocket).toBeNull();
  });

  it("does not let a session cookie stand in for Access, nor issue one", async () => {
    const signIn = await call("/api/session", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Mallory" })
    });
    expect(signIn.status).toBe(400);
    expect(signIn.headers.get("set-cookie")).toBeNull();
    // A session from the same server without Access is worth nothing behind it.
    const open = await signInOpen("Mallory");
    expect((await call("/api/rooms", { headers: { cookie: open.cookie } })).status).toBe(401);
  });
});
