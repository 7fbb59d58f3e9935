/**
 * Emoji reactions through the real Worker: the toggle over REST, live on
 * everyone's socket (share viewers included, who can only watch), carried
 * by history pages, a socket's greeting and the exports; every bad input
 * refused with its code, and nothing kept of it.
 */
import { describe, expect, it } from "vitest";
import type { ErrorBody } from "../../src/shared/errors";
import type { MessagePage, SendMessageResult } from "../../src/shared/protocol";
import { MAX_REACTIONS_PER_MESSAGE, type ReactionToggleResult } from "../../src/shared/reactions";
import type { ShareLink } from "../../src/shared/shares";
import { api, connect, createRoom, roomPath, type SignedIn, signIn, trackedSockets, uniqueName } from "./helpers";

const rooms = (ws: string) => `/api/workspaces/${ws}/rooms`;
/** Sockets this file opens, closed after each test. */
const track = trackedSockets();

async function roomWithMessage(ws: string, as: SignedIn) {
  const room = await createRoom(ws);
  const sent = await api(`${rooms(ws)}/${room.id}/messages`, {
    method: "POST",
    json: { text: "Shall we ship on Friday?" },
    headers: as.headers
  });
  expect(sent.status).toBe(200);
  return { room, message: (await sent.json<SendMessageResult>()).userMessage };
}

function react(ws: string, roomId: string, messageId: string, emoji: unknown, as?: SignedIn) {
  return api(`${rooms(ws)}/${roomId}/messages/${messageId}/reactions`, {
    method: "POST",
    json: { emoji },
    headers: as?.headers
  });
}

const errorOf = async (response: Response) => (await response.json<ErrorBody>()).error;

type ReactionsFrame = {
  type: "rooms_reactions";
  reactions: Record<string, { emoji: string; by: { name: string }[] }[]>;
};
const isReactions = (frame: unknown): frame is ReactionsFrame =>
  (frame as { type?: string } | null)?.type === "rooms_reactions";

