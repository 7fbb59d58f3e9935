/**
 * Identity through the real Worker and Durable Objects: sessions, the API
 * identity, server-written authors over REST and sockets, and the attacks
 * issue 9 lists (chosen connection ids, presence bursts, unchecked
 * workspace names on sockets, forged caller headers, reconnecting to reset
 * limits, wrong-token guessing).
 */
import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { OverseerAgent } from "@/server/agents/overseer-agent";
import { CALLER_HEADER, encodeCaller } from "@/server/domain/access/caller";
import { gateFingerprint, issueSession } from "@/server/domain/access/session-token";
import { sessionSecret } from "@/server/http/access";
import app from "@/server/index";
import {
  MAX_SOCKETS_PER_ADDRESS,
  MAX_SOCKETS_PER_IDENTITY,
  MAX_SOCKETS_PER_ROOM,
  PRESENCE_INTERVAL_MS,
  RATE_LIMITS
} from "@/shared/constants";
import type { ErrorBody } from "@/shared/errors";
import type { Identity } from "@/shared/identity";
import {
  api,
  BASE,
  chatRequest,
  connect,
  createRoom,
  history,
  isDone,
  roomPath,
  sessionCookie,
  signIn,
  signInFrom,
  uniqueName
} from "./helpers";

async function callWith(path: string, init: RequestInit, withEnv: object) {
  const ctx = createExecutionContext();
  const response = await app.fetch(new Request(`${BASE}${path}`, init), withEnv, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

describe("sessions", () => {
  it("signs in, answers who you are, renames keeping the id, and signs out", async () => {
    expect((await api("/api/session")).status).toBe(401);
    const ann = await signIn("  Ann   Lee ");
    expect(ann.user).toMatchObject({ name: "Ann Lee", kind: "user" });
    expect(ann.user.id).toMatch(/^u_/);

    const me = await api("/api/session", { headers: ann.headers });
    expect((await me.json<{ user: Identity }>()).user).toEqual(ann.user);

    const renamed = await api("/api/session", { method: "PATCH", headers: ann.headers, json: { name: "Annie" } });
    expect(renamed.status).toBe(200);
    const annie = sessionCookie(renamed);
    expect((await renamed.json<{ user: Identity }>()).user).toEqual({ ...ann.user, name: "Annie" });
    expect(
      (await (await api("/api/session", { headers: { cookie: annie } })).json<{ user: Identity }>()).user.name
    ).toBe("Annie");

    const out = await api("/api/session", { method: "DELETE", headers: { cookie: annie } });
    expect(out.status).toBe(204);
    expect(out.headers.get("set-cookie")).toMatch(/rooms_session=;.*Max-Age=0/);
  });

  it("refuses bad names and renames without a session", async () => {
    for (const name of ["", "   ", "x".repeat(41), "a\u0000b", "evil\u202egnp"]) {
      const response = await api("/api/session", { method: "POST", json: { name } });
      expect(response.status, JSON.stringify(name)).toBe(400);
      expect(response.headers.get("set-cookie")).toBeNull();
    }
    expect((await api("/api/session", { method: "PATCH", json: { name: "Nobody" } })).status).toBe(401);
  });

  it("treats a tampered, expired or foreign-key session as no session", async () => {
    const ann = await signIn("Ann");
    const [head, payload, signature] = ann.cookie.slice("rooms_session=".length).split(".");
    const claims = JSON.parse(atob(payload.replace(/-/g, "+").replace(/_/g, "/")));
    const forgedPayload = btoa(JSON.stringify({ ...claims, name: "Admin" }))
      .replace(/=+$/, "")
      .replace(/\+/g, "-")
      .replace(/\//g, "_");
    const secret = await sessionSecret(env);
    const gate = await gateFingerprint(undefined);
    const expired = await issueSession({ id: ann.user.id, name: "Ann" }, secret, gate, 1_000_000);
    const otherKey = await issueSession({ id: ann.user.id, name: "Ann" }, "another secret", gate);
    for (const token of [`${head}.${forgedPayload}.${signature}`, expired, otherKey, "garbage"]) {
      const response = await api("/api/session", { headers: { cookie: `rooms_session=${token}` } });
      expect(response.status).toBe(401);
    }
    // A request with a bad session is the anonymous API identity, never Ann.
    const ws = uniqueName();
    const room = await createRoom(ws);
    await api(`/api/workspaces/${ws}/rooms/${room.id}/messages`, {
      method: "POST",
      headers: { cookie: `rooms_session=${head}.${forgedPayload}.${signature}` },
      json: { text: "who am I" }
    });
    expect((await history(ws, room.id))[0].metadata.author).toEqual({ id: "api", name: "API" });
  });

  it("signs everyone out when SESSION_SECRET changes", async () => {
    const ann = await signIn("Ann");
    const rotated = { ...env, SESSION_SECRET: "a freshly rotated secret" };
    expect((await callWith("/api/session", { headers: ann.headers }, rotated)).status).toBe(401);
    expect((await callWith("/api/session", { headers: ann.headers }, env)).status).toBe(200);
  });
});

describe("authorship", () => {
  it("writes the signed-in author on REST sends, ignoring the author a body claims", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const [ann, ben] = [await signIn("Ann"), await signIn("Ben")];
    for (const [who, text] of [
      [ann, "from Ann"],
      [ben, "from Ben"]
    ] as const) {
      const sent = await api(`/api/workspaces/${ws}/rooms/${room.id}/messages`, {
        method: "POST",
        headers: who.headers,
        json: { text, author: "Somebody Else" }
      });
      expect(sent.status).toBe(200);
    }
    const users = (await history(ws, room.id)).filter((m) => m.role === "user");
    expect(users.map((m) => m.metadata.author)).toEqual([
      { id: ann.user.id, name: "Ann" },
      { id: ben.user.id, name: "Ben" }
    ]);
  });

  it("writes the socket's author on chat frames, whatever metadata the frame carries", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const [ann, ben] = [await signIn("Ann"), await signIn("Ben")];
    const annSocket = await connect(roomPath(ws, room.id), ann.headers);
    const benSocket = await connect(roomPath(ws, room.id), ben.headers);
    const forged = chatRequest("Ben pretending");
    // Ben claims to be Ann, with a time far in the future.
    const body = JSON.parse(forged.frame.init.body);
    body.messages[0].metadata = { author: { id: ann.user.id, name: "Ann" }, createdAt: 1e20, model: "x" };
    benSocket.send({ ...forged.frame, init: { method: "POST", body: JSON.stringify(body) } });
    await benSocket.next(isDone(forged.id), 20_000);
    const honest = chatRequest("Ann speaking");
    annSocket.send(honest.frame);
    await annSocket.next(isDone(honest.id), 20_000);

    const users = (await history(ws, room.id)).filter((m) => m.role === "user");
    expect(users.map((m) => [m.metadata.author, m.parts[0].text])).toEqual([
      [{ id: ben.user.id, name: "Ben" }, "Ben pretending"],
      [{ id: ann.user.id, name: "Ann" }, "Ann speaking"]
    ]);
    expect(users[0].metadata.createdAt).toBeLessThan(Date.now() + 1_000);
    expect(users[0].metadata).not.toHaveProperty("model");
    annSocket.ws.close();
    benSocket.ws.close();
  });

  it("ignores a client-sent caller header: the Worker strips x-rooms-* and x-agents-*", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const ann = await signIn("Ann");
    const forgedCaller = encodeCaller({ identity: { ...ann.user, kind: "user" } as any, address: "1.2.3.4" });
    const socket = await connect(roomPath(ws, room.id), {
      [CALLER_HEADER]: forgedCaller,
      "x-agents-anything": "1"
    });
    const { id, frame } = chatRequest("not Ann");
    socket.send(frame);
    await socket.next(isDone(id), 20_000);
    const [message] = await history(ws, room.id);
    expect(message.metadata.author).toEqual({ id: "api", name: "API" });
    socket.ws.close();
  });
});

