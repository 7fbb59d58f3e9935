/**
 * Signing out and renaming through the real Worker: a session cookie is good
 * only while its identity's session generation stands (AuthKeeper
 * "session:<id>"), and carries the identity's current name, not the one it
 * was issued with.
 */
import { describe, expect, it } from "vitest";
import type { Identity } from "@/shared/identity";
import { api, createRoom, history, sessionCookie, signIn, uniqueName } from "./helpers";

async function whoIs(cookie: string): Promise<{ status: number; user?: Identity }> {
  const response = await api("/api/session", { headers: { cookie } });
  return { status: response.status, user: response.ok ? (await response.json<{ user: Identity }>()).user : undefined };
}

describe("session revocation", () => {
  it("a cookie issued before a rename answers with the new name", async () => {
    const ann = await signIn("Ann");
    const renamed = await api("/api/session", { method: "PATCH", headers: ann.headers, json: { name: "Annie" } });
    expect(renamed.status).toBe(200);
    expect(await whoIs(ann.cookie)).toEqual({ status: 200, user: { ...ann.user, name: "Annie" } });

    // And writes under it.
    const ws = uniqueName();
    const room = await createRoom(ws);
    const sent = await api(`/api/workspaces/${ws}/rooms/${room.id}/messages`, {
      method: "POST",
      headers: ann.headers,
      json: { text: "from the old cookie" }
    });
    expect(sent.status).toBe(200);
    expect((await history(ws, room.id))[0].metadata.author).toEqual({ id: ann.user.id, name: "Annie" });
  });

  it("signing out ends every cookie of the identity, the one it signed out with and older ones", async () => {
    const ann = await signIn("Ann");
    const renamed = await api("/api/session", { method: "PATCH", headers: ann.headers, json: { name: "Annie" } });
    const newer = sessionCookie(renamed);
    expect((await whoIs(newer)).status).toBe(200);

    const out = await api("/api/session", { method: "DELETE", headers: { cookie: newer } });
    expect(out.status).toBe(204);
    for (const cookie of [newer, ann.cookie]) expect((await whoIs(cookie)).status).toBe(401);

    // On an open server a dead cookie is no one in particular, never Ann.
    const ws = uniqueName();
    const room = await createRoom(ws);
    await api(`/api/workspaces/${ws}/rooms/${room.id}/messages`, {
      method: "POST",
      headers: { cookie: ann.cookie },
      json: { text: "who am I" }
    });
    expect((await history(ws, room.id))[0].metadata.author).toEqual({ id: "api", name: "API" });
    // Nor can it rename what is gone.
    expect(
      (await api("/api/session", { method: "PATCH", headers: { cookie: newer }, json: { name: "X" } })).status
    ).toBe(401);
  });

  it("signing out one person leaves another's session alone", async () => {
    const [ann, ben] = [await signIn("Ann"), await signIn("Ben")];
    expect((await api("/api/session", { method: "DELETE", headers: ann.headers })).status).toBe(204);
    expect(await whoIs(ben.cookie)).toEqual({ status: 200, user: ben.user });
    // A new sign-in after signing out is a new identity, and it works.
    const again = await signIn("Ann");
    expect(again.user.id).not.toBe(ann.user.id);
    expect((await whoIs(again.cookie)).status).toBe(200);
  });
});
