/**
 * Auto mode over the real dev server and the fake provider: a question to
 * the room gets the assistant's answer, small talk between people gets
 * none, and a message naming a person makes no decision call at all. Each
 * decision and its reason is a span of the turn's trace; the fake answers
 * the decision request recognisably (tests/support/fake-openai.ts).
 */
import { describe, expect, it } from "vitest";
import type { TraceDetail, TraceList } from "@/shared/traces";
import { useSharedApp } from "../support/shared-app";
import { uniqueName } from "../support/wait";

const app = useSharedApp();

async function autoRoom() {
  const room = await app.api.createRoom();
  const patched = await app.api.call(`/${room.id}`, { method: "PATCH", json: { defaultResponder: "auto" } });
  expect(patched.status).toBe(200);
  return room;
}

/** The names of every span of every trace of the room. */
async function spanNames(roomId: string): Promise<string[]> {
  const list = (await (await app.api.call(`/${roomId}/traces?limit=50`)).json()) as TraceList;
  const names: string[] = [];
  for (const { traceId } of list.traces) {
    const detail = (await (await app.api.call(`/${roomId}/traces/${traceId}`)).json()) as TraceDetail;
    names.push(...detail.spans.map((s) => s.name));
  }
  return names;
}

describe("auto mode", () => {
  it("answers a question to the room and stays quiet on small talk, with the decision in the trace", async () => {
    const room = await autoRoom();
    const quiet = uniqueName("lunch");
    const chat = await app.api.send(room.id, `${quiet} sounds good, see you at noon`);
    expect(chat.status).toBe(200);
    expect(chat.body.assistantMessage).toBeNull();
    const decided = await app.fake.waitForRequest(quiet, (r) => r.decision === true);
    expect(decided.lastUserText).toContain("## Should the assistant answer the latest message?");
    // Only the decision went to the model: no answer was asked for.
    expect((await app.fake.requests(quiet)).filter((r) => !r.decision)).toEqual([]);

    const asked = uniqueName("capital");
    const question = await app.api.send(room.id, `${asked} what is the capital of France?`);
    expect(question.status).toBe(200);
    expect(question.body.assistantMessage?.parts?.map((p: { text?: string }) => p.text ?? "").join("")).toContain(
      `Echo: ${asked} what is the capital of France?`
    );
    // The decision saw the earlier small talk as context.
    const decision = await app.fake.waitForRequest(asked, (r) => r.decision === true);
    expect(decision.lastUserText).toContain(quiet);

    await expect
      .poll(() => spanNames(room.id), { timeout: 15_000 })
      .toEqual(
        expect.arrayContaining([
          "auto: stay quiet (fake: people talking to each other)",
          "auto: answer (fake: a question to the room)"
        ])
      );
    // Small talk stays in the room, marked as a message nobody was asked to answer.
    const { messages } = await app.api.messages(room.id);
    expect(messages.find((m) => JSON.stringify(m.parts).includes(quiet))?.metadata?.noReply).toBe(true);
  });

  it("leaves a message naming a person to them: no decision call, no answer", async () => {
    const room = await autoRoom();
    const marker = uniqueName("forBob");
    const sent = await app.api.send(room.id, `@Bob can you look at ${marker}?`);
    expect(sent.status).toBe(200);
    expect(sent.body.assistantMessage).toBeNull();
    expect(await app.fake.requests(marker)).toEqual([]);
    await expect.poll(() => spanNames(room.id), { timeout: 15_000 }).toContain("auto: stay quiet (addressed to @Bob)");
  });
});