describe("socket attacks", () => {
  it("chooses connection ids itself: a client's _pk never displaces anyone", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const [ann, ben, watcher] = [await signIn("Ann"), await signIn("Ben"), await signIn("Watcher")];
    const watching = await connect(roomPath(ws, room.id), watcher.headers);
    const victim = await connect(`${roomPath(ws, room.id)}?_pk=shared-id`, ann.headers);
    const attacker = await connect(`${roomPath(ws, room.id)}?_pk=shared-id`, ben.headers);
    const names = (f: any) => f.users.map((u: any) => u.name).sort();
    await watching.next((f) => f?.type === "rooms_presence" && names(f).join() === "Ann,Ben,Watcher");

    const stub = env.OverseerAgent.get(env.OverseerAgent.idFromName(ws));
    // The overseer owns the room sockets; each one's id is in its attachment.
    const ids = await runInDurableObject(stub, (_overseer: OverseerAgent, state) =>
      state.getWebSockets().map((socket) => (socket.deserializeAttachment() as { __pk: { id: string } }).__pk.id)
    );
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
    expect(ids).not.toContain("shared-id");

    // The attacker leaving takes no one else with it.
    attacker.ws.close();
    await watching.next((f) => f?.type === "rooms_presence" && names(f).join() === "Ann,Watcher");
    victim.ws.close();
    watching.ws.close();
  });

  it("does not amplify a burst of hellos and typing flips into a flood of presence frames", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const [ann, ben] = [await signIn("Ann"), await signIn("Ben")];
    const watcher = await connect(roomPath(ws, room.id), ann.headers);
    const noisy = await connect(roomPath(ws, room.id), ben.headers);
    await watcher.next((f) => f?.type === "rooms_presence" && f.users.length === 2);
    const before = watcher.frames.length;
    const started = Date.now();
    for (let i = 0; i < 300; i++) {
      noisy.send(
        i % 3 === 0 ? { type: "rooms_hello", name: `Name${i}` } : { type: "rooms_typing", typing: i % 2 === 0 }
      );
    }
    // Then one real change, which must still arrive. It comes from someone
    // else joining: Ben's own typing flips may by now be rate-limited.
    const cy = await connect(roomPath(ws, room.id), (await signIn("Cy")).headers);
    await watcher.next((f) => f?.type === "rooms_presence" && f.users.some((u: any) => u.name === "Cy"), 10_000);
    const elapsed = Date.now() - started + PRESENCE_INTERVAL_MS;
    const presenceFrames = watcher.frames.slice(before).filter((f: any) => f?.type === "rooms_presence");
    expect(presenceFrames.length).toBeGreaterThan(0);
    expect(presenceFrames.length).toBeLessThanOrEqual(Math.ceil(elapsed / PRESENCE_INTERVAL_MS) + 1);
    // No hello renamed Ben.
    expect(presenceFrames.flatMap((f: any) => f.users.map((u: any) => u.name)).sort()).not.toContain("Name0");
    watcher.ws.close();
    noisy.ws.close();
    cy.ws.close();
  });

  it("keeps rate limits across reconnects: they are keyed by identity, not by socket", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const ann = await signIn("Ann");
    // Empty messages use up the allowance without starting answers.
    const empty = () => chatRequest(" ").frame;
    const refusals = (socket: Awaited<ReturnType<typeof connect>>) =>
      socket.frames.filter((f: any) => f?.type === "rooms_error").map((f: any) => f.code);
    // Ten more than the burst: the allowance refills one a second, and on a
    // loaded machine one more than the burst took long enough to refill.
    const first = await connect(roomPath(ws, room.id), ann.headers);
    for (let i = 0; i < RATE_LIMITS.socketSend.burst + 10; i++) first.send(empty());
    await first.next((f) => f?.type === "rooms_error" && f.code === "rate_limited:requests");
    first.ws.close();

    const second = await connect(roomPath(ws, room.id), ann.headers);
    for (let i = 0; i < 6; i++) second.send(empty());
    await expect.poll(() => refusals(second).length).toBe(6);
    // A fresh per-socket bucket would have refused all six as empty, none as
    // rate-limited; the identity's bucket refilled only for the reconnect's seconds.
    expect(refusals(second).filter((code) => code === "rate_limited:requests").length).toBeGreaterThanOrEqual(1);

    // Someone else is not affected.
    const ben = await connect(roomPath(ws, room.id), (await signIn("Ben")).headers);
    ben.send(empty());
    await expect.poll(() => refusals(ben)).toEqual(["bad_request:body"]);
    second.ws.close();
    ben.ws.close();
  });

  it("caps the sockets one identity may hold open in a room", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const ann = await signIn("Ann");
    const sockets = [];
    for (let i = 0; i < MAX_SOCKETS_PER_IDENTITY; i++) sockets.push(await connect(roomPath(ws, room.id), ann.headers));
    const extra = await connect(roomPath(ws, room.id), ann.headers);
    const closed = await extra.closed;
    expect(closed.code).toBe(4429);
    // Another person still gets in.
    const ben = await connect(roomPath(ws, room.id), (await signIn("Ben")).headers);
    await ben.next((f) => f?.type === "rooms_presence" && f.users.length === 2);
    for (const socket of [...sockets, ben]) socket.ws.close();
  });

  it("caps the sockets a room takes from everyone together, its members included", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws, { name: "Full house" });
    // Nobody answers here: an answer per member (taking turns) streamed to
    // every open socket was most of this test's time, and is not what it tests.
    const quiet = await api(`/api/workspaces/${ws}/rooms/${room.id}`, {
      method: "PATCH",
      json: { defaultResponder: "nobody" }
    });
    expect(quiet.status).toBe(200);
    // People who have written in the room are its members: the last places are theirs too.
    const member = async (name: string, address: string) => {
      const signedIn = await signInFrom(name, address);
      const headers = { ...signedIn.headers, "cf-connecting-ip": address };
      const wrote = await api(`/api/workspaces/${ws}/rooms/${room.id}/messages`, {
        method: "POST",
        json: { text: `${name} was here` },
        headers
      });
      expect(wrote.status).toBe(200);
      return headers;
    };
    const people = Math.ceil(MAX_SOCKETS_PER_ROOM / MAX_SOCKETS_PER_IDENTITY);
    // Each from an address of their own, so the per-address cap is not what stops them.
    const members = await Promise.all(
      Array.from({ length: people }, (_, person) => member(`Guest ${person}`, `198.51.100.${person}`))
    );
    // Then everyone arrives at once, as a busy room fills: no one is over a
    // cap until the room is full, so all of these are admitted (were one
    // refused, the late arrival below would get in).
    const sockets = (
      await Promise.all(
        members.map((headers, person) => {
          const mine = Math.min(MAX_SOCKETS_PER_IDENTITY, MAX_SOCKETS_PER_ROOM - person * MAX_SOCKETS_PER_IDENTITY);
          return Promise.all(Array.from({ length: mine }, () => connect(roomPath(ws, room.id), headers)));
        })
      )
    ).flat();
    expect(sockets.length).toBe(MAX_SOCKETS_PER_ROOM);
    // Someone new, with no socket of their own yet, is still refused: the room is full.
    const late = await connect(roomPath(ws, room.id), await member("Late", "198.51.101.1"));
    expect((await late.closed).code).toBe(4429);
    // One leaves; the next person gets in.
    const leaving = sockets.pop();
    leaving?.ws.close();
    await leaving?.closed;
    const next = await connect(roomPath(ws, room.id), await member("Next", "198.51.101.2"));
    await next.next((f) => f?.type === "rooms_presence" && f.users.some((u: { name: string }) => u.name === "Next"));
    for (const socket of [...sockets, next]) socket.ws.close();
  }, 180_000);

  it("caps the sockets one address holds in a room, however many people sign in from it (IPv6 by its /64)", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const prefix = "2001:db8:1:7";
    const people = Math.ceil(MAX_SOCKETS_PER_ADDRESS / MAX_SOCKETS_PER_IDENTITY);
    const sockets = (
      await Promise.all(
        Array.from({ length: people }, async (_, person) => {
          // Fresh identities, and a fresh address in the same /64 for each.
          // Signed in from another network: new sessions are limited per address too.
          const headers = {
            ...(await signInFrom(`Minted ${person}`, `2001:db8:2:${person}::1`)).headers,
            "cf-connecting-ip": `${prefix}::${person + 1}`
          };
          const mine = Math.min(MAX_SOCKETS_PER_IDENTITY, MAX_SOCKETS_PER_ADDRESS - person * MAX_SOCKETS_PER_IDENTITY);
          return Promise.all(Array.from({ length: mine }, () => connect(roomPath(ws, room.id), headers)));
        })
      )
    ).flat();
    const oneMore = await connect(roomPath(ws, room.id), {
      ...(await signIn("One more")).headers,
      "cf-connecting-ip": `${prefix}:0:0:0:ffff`
    });
    const closed = await oneMore.closed;
    expect(closed.code).toBe(4429);
    expect(closed.reason).toContain(`${MAX_SOCKETS_PER_ADDRESS} connections`);
    // Someone on another network still gets in, and the room is far from full.
    const elsewhere = await connect(roomPath(ws, room.id), {
      ...(await signIn("Elsewhere")).headers,
      "cf-connecting-ip": "2001:db8:ffff:1::1"
    });
    await elsewhere.next(
      (f) => f?.type === "rooms_presence" && f.users.some((u: { name: string }) => u.name === "Elsewhere")
    );
    // One of the network's sockets closes: its next one gets in.
    const leaving = sockets.pop();
    leaving?.ws.close();
    await leaving?.closed;
    const back = await connect(roomPath(ws, room.id), {
      ...(await signIn("Back")).headers,
      "cf-connecting-ip": `${prefix}::abcd`
    });
    await back.next((f) => f?.type === "rooms_presence" && f.users.some((u: { name: string }) => u.name === "Back"));
    for (const socket of [...sockets, elsewhere, back]) socket.ws.close();
  }, 120_000);

  it("validates workspace names on sockets too, and routes nothing but the overseer", async () => {
    for (const path of [
      "/agents/overseer-agent/Not_Valid",
      `/agents/overseer-agent/${"a".repeat(65)}`,
      "/agents/overseer-agent/..%2Fsecret",
      "/agents/overseer-agent/-leading-dash"
    ]) {
      const response = await exports.default.fetch(`${BASE}${path}`, { headers: { upgrade: "websocket" } });
      expect(response.status, path).toBe(400);
      expect((await response.json<ErrorBody>()).error.code, path).toBe("bad_request:workspace");
    }
    for (const path of ["/agents/auth-keeper/secret", "/agents/chat-room/anything", "/agents/overseer-agent"]) {
      const response = await exports.default.fetch(`${BASE}${path}`, { headers: { upgrade: "websocket" } });
      expect(response.status, path).toBe(404);
    }
  });
});

