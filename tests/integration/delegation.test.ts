import { describe, expect, it } from "vitest";
import { LOOP_REPEAT_LIMIT, MAX_TASKS_PER_ROOM, TASK_SYSTEM_PROMPT } from "@/server/domain/facets/delegation-limits";
import { messageText } from "../support/chat-protocol";
import { toolDirective } from "../support/fake-openai";
import { useSharedApp } from "../support/shared-app";
import { uniqueName, waitFor } from "../support/wait";

// Delegation over the real dev server: the room's assistant (driven by the
// fake provider) calls `delegate`; a TaskAgent facet answers through the
// same fake provider with only the task and the excerpts as its context.
const app = useSharedApp();

const delegateDirective = (args: Record<string, unknown>) => toolDirective("delegate", args);
/** The task requests that carry `marker` (in the task or its excerpts). */
const taskRequests = async (marker: string) =>
  (await app.fake.requests(marker)).filter((r) => r.systemText?.includes(TASK_SYSTEM_PROMPT));

function delegateOutput(message: any) {
  const part = message.parts.find((p: any) => p.type === "tool-delegate");
  return part?.output;
}

describe("delegation", () => {
  it("runs a task with only the task and its excerpts as context, and uses the result", async () => {
    const api = app.api;
    const room = await api.createRoom();
    expect((await api.send(room.id, "secret room chatter")).status).toBe(200);
    const launch = `The launch is Friday (${uniqueName("launch")}).`;
    const sent = await api.send(
      room.id,
      `Please delegate ${delegateDirective({ task: "Summarise the excerpt", excerpts: [launch] })}`
    );
    expect(sent.status).toBe(200);

    const [task] = await taskRequests(launch);
    expect(task.lastUserText).toBe(`Summarise the excerpt\n\nExcerpts from the room:\n> ${launch}`);
    expect(JSON.stringify(task.body.messages)).not.toContain("secret room chatter");

    const { messages } = await api.messages(room.id);
    const answer = messages.at(-1);
    expect(delegateOutput(answer)).toMatchObject({
      ok: true,
      status: "completed",
      result: expect.stringContaining("Echo: Summarise the excerpt")
    });
    expect(messageText(answer)).toContain("Tool said:");
  });

  it(`ends a task that repeats the same tool call ${LOOP_REPEAT_LIMIT} times, with a clear reason`, async () => {
    const api = app.api;
    const room = await api.createRoom();
    const forever = uniqueName("Check the time forever");
    const sent = await api.send(
      room.id,
      `Go ${delegateDirective({ task: `${forever} [[fake:tool=get_current_time,loop]]` })}`
    );
    expect(sent.status).toBe(200);
    expect(await taskRequests(forever)).toHaveLength(LOOP_REPEAT_LIMIT);
    const { messages } = await api.messages(room.id);
    expect(delegateOutput(messages.at(-1))).toMatchObject({
      ok: false,
      limit: expect.stringContaining(`same arguments ${LOOP_REPEAT_LIMIT} times`)
    });
  });

  it("refuses delegation from inside a task (nesting depth)", async () => {
    const api = app.api;
    const room = await api.createRoom();
    const inner = delegateDirective({ task: "deeper" });
    const sent = await api.send(room.id, `Nest ${delegateDirective({ task: `Delegate again ${inner}` })}`);
    expect(sent.status).toBe(200);
    const { messages } = await api.messages(room.id);
    expect(delegateOutput(messages.at(-1))).toMatchObject({
      ok: false,
      limit: expect.stringContaining("nesting depth")
    });
  });

  it("runs tasks in the background, posts each result as a message from that task, and caps tasks at once", async () => {
    const api = app.api;
    const room = await api.createRoom();
    const quick = await api.send(room.id, `Later ${delegateDirective({ task: "Background job", background: true })}`);
    expect(quick.status).toBe(200);
    const posted = await waitFor(
      () => api.messages(room.id),
      (page) => page.messages.some((m) => m.metadata?.task),
      30_000
    );
    const result = posted.messages.find((m) => m.metadata?.task);
    expect(result.metadata.task).toMatchObject({ asked: "Background job", status: "completed" });
    expect(messageText(result)).toBe("Echo: Background job");

    // Fill the room with tasks that never finish, then one more is refused.
    const stuckMarker = uniqueName("Stuck");
    for (let i = 0; i < MAX_TASKS_PER_ROOM; i++) {
      const sent = await api.send(
        room.id,
        `Hang ${i} ${delegateDirective({ task: `${stuckMarker} ${i} [[fake:hang]]`, background: true })}`
      );
      expect(sent.status).toBe(200);
    }
    const refused = await api.send(room.id, `One more ${delegateDirective({ task: "Too many", background: true })}`);
    expect(refused.status).toBe(200);
    const { messages } = await api.messages(room.id);
    expect(delegateOutput(messages.at(-1))).toMatchObject({
      ok: false,
      error: expect.stringContaining(`already runs ${MAX_TASKS_PER_ROOM} tasks`)
    });
    // Deleting the room stops the stuck tasks' upstream requests.
    const stuck = (await taskRequests(stuckMarker)).filter((r) => r.lastUserText?.startsWith(stuckMarker));
    expect(stuck).toHaveLength(MAX_TASKS_PER_ROOM);
    expect((await api.call(`/${room.id}`, { method: "DELETE" })).status).toBe(204);
    await Promise.all(stuck.map((r) => app.fake.waitForClientClose(r.id, 15_000)));
  });
});
