import { describe, expect, it } from "vitest";
import { chatRequest, isResponse, messageText } from "../support/chat-protocol";
import { restClient } from "../support/rest-client";
import { openSocket } from "../support/socket";
import { useTestApp } from "../support/test-app";
import { waitFor } from "../support/wait";

// Kills the dev server (and so every Durable Object) in the middle of an
// answer, starts it again on the same storage, and checks what survived.
const app = useTestApp({ vars: { MODEL_IDLE_TIMEOUT_MS: "3000" }, restartsServer: true });

describe("a server killed mid-answer", () => {
  // Generous: the test restarts the whole dev server, which takes long on a busy machine.
  it("keeps every acknowledged message and settles the interrupted answer after restart", {
    timeout: 240_000
  }, async () => {
    const api = restClient(app.url);
    const room = await api.createRoom({ name: "Survivor" });
    expect((await api.send(room.id, "before the crash")).status).toBe(200);

    const socket = await openSocket(api.roomSocketUrl(room.id));
    const { id, frame } = chatRequest(
      "[[fake:slow=150]] interrupted answer with quite a few words to stream out slowly"
    );
    socket.send(frame);
    // Wait until some of the answer has been streamed (and flushed to SQLite).
    await waitFor(
      async () =>
        socket.frames.filter((f) => isResponse(id)(f) && typeof f.body === "string" && f.body.includes("text-delta"))
          .length,
      (n) => n >= 12
    );
    await app.server.restart({ hard: true });

    // A client comes back: the room wakes, recovers, and the transcript settles.
    const back = await openSocket(api.roomSocketUrl(room.id));
    const settled = await waitFor(
      () => api.messages(room.id),
      (page) => {
        const last = page.messages.at(-1);
        return (
          page.messages.length >= 4 &&
          last?.role === "assistant" &&
          !last.parts.some((p: any) => p.state === "streaming")
        );
      },
      45_000
    );
    const [u1, a1, u2, a2] = settled.messages;
    expect(messageText(u1)).toBe("before the crash");
    expect(messageText(a1)).toBe("Echo: before the crash");
    expect(messageText(u2)).toContain("interrupted answer");
    // Recovery continued the interrupted answer from where it stopped: one
    // answer, complete, nothing repeated.
    expect(settled.messages).toHaveLength(4);
    expect(messageText(a2)).toBe("Echo: interrupted answer with quite a few words to stream out slowly");
    const continued = app.fake.requests.filter((r) => r.lastUserText?.includes("interrupted answer"));
    expect(continued.length).toBeGreaterThanOrEqual(2);
    expect(continued.at(-1)!.body.messages.at(-1).role).toBe("assistant");
    // The client that came back was told about the recovered answer live.
    expect(
      back.frames.some((f) => f.type === "cf_agent_use_chat_response" || f.type === "cf_agent_chat_messages")
    ).toBe(true);
    back.close();
  });
});