describe("wrong access tokens", () => {
  const TOKEN = "the right token";
  const guarded = { ...env, ACCESS_TOKEN: TOKEN };

  it("are throttled per address with 429 and Retry-After, while the right token still passes from there", async () => {
    const address = `192.0.2.${Math.floor(Math.random() * 250) + 1}`;
    const attempt = (token: string, from = address) =>
      callWith(
        "/api/session",
        {
          method: "POST",
          headers: { "content-type": "application/json", "cf-connecting-ip": from },
          body: JSON.stringify({ name: "Guesser", token })
        },
        guarded
      );
    for (let i = 0; i < RATE_LIMITS.tokenAttempts.burst; i++) expect((await attempt(`guess ${i}`)).status).toBe(401);
    const throttled = await attempt("one guess too many");
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(throttled.headers.get("set-cookie")).toBeNull();
    // Bearer guesses from that address are throttled too; other addresses are not.
    const bearer = (token: string) =>
      callWith("/api/rooms", { headers: { authorization: `Bearer ${token}`, "cf-connecting-ip": address } }, guarded);
    expect((await bearer("nope")).status).toBe(429);
    expect((await attempt("a guess from elsewhere", "198.51.100.77")).status).toBe(401);
    // Someone else guessing at the same address (a shared NAT) does not lock
    // out whoever holds the token: it signs in, and scripts keep working.
    const signedIn = await attempt(TOKEN);
    expect(signedIn.status).toBe(200);
    expect(signedIn.headers.get("set-cookie")).toMatch(/rooms_session=/);
    expect((await bearer(TOKEN)).status).toBe(200);
    // And passing does not refill the guesser's allowance.
    expect((await attempt("still guessing")).status).toBe(429);
    // A spoofed forwarding header does not move the guesser to a fresh allowance.
    const spoofed = await callWith(
      "/api/session",
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "cf-connecting-ip": address,
          "x-forwarded-for": "203.0.113.200",
          "x-real-ip": "203.0.113.200"
        },
        body: JSON.stringify({ name: "Guesser", token: "again" })
      },
      guarded
    );
    expect(spoofed.status).toBe(429);
  });
});

