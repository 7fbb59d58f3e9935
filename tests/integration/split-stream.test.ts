import { describe, expect, it } from "vitest";
import { chatRequest, isDone, messageText, textOf } from "../support/chat-protocol";
import { restClient } from "../support/rest-client";
import { openSocket } from "../support/socket";
import { useTestApp } from "../support/test-app";

// A provider on a network that cuts its server-sent events anywhere (inside
// lines, JSON strings and multi-byte characters), through the real app:
// workerd, the AI SDK, the stream guard, the room's socket.
const IDLE_TIMEOUT_MS = 2_000;
/** How long the paced answer streams, in real time; ROOMS_LONG_ANSWER_MS=600000 runs the full ten minutes. */
const LONG_ANSWER_MS = Number(process.env.ROOMS_LONG_ANSWER_MS) || 20_000;
const LONG_ANSWER_GAP_MS = 250;

const app = useTestApp({
  vars: { MODEL_IDLE_TIMEOUT_MS: String(IDLE_TIMEOUT_MS), RATE_LIMIT_SCALE: "0" }
});

const numbered = (count: number) => Array.from({ length: count }, (_, i) => `t${i} `).join("");

async function askAndWait(text: string, timeoutMs: number) {
  const api = restClient(app.url);
  const room = await api.createRoom();
  const socket = await openSocket(api.roomSocketUrl(room.id));
  const request = chatRequest(text);
  socket.send(request.frame);
  const done = await socket.next(isDone(request.id), timeoutMs);
  const history = await api.messages(room.id);
  socket.close();
  return { done, streamed: textOf(socket.frames, request.id), stored: history.messages.at(-1) };
}

describe("answers from a provider whose writes are cut at arbitrary bytes", () => {
  it("arrives whole and exact, multi-byte characters included, for several cut patterns", async () => {
    const words = "héllo wörld 中文字符 😀👩‍💻🏳️‍🌈 ünïcödé ✓ naïve café";
    for (const [seed, piece] of [
      [1, 1],
      [2, 3],
      [3, 7],
      [4, 24]
    ]) {
      const { done, streamed, stored } = await askAndWait(`[[fake:split=${seed},piece=${piece}]] ${words}`, 30_000);
      expect(done.error).toBeFalsy();
      expect(streamed).toBe(`Echo: ${words}`);
      expect(messageText(stored)).toBe(`Echo: ${words}`);
      expect(stored.metadata.error).toBeUndefined();
    }
  });

  it("streams a 10,000-chunk answer cut into pieces of 1 to 48 bytes to the end", async () => {
    const { done, streamed, stored } = await askAndWait("[[fake:chunks=10000,split=9,piece=48]] long", 240_000);
    expect(done.error).toBeFalsy();
    expect(streamed).toBe(numbered(10_000));
    expect(messageText(stored)).toBe(numbered(10_000));
  }, 300_000);

  it(
    `streams a paced answer for ${LONG_ANSWER_MS / 1000} s, many idle timeouts long, to the end`,
    async () => {
      const count = Math.ceil(LONG_ANSWER_MS / LONG_ANSWER_GAP_MS);
      const startedAt = Date.now();
      const { done, streamed, stored } = await askAndWait(
        `[[fake:chunks=${count},slow=${LONG_ANSWER_GAP_MS},split=5,piece=16]] paced`,
        LONG_ANSWER_MS + 120_000
      );
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(LONG_ANSWER_MS);
      expect(done.error).toBeFalsy();
      expect(streamed).toBe(numbered(count));
      expect(messageText(stored)).toBe(numbered(count));
    },
    LONG_ANSWER_MS + 180_000
  );
});
