import { describe, expect, it } from "vitest";
import { chatRequest, isDone, messageText } from "../support/chat-protocol";
import { useSharedApp } from "../support/shared-app";
import { openSocket, type Socket } from "../support/socket";

// Many sockets across many rooms, all sending at once, on loopback only and
// bounded in count and time. Afterwards every acknowledged message must be
// stored exactly once, in each sender's order.
const ROOMS = 8;
const CLIENTS_PER_ROOM = 5;
const MESSAGES_PER_CLIENT = 4;

const app = useSharedApp();

describe("load", () => {
  it(`stores every acknowledged message exactly once with ${ROOMS * CLIENTS_PER_ROOM} clients in ${ROOMS} rooms`, async () => {
    const api = app.api;
    const rooms = await Promise.all(Array.from({ length: ROOMS }, (_, i) => api.createRoom({ name: `load ${i}` })));
    const sockets: Array<{ roomId: string; sender: string; socket: Socket }> = [];
    for (const room of rooms) {
      for (let c = 0; c < CLIENTS_PER_ROOM; c++) {
        sockets.push({
          roomId: room.id,
          sender: `${room.id}-c${c}`,
          socket: await openSocket(api.roomSocketUrl(room.id))
        });
      }
    }

    const acknowledged = new Map<string, string[]>(); // sender -> texts in send order
    const deadline = Date.now() + 90_000;
    await Promise.all(
      sockets.map(async ({ sender, socket }) => {
        const texts: string[] = [];
        for (let m = 0; m < MESSAGES_PER_CLIENT && Date.now() < deadline; m++) {
          const text = `${sender} message ${m}`;
          const { id, frame } = chatRequest(text, { author: sender });
          socket.send(frame);
          const done = await socket.next(isDone(id), 60_000);
          if (!done.error) texts.push(text);
        }
        acknowledged.set(sender, texts);
      })
    );
    for (const { socket } of sockets) socket.close();

    const total = [...acknowledged.values()].reduce((n, texts) => n + texts.length, 0);
    expect(total).toBe(ROOMS * CLIENTS_PER_ROOM * MESSAGES_PER_CLIENT);

    for (const room of rooms) {
      const stored: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { messages: any[]; nextCursor: string | null } = await api.messages(
          room.id,
          `?limit=200${cursor ? `&before=${cursor}` : ""}`
        );
        stored.unshift(...page.messages.filter((m) => m.role === "user").map(messageText));
        cursor = page.nextCursor;
      } while (cursor);
      for (const [sender, texts] of acknowledged) {
        if (!sender.startsWith(room.id)) continue;
        const mine = stored.filter((text) => text.startsWith(`${sender} `));
        // Exactly once each, in the order this sender sent them.
        expect(mine).toEqual(texts);
      }
      // Every question got its own answer.
      const page = await api.messages(room.id, "?limit=200");
      const answers = page.messages.filter((m) => m.role === "assistant").map((m) => m.metadata?.answers);
      expect(new Set(answers).size).toBe(answers.length);
    }
  }, 150_000);
});