describe("new sessions", () => {
  it("are limited per address (IPv6 by its /64) with 429 and Retry-After; other addresses and signed-in people are not", async () => {
    const prefix = "2001:db8:5e55:1";
    const people = [];
    for (let i = 0; i < RATE_LIMITS.sessionStarts.burst; i++) {
      // A different address in the same /64 each time: the /64 is the address.
      people.push(await signInFrom(`Minted ${i}`, `${prefix}::${i + 1}`));
    }
    const refused = await api("/api/session", {
      method: "POST",
      json: { name: "One too many" },
      headers: { "cf-connecting-ip": `${prefix}:ffff:ffff:ffff:ffff` }
    });
    expect(refused.status).toBe(429);
    expect((await refused.json<ErrorBody>()).error.code).toBe("rate_limited:requests");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.headers.get("set-cookie")).toBeNull();
    // Someone on another network still signs in.
    await signInFrom("Elsewhere", "2001:db8:5e55:2::1");
    // Signing in again while signed in mints nothing, so it is not refused.
    const again = await api("/api/session", {
      method: "POST",
      json: { name: "Renamed" },
      headers: { ...people[0]?.headers, "cf-connecting-ip": `${prefix}::1` }
    });
    expect(again.status).toBe(200);
    expect((await again.json<{ user: Identity }>()).user.id).toBe(people[0]?.user.id);
  });

  it("are not limited when RATE_LIMIT_SCALE is 0", async () => {
    const address = "2001:db8:5e55:3::1";
    for (let i = 0; i <= RATE_LIMITS.sessionStarts.burst; i++) {
      const response = await callWith(
        "/api/session",
        {
          method: "POST",
          headers: { "content-type": "application/json", "cf-connecting-ip": address },
          body: JSON.stringify({ name: `Load ${i}` })
        },
        { ...env, RATE_LIMIT_SCALE: "0" }
      );
      expect(response.status).toBe(200);
    }
  });
});

describe("response headers", () => {
  it("carry the content security policy, nosniff and a strict referrer policy, errors included", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    for (const path of [
      "/api/rooms",
      "/api/nope",
      `/api/workspaces/${ws}/rooms/${room.id}/messages`,
      "/agents/x",
      // Answered by the room itself (a Durable Object's response, whose headers cannot change).
      `/agents/overseer-agent/${ws}/sub/chat-room/${room.id}`
    ]) {
      const response = await api(path);
      if (path.includes("/sub/")) {
        expect(response.status, path).toBe(404);
        expect(await response.json(), path).toMatchObject({
          error: { code: "not_found:route", message: expect.stringContaining("No such endpoint on a room") }
        });
      }
      expect(response.headers.get("content-security-policy"), path).toContain("frame-ancestors 'none'");
      expect(response.headers.get("content-security-policy"), path).toContain("script-src 'self';");
      expect(response.headers.get("x-content-type-options"), path).toBe("nosniff");
      expect(response.headers.get("referrer-policy"), path).toBe("no-referrer");
    }
  });
});