describe("reactions", () => {
  it("toggles per person, live on everyone's socket", async () => {
    const ws = uniqueName();
    const [ann, bob] = [await signIn("Ann"), await signIn("Bob")];
    const { room, message } = await roomWithMessage(ws, ann);
    const bobSocket = await track(connect(roomPath(ws, room.id), bob.headers));

    const first = await react(ws, room.id, message.id, "👍", ann);
    expect(first.status).toBe(200);
    expect(await first.json<ReactionToggleResult>()).toMatchObject({
      messageId: message.id,
      reacted: true,
      reactions: [{ emoji: "👍", by: [{ name: "Ann" }] }]
    });
    const live = (await bobSocket.next(isReactions)) as ReactionsFrame;
    expect(live.reactions[message.id]).toEqual([{ emoji: "👍", by: [expect.objectContaining({ name: "Ann" })] }]);

    await react(ws, room.id, message.id, "👍", bob);
    await react(ws, room.id, message.id, "🎉", bob);
    const taken = await react(ws, room.id, message.id, "👍", ann);
    expect(await taken.json<ReactionToggleResult>()).toMatchObject({
      reacted: false,
      reactions: [
        { emoji: "👍", by: [{ name: "Bob" }] },
        { emoji: "🎉", by: [{ name: "Bob" }] }
      ]
    });
    // Bob's socket saw each change, the last one the state after Ann took hers back.
    await bobSocket.next(
      (f) => isReactions(f) && f.reactions[message.id]?.map((r) => r.by.map((p) => p.name).join()).join() === "Bob,Bob"
    );
  });

  it("history pages, a new socket's greeting and the exports carry them; the message is not rewritten", async () => {
    const ws = uniqueName();
    const [ann, bob] = [await signIn("Ann"), await signIn("Bob")];
    const { room, message } = await roomWithMessage(ws, ann);
    await react(ws, room.id, message.id, "👍", bob);
    await react(ws, room.id, message.id, "🎉", bob);

    const page = await (await api(`${rooms(ws)}/${room.id}/messages`, { headers: ann.headers })).json<MessagePage>();
    expect(page.reactions?.[message.id]?.map((r) => r.emoji)).toEqual(["👍", "🎉"]);
    expect(page.messages.find((m) => m.id === message.id)).toEqual(message);

    const late = await track(connect(roomPath(ws, room.id), ann.headers));
    const greeting = (await late.next(isReactions)) as ReactionsFrame;
    expect(greeting.reactions[message.id]?.map((r) => r.emoji)).toEqual(["👍", "🎉"]);

    const json = await (await api(`${rooms(ws)}/${room.id}/export`)).json<{ reactions?: Record<string, unknown[]> }>();
    expect(json.reactions?.[message.id]).toHaveLength(2);
    const markdown = await (await api(`${rooms(ws)}/${room.id}/export?format=markdown`)).text();
    expect(markdown).toContain("_Reactions: 👍 Bob · 🎉 Bob_");
  });

  it("a share link's viewer sees reactions live but has no way to react", async () => {
    const ws = uniqueName();
    const ann = await signIn("Ann");
    const { room, message } = await roomWithMessage(ws, ann);
    const shared = await api(`${rooms(ws)}/${room.id}/shares`, { method: "POST", json: {}, headers: ann.headers });
    const token = (await shared.json<ShareLink>()).path.replace(/^\/share\//, "");
    const viewer = await track(connect(`/api/share/${token}/socket`));
    await react(ws, room.id, message.id, "👀", ann);
    expect(((await viewer.next(isReactions)) as ReactionsFrame).reactions[message.id]?.[0]?.emoji).toBe("👀");
    const viaLink = await api(`/api/share/${token}/messages/${message.id}/reactions`, {
      method: "POST",
      json: { emoji: "👍" }
    });
    expect(viaLink.status).toBe(404);
    const page = await (await api(`${rooms(ws)}/${room.id}/messages`)).json<MessagePage>();
    expect(page.reactions?.[message.id]?.map((r) => r.emoji)).toEqual(["👀"]);
  });

  it("refuses what is not one emoji, an unknown message or room", async () => {
    const ws = uniqueName();
    const ann = await signIn("Ann");
    const { room, message } = await roomWithMessage(ws, ann);
    for (const emoji of ["", "a", "ok", "👍👍", "👍 ", "<b>", "🏳️‍🌈".repeat(5), 42, null]) {
      const response = await react(ws, room.id, message.id, emoji, ann);
      expect(response.status, JSON.stringify(emoji)).toBe(400);
      expect((await errorOf(response)).code).toBe("bad_request:body");
    }
    const extra = await api(`${rooms(ws)}/${room.id}/messages/${message.id}/reactions`, {
      method: "POST",
      json: { emoji: "👍", author: "Mallory" },
      headers: ann.headers
    });
    expect(extra.status).toBe(400);
    // A flag, a keycap, a skin tone and a family are each one emoji.
    for (const emoji of ["🇫🇷", "1️⃣", "👍🏽", "👨‍👩‍👧"]) {
      expect((await react(ws, room.id, message.id, emoji, ann)).status, emoji).toBe(200);
    }

    const unknownMessage = await react(ws, room.id, "no-such-message", "👍", ann);
    expect(unknownMessage.status).toBe(404);
    expect((await errorOf(unknownMessage)).code).toBe("not_found:message");
    const unknownRoom = await react(ws, "no-such-room", message.id, "👍", ann);
    expect(unknownRoom.status).toBe(404);
    expect((await errorOf(unknownRoom)).code).toBe("not_found:room");
    const otherWorkspace = await react(uniqueName(), room.id, message.id, "👍", ann);
    expect(otherWorkspace.status).toBe(404);
  });

  it("takes at most a bounded number of different emoji on one message", async () => {
    const ws = uniqueName();
    const ann = await signIn("Ann");
    const { room, message } = await roomWithMessage(ws, ann);
    for (const emoji of ["🇫🇷", "1️⃣", "👍🏽", "👨‍👩‍👧"]) await react(ws, room.id, message.id, emoji, ann);

    const many = ["😀", "😃", "😄", "😁", "😆", "😅", "🤣", "😂", "🙂", "🙃", "😉", "😊", "😇", "🥰", "😍", "🤩"];
    for (const emoji of many.slice(0, MAX_REACTIONS_PER_MESSAGE - 4)) {
      expect((await react(ws, room.id, message.id, emoji, ann)).status).toBe(200);
    }
    const full = await react(ws, room.id, message.id, "🤯", ann);
    expect(full.status).toBe(409);
    expect((await errorOf(full)).code).toBe("conflict:reaction_limit");
    // One already there can still be added by someone else, or taken back.
    const bob = await signIn("Bob");
    expect((await react(ws, room.id, message.id, "🇫🇷", bob)).status).toBe(200);
    const page = await (await api(`${rooms(ws)}/${room.id}/messages`)).json<MessagePage>();
    const kinds = page.reactions?.[message.id] ?? [];
    expect(kinds).toHaveLength(MAX_REACTIONS_PER_MESSAGE);
    expect(kinds.some((r) => r.emoji === "🤯")).toBe(false);
    expect(kinds.find((r) => r.emoji === "🇫🇷")?.by.map((p) => p.name)).toEqual(["Ann", "Bob"]);
  });
});

/** A persona of the room, through the REST route (tools: the route's default unless given). */
async function addPersona(ws: string, roomId: string, body: Record<string, unknown>): Promise<{ id: string }> {
  const response = await api(`${rooms(ws)}/${roomId}/personas`, { method: "POST", json: body });
  expect(response.status).toBe(201);
  return response.json<{ id: string }>();
}

async function send(ws: string, roomId: string, text: string) {
  const sent = await api(`${rooms(ws)}/${roomId}/messages`, { method: "POST", json: { text } });
  expect(sent.status).toBe(200);
  return (await sent.json<SendMessageResult>()).userMessage;
}

const page = async (ws: string, roomId: string) => (await api(`${rooms(ws)}/${roomId}/messages`)).json<MessagePage>();

// The offline model reacts when a message only thanks or agrees and the persona may use `react`
// (src/server/model/offline-model.ts): the same tool call a real model makes.
describe("personas that react instead of answering", () => {
  it("put their emoji on the question under their own name, leave no empty answer, and settle the question", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const ada = await addPersona(ws, room.id, { name: "Ada" });
    const bob = await addPersona(ws, room.id, { name: "Bob" });
    const watcher = await track(connect(roomPath(ws, room.id)));

    const thanks = await send(ws, room.id, "@Ada @Bob thanks!");
    const { messages, reactions } = await page(ws, room.id);
    // Only the question: both answers were a reaction, so no persona message stays.
    expect(messages.map((m) => m.id)).toEqual([thanks.id]);
    expect(messages[0]?.metadata).toMatchObject({ noReply: true });
    expect(reactions?.[thanks.id]).toEqual([
      {
        emoji: "🙏",
        by: expect.arrayContaining([
          { id: `persona:${ada.id}`, name: "@Ada" },
          { id: `persona:${bob.id}`, name: "@Bob" }
        ])
      }
    ]);
    expect(reactions?.[thanks.id]?.[0]?.by).toHaveLength(2);
    // Everyone connected saw the reaction arrive, and then the window without the empty answers.
    await watcher.next((f) => isReactions(f) && f.reactions[thanks.id]?.[0]?.emoji === "🙏");
    await watcher.next(
      (f) =>
        (f as { type?: string })?.type === "cf_agent_chat_messages" &&
        (f as { messages: { id: string }[] }).messages.map((m) => m.id).join() === thanks.id
    );

    // The next question is answered as usual: the reacted one is not in the queue any more.
    const question = await send(ws, room.id, "@Ada what should we ship first?");
    const after = (await page(ws, room.id)).messages;
    expect(after.map((m) => [m.role, m.metadata?.answers ?? null])).toEqual([
      ["user", null],
      ["user", null],
      ["assistant", question.id]
    ]);
  });

  it("answer in words when there is more to say, when not allowed to react, and in a panel", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    await addPersona(ws, room.id, { name: "Ada" });
    await addPersona(ws, room.id, { name: "Bob", tools: ["remember"] });

    const mixed = await send(ws, room.id, "@Ada thanks, and what should we ship first?");
    const notAllowed = await send(ws, room.id, "@Bob thanks!");
    const panel = await send(ws, room.id, "/panel thanks!");
    const { messages, reactions } = await page(ws, room.id);
    const answersTo = (id: string) => messages.filter((m) => m.metadata?.answers === id);
    expect(answersTo(mixed.id)).toHaveLength(1);
    expect(answersTo(notAllowed.id)).toHaveLength(1);
    expect(answersTo(panel.id)).toHaveLength(3); // two panellists and the synthesis
    for (const message of messages.filter((m) => m.role === "assistant")) {
      expect(message.parts.some((p) => p.type === "text" && p.text.length > 0)).toBe(true);
    }
    expect(reactions ?? {}).toEqual({});
  });
});
