/**
 * Private asides through the real Worker, with two people in one room (the
 * offline model answers). Ann's aside answers her alone: Bob's history,
 * his socket, the room's export and search hold none of it, and its id is
 * 404 to him. Shared, it joins the room as Ann's question and its answer,
 * marked, live on Bob's socket; it can be shared once, and deleting it later
 * leaves the room's copy.
 */
import { describe, expect, it } from "vitest";
import type { Aside, AsideList } from "@/shared/asides";
import type { ErrorBody } from "@/shared/errors";
import {
  api,
  connect,
  createRoom,
  history,
  roomPath,
  type SignedIn,
  signIn,
  trackedSockets,
  uniqueName
} from "./helpers";

const track = trackedSockets();

const asides = (ws: string, roomId: string) => `/api/workspaces/${ws}/rooms/${roomId}/asides`;

async function code(response: Response): Promise<string> {
  return (await response.json<ErrorBody>()).error.code;
}

describe("private asides", () => {
  it("answer their asker alone until shared, then join the room for everyone", async () => {
    const ws = uniqueName();
    const [ann, bob] = [await signIn("Ann"), await signIn("Bob")];
    const room = await createRoom(ws);
    const as = (who: SignedIn, path = "", init: Parameters<typeof api>[1] = {}) =>
      api(`${asides(ws, room.id)}${path}`, { ...init, headers: { ...who.headers, ...init.headers } });
    // Bob is in the room, listening.
    const bobSocket = await track(connect(roomPath(ws, room.id), bob.headers));

    const marker = uniqueName("private");
    const asked = await as(ann, "", { method: "POST", json: { text: `${marker}: what did we decide?` } });
    expect(asked.status).toBe(201);
    const { aside } = await asked.json<{ aside: Aside }>();
    expect(aside).toMatchObject({ question: `${marker}: what did we decide?`, error: null, sharedAt: null });
    expect(aside.answer.length).toBeGreaterThan(0);

    // Ann lists it; for Bob it does not exist.
    expect((await (await as(ann)).json<AsideList>()).asides.map((a) => a.id)).toEqual([aside.id]);
    expect((await (await as(bob)).json<AsideList>()).asides).toEqual([]);
    const bobShares = await as(bob, `/${aside.id}/share`, { method: "POST", json: {} });
    expect(bobShares.status).toBe(404);
    expect(await code(bobShares)).toBe("not_found:aside");
    expect((await as(bob, `/${aside.id}`, { method: "DELETE" })).status).toBe(404);

    // Nowhere in the room: history, export, search, or anything Bob's socket was sent.
    expect(JSON.stringify(await history(ws, room.id))).not.toContain(marker);
    const exported = await api(`/api/workspaces/${ws}/rooms/${room.id}/export`, { headers: ann.headers });
    expect(exported.status).toBe(200);
    expect(await exported.text()).not.toContain(marker);
    const found = await api(`/api/workspaces/${ws}/search?q=${marker}`, { headers: ann.headers });
    expect(await found.text()).not.toContain(marker);
    expect(JSON.stringify(bobSocket.frames)).not.toContain(marker);

    // Shared: Ann's question and its answer, in the room, live for Bob.
    const shared = await as(ann, `/${aside.id}/share`, { method: "POST", json: {} });
    expect(shared.status).toBe(200);
    const sharedAside = (await shared.json<{ aside: Aside }>()).aside;
    expect(sharedAside.sharedAt).toEqual(expect.any(Number));
    await bobSocket.next((f: any) => JSON.stringify(f).includes(marker));
    const stored = await history(ws, room.id);
    expect(stored).toHaveLength(2);
    const [question, answer] = stored;
    expect(question).toMatchObject({ id: sharedAside.sharedMessageId, role: "user" });
    expect(question.metadata).toMatchObject({
      author: { id: ann.user.id, name: "Ann" },
      aside: { sharedAt: sharedAside.sharedAt }
    });
    expect(answer.metadata).toMatchObject({ answers: question.id, aside: { sharedAt: sharedAside.sharedAt } });
    expect(answer.parts[0].text).toBe(aside.answer);

    // Once only; deleting the aside keeps the room's copy.
    const again = await as(ann, `/${aside.id}/share`, { method: "POST", json: {} });
    expect(again.status).toBe(409);
    expect(await code(again)).toBe("conflict:aside_shared");
    expect((await as(ann, `/${aside.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await (await as(ann)).json<AsideList>()).asides).toEqual([]);
    expect(await history(ws, room.id)).toHaveLength(2);
  });

  it("refuses an empty or oversized question, and a malformed id, with nothing kept", async () => {
    const ws = uniqueName();
    const ann = await signIn("Ann");
    const room = await createRoom(ws);
    const post = (json: unknown) => api(asides(ws, room.id), { method: "POST", json, headers: ann.headers });
    for (const body of [{ text: "   " }, { text: "x".repeat(4_001) }, { text: 3 }, {}]) {
      const refused = await post(body);
      expect(refused.status, JSON.stringify(body).slice(0, 40)).toBe(400);
      expect(await code(refused)).toBe("bad_request:body");
    }
    const malformed = await api(`${asides(ws, room.id)}/not-an-aside/share`, {
      method: "POST",
      json: {},
      headers: ann.headers
    });
    expect(malformed.status).toBe(404);
    expect((await (await api(asides(ws, room.id), { headers: ann.headers })).json<AsideList>()).asides).toEqual([]);
  });
});
