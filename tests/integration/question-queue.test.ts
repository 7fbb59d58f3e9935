/**
 * The AI's queue through the running app, with three people: while the
 * room answers Alice, Bob's and Carol's questions wait. Bob withdraws his;
 * it stays in the transcript, marked, is never answered and never reaches
 * the model, Carol's is answered next, and the room answers the next
 * question as usual (the turn queued for Bob's is spent without an answer).
 * Nobody may withdraw another's question, nor one answered or being answered.
 */
import { afterEach, describe, expect, it } from "vitest";
import { chatRequest, isDone } from "../support/chat-protocol";
import { type RestClient, restClient, signIn } from "../support/rest-client";
import { useSharedApp } from "../support/shared-app";
import { openSocket, type Socket } from "../support/socket";
import { uniqueName, waitFor } from "../support/wait";

const app = useSharedApp();
const sockets: Socket[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.close();
});

/** A person with the room's REST API and, once `join` is called, a socket on the room (as a browser sends). */
async function person(name: string) {
  const as = await signIn(app.url, name);
  const rest = restClient(app.url, { workspace: app.workspace, as });
  return Object.assign(rest, {
    /** Sends over the room's socket, as the browser does (stored at once, answered in turn); resolves when done. */
    async ask(roomId: string, text: string) {
      const socket = await openSocket(rest.roomSocketUrl(roomId), as.headers);
      sockets.push(socket);
      const request = chatRequest(text);
      socket.send(request.frame);
      return socket.next(isDone(request.id), 30_000);
    }
  });
}

const withdraw = (as: RestClient, roomId: string, messageId: string) =>
  as.call(`/${roomId}/messages/${messageId}/withdraw`, { method: "POST", json: {} });

/** The stored message whose text holds `marker`, once the room has it. */
async function stored(as: RestClient, roomId: string, marker: string) {
  return waitFor(
    async () => (await as.messages(roomId)).messages.find((m) => JSON.stringify(m.parts).includes(marker)),
    (m) => m !== undefined
  );
}

describe("the AI's queue", () => {
  it("lets Bob withdraw his waiting question; it is kept, marked, and never answered", async () => {
    const [alice, bob, carol] = [await person("Alice"), await person("Bob"), await person("Carol")];
    const room = await alice.createRoom();
    const gate = uniqueName("gate");
    const [a, b, c] = [uniqueName("alice"), uniqueName("bob"), uniqueName("carol")];

    // Alice's answer holds its last chunk until the gate opens: Bob and Carol queue behind it.
    const aliceSent = alice.ask(room.id, `${a} first [[fake:chunks=3,gate=${gate}]]`);
    await app.fake.waitForRequest(a);
    const bobSent = bob.ask(room.id, `${b} second?`);
    const bobs = await stored(bob, room.id, b);
    const carolSent = carol.ask(room.id, `${c} third?`);
    const carols = await stored(carol, room.id, c);
    const alices = await stored(alice, room.id, a);

    // Only the author, and only while it waits.
    const byCarol = await withdraw(carol, room.id, bobs.id);
    expect(byCarol.status).toBe(403);
    expect(((await byCarol.json()) as { error: { code: string } }).error.code).toBe("forbidden:not_author");
    const answeredNow = await withdraw(alice, room.id, alices.id);
    expect(answeredNow.status).toBe(409);
    expect(((await answeredNow.json()) as { error: { code: string } }).error.code).toBe("conflict:not_queued");
    expect((await withdraw(bob, room.id, "no-such-message")).status).toBe(404);

    const withdrawn = await withdraw(bob, room.id, bobs.id);
    expect(withdrawn.status).toBe(200);
    expect(await withdrawn.json()).toEqual({ messageId: bobs.id, withdrawn: true });
    expect((await withdraw(bob, room.id, bobs.id)).status).toBe(409);

    await app.fake.openGate(gate);
    await Promise.all([aliceSent, bobSent, carolSent]);

    const { messages } = await bob.messages(room.id);
    const bobsNow = messages.find((m) => m.id === bobs.id);
    expect(bobsNow?.metadata).toMatchObject({ withdrawn: true, noReply: true });
    const answers = messages.filter((m) => m.role === "assistant");
    // One answer each for Alice and Carol, none for Bob.
    expect(answers.map((m) => m.metadata?.answers).sort()).toEqual([alices.id, carols.id].sort());
    // The model never saw Bob's question: not when it answered Carol, nor later.
    expect(await app.fake.requests(b)).toEqual([]);

    // The next question is answered as usual.
    const d = uniqueName("after");
    const after = await alice.send(room.id, `${d} and now?`);
    expect(after.status).toBe(200);
    expect(after.body.assistantMessage?.metadata?.answers).toBe(after.body.userMessage.id);
    expect(await app.fake.requests(b)).toEqual([]);
  });
});
