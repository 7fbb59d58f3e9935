import { describe, expect, it } from "vitest";
import { TASK_SYSTEM_PROMPT } from "@/server/domain/facets/delegation-limits";
import { messageText } from "../support/chat-protocol";
import { toolDirective } from "../support/fake-openai";
import { restClient } from "../support/rest-client";
import { useTestApp } from "../support/test-app";
import { uniqueName, waitFor } from "../support/wait";

// Every per-task limit hit once through the real app, with limits the
// deployment set (TASK_* variables), each ending with its reason recorded in
// the transcript. The wall time is short enough to wait for and long enough
// that the other tasks here, a step or two each, never reach it.
const app = useTestApp({
  vars: { TASK_MAX_STEPS: "2", TASK_MAX_TOKENS: "600", TASK_WALL_TIME_MS: "8000" }
});

const delegateDirective = (args: Record<string, unknown>) => toolDirective("delegate", args);
const taskRequests = (marker: string) =>
  app.fake.requests.filter((r) => r.systemText?.includes(TASK_SYSTEM_PROMPT) && r.lastUserText?.includes(marker));

async function delegateOutputOf(api: ReturnType<typeof restClient>, roomId: string) {
  const { messages } = await api.messages(roomId);
  return messages.at(-1)?.parts.find((p: any) => p.type === "tool-delegate")?.output;
}

describe("delegation limits set by the deployment", () => {
  it("ends a task that runs out of steps while still calling tools", async () => {
    const api = restClient(app.url, { workspace: uniqueName("ws") });
    const room = await api.createRoom();
    // The same call each step: the two steps run out before loop detection (three) would end it.
    const task = "Count steps [[fake:tool=get_current_time,loop]]";
    expect((await api.send(room.id, `Go ${delegateDirective({ task })}`)).status).toBe(200);
    expect(taskRequests("Count steps")).toHaveLength(2);
    expect(await delegateOutputOf(api, room.id)).toMatchObject({
      ok: false,
      limit: "The task used its 2 steps without finishing and was ended."
    });
  });

  it("ends a task that spends more tokens than allowed", async () => {
    const api = restClient(app.url, { workspace: uniqueName("ws") });
    const room = await api.createRoom();
    // About 750 prompt tokens in the first step alone (the fake counts 4 characters a token).
    const task = `Read this: ${"lorem ipsum ".repeat(250)}[[fake:tool=get_current_time]]`;
    expect((await api.send(room.id, `Go ${delegateDirective({ task })}`)).status).toBe(200);
    expect(taskRequests("Read this")).toHaveLength(1);
    expect(await delegateOutputOf(api, room.id)).toMatchObject({
      ok: false,
      limit: "The task used more than 600 tokens and was ended."
    });
  });

  it("stops a waited-for task at its wall time and aborts its upstream request", async () => {
    const api = restClient(app.url, { workspace: uniqueName("ws") });
    const room = await api.createRoom();
    const started = Date.now();
    const sent = await api.send(room.id, `Go ${delegateDirective({ task: "Think forever [[fake:hang]]" })}`);
    expect(sent.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(8_000);
    const [upstream] = taskRequests("Think forever");
    await app.fake.waitForClientClose(upstream.id, 15_000);
    expect(await delegateOutputOf(api, room.id)).toMatchObject({
      ok: false,
      limit: "The task ran longer than 8 s and was stopped."
    });
  });

  it("stops a background task at its wall time and posts why", async () => {
    const api = restClient(app.url, { workspace: uniqueName("ws") });
    const room = await api.createRoom();
    const sent = await api.send(
      room.id,
      `Later ${delegateDirective({ task: "Dream forever [[fake:hang]]", background: true })}`
    );
    expect(sent.status).toBe(200);
    const page = await waitFor(
      () => api.messages(room.id),
      (p) => p.messages.some((m: any) => m.metadata?.task),
      60_000
    );
    const posted = page.messages.find((m: any) => m.metadata?.task);
    expect(posted.metadata.task).toMatchObject({ asked: "Dream forever [[fake:hang]]" });
    expect(messageText(posted)).toBe("The task ran longer than 8 s and was stopped.");
    expect(posted.metadata.error).toBe("The task ran longer than 8 s and was stopped.");
    const [upstream] = taskRequests("Dream forever");
    await app.fake.waitForClientClose(upstream.id, 15_000);
  });
});
