import { describe, expect, it } from "vitest";
import { outboxRequestFrame } from "../../src/shared/outbox";
import { api, chatRequest, connect, createRoom, isDone, roomPath, signIn, uniqueName } from "./helpers";

async function userTexts(ws: string, roomId: string): Promise<string[]> {
  const page = await (await api(`/api/workspaces/${ws}/rooms/${roomId}/messages?limit=200`)).json<any>();
  return (page.messages as any[]).filter((m) => m.role === "user").map((m) => m.parts[0].text);
}

describe("outbox sends (client message ids)", () => {
  it("stores a resent message once and acknowledges every copy", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const socket = await connect(roomPath(ws, room.id));
    const send = { id: crypto.randomUUID(), text: "only once please", createdAt: Date.now() };
    const first = crypto.randomUUID();
    socket.send(outboxRequestFrame(first, send));
    const ack = await socket.next((f) => f?.type === "rooms_ack" && f.clientMessageId === send.id);
    expect(ack.duplicate).toBe(false);
    await socket.next(isDone(first), 20_000);

    // The same send again, as after a reconnect, on another socket too.
    const other = await connect(roomPath(ws, room.id));
    const second = crypto.randomUUID();
    other.send(outboxRequestFrame(second, send));
    const again = await other.next((f) => f?.type === "rooms_ack" && f.clientMessageId === send.id);
    expect(again.duplicate).toBe(true);
    const settled = await other.next(isDone(second));
    expect(settled.outcome).toBe("skipped");

    expect(await userTexts(ws, room.id)).toEqual(["only once please"]);
    socket.ws.close();
    other.ws.close();
    // The first answer in a fresh workerd also waits for it to warm up.
  }, 90_000);

  it("stores two copies sent back to back once", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const socket = await connect(roomPath(ws, room.id));
    const send = { id: crypto.randomUUID(), text: "racing copies", createdAt: Date.now() };
    const [r1, r2] = [crypto.randomUUID(), crypto.randomUUID()];
    socket.send(outboxRequestFrame(r1, send));
    socket.send(outboxRequestFrame(r2, send));
    await socket.next(isDone(r1), 20_000);
    await socket.next(isDone(r2), 20_000);
    expect(await userTexts(ws, room.id)).toEqual(["racing copies"]);
    socket.ws.close();
  });

  it("never treats an outbox send as an edit of a stored message", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const socket = await connect(roomPath(ws, room.id));
    const original = chatRequest("the original question");
    socket.send(original.frame);
    await socket.next(isDone(original.id), 20_000);
    // Same id as a stored message, different text: a duplicate, not an edit.
    const sneaky = { id: original.message.id, text: "rewritten history", createdAt: Date.now() };
    const requestId = crypto.randomUUID();
    socket.send(outboxRequestFrame(requestId, sneaky));
    await socket.next(isDone(requestId));
    expect(await userTexts(ws, room.id)).toEqual(["the original question"]);
    socket.ws.close();
  });

  it("refuses a client message id that is not the sent message's id", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const socket = await connect(roomPath(ws, room.id));
    const frame = JSON.parse(outboxRequestFrame("req-1", { id: "abcdefgh-1", text: "x", createdAt: 1 }));
    const body = JSON.parse(frame.init.body);
    body.clientMessageId = "abcdefgh-2";
    frame.init.body = JSON.stringify(body);
    socket.send(frame);
    const error = await socket.next((f) => f?.type === "rooms_error");
    expect(error.code).toBe("bad_request:body");
    expect(await userTexts(ws, room.id)).toEqual([]);
    socket.ws.close();
  });
});

describe("stopping an answer", () => {
  it("records who stopped it in the answer's metadata", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const asker = await connect(roomPath(ws, room.id));
    const grace = await signIn("Grace");
    const stopper = await connect(roomPath(ws, room.id), grace.headers);
    const { id, frame } = chatRequest("a question someone else stops");
    asker.send(frame);
    await stopper.next(
      (f) => f?.type === "cf_agent_use_chat_response" && f.id === id && String(f.body).includes("text-delta")
    );
    stopper.send({ type: "cf_agent_chat_request_cancel", id });
    await asker.next(isDone(id), 10_000);
    await expect
      .poll(async () => {
        const page = await (await api(`/api/workspaces/${ws}/rooms/${room.id}/messages`)).json<any>();
        return page.messages.at(-1)?.metadata;
      })
      .toMatchObject({ stopped: true, stoppedBy: { id: grace.user.id, name: "Grace" } });
    asker.ws.close();
    stopper.ws.close();
  });
});
