import { describe, expect, it } from "vitest";
import type { Persona } from "../../src/shared/personas";
import type { RoomDetail } from "../../src/shared/protocol";
import { chatRequest, isDone, messageText } from "../support/chat-protocol";
import { toolDirective } from "../support/fake-openai";
import { useSharedApp } from "../support/shared-app";
import { openSocket } from "../support/socket";
import { uniqueName, waitFor } from "../support/wait";

// Personas over the real dev server: each persona is a facet of its room
// that calls the (fake) provider itself; the room relays the answers.
// Every persona's system prompt names its room, and rooms get unique names:
// `app.fake.requests(room.name)` is this room's persona requests only.
const app = useSharedApp();

async function roomWith(names: Array<string | { name: string; systemPrompt?: string; tools?: string[] }>) {
  const api = app.api;
  const room = await api.createRoom();
  const personas: Record<string, Persona> = {};
  for (const entry of names) {
    const body = typeof entry === "string" ? { name: entry, systemPrompt: `You are ${entry}.` } : entry;
    const response = await api.call(`/${room.id}/personas`, { method: "POST", json: body });
    expect(response.status).toBe(201);
    const persona = (await response.json()) as Persona;
    personas[persona.name] = persona;
  }
  return { api, room, personas };
}

describe("mentions", () => {
  it("are answered by the mentioned persona, with its own system prompt and its notes", async () => {
    const { api, room, personas } = await roomWith([
      { name: "Ada", systemPrompt: "You are Ada, a meticulous planner.", tools: ["remember", "recall"] }
    ]);
    const note = toolDirective("remember", { note: "the launch is on Friday" }, "Noted.");
    const first = await api.send(room.id, `@Ada please note this ${note}`);
    expect(first.status).toBe(200);

    const second = await api.send(room.id, "@Ada when is the launch?");
    expect(second.status).toBe(200);
    const request = (await app.fake.requests(room.name))
      .filter((r) => r.lastUserText?.includes("when is the launch"))
      .at(-1);
    expect(request).toBeDefined();
    const system = request!.systemText;
    expect(system).toContain("You are Ada, a meticulous planner.");
    expect(system).toContain("- the launch is on Friday");
    // The question reaches the persona as a named participant's words.
    expect(request!.lastUserText).toBe('[from person "API"] @Ada when is the launch?');

    const { messages } = await api.messages(room.id);
    const answers = messages.filter((m) => m.role === "assistant");
    expect(answers).toHaveLength(2);
    for (const answer of answers) expect(answer.metadata.persona).toEqual({ id: personas.Ada.id, name: "Ada" });
    expect(messageText(answers[0])).toBe("Noted.");
    expect(messageText(answers[1])).toBe('Echo: [from person "API"] @Ada when is the launch?');
    expect(answers[1].metadata.answers).toBe(messages.at(-2).id);
  });

  it("are answered by each mentioned persona in parallel, each streaming live as its own message", async () => {
    const { api, room, personas } = await roomWith(["Ada", "Bob"]);
    const socket = await openSocket(api.roomSocketUrl(room.id));
    const request = chatRequest("@Ada and @Bob, count for me [[fake:chunks=15,slow=60]]", { author: "Alice" });
    socket.send(request.frame);
    await socket.next(isDone(request.id), 60_000);

    // Live updates of both answers, in arrival order.
    const updates = socket.frames.filter((f) => f.type === "cf_agent_message_updated");
    const byPersona = updates.map((f) => f.message.metadata?.persona?.name as string);
    expect(new Set(byPersona)).toEqual(new Set(["Ada", "Bob"]));
    // Interleaved: the answers alternate at least twice, not one after the other.
    let switches = 0;
    for (let i = 1; i < byPersona.length; i++) if (byPersona[i] !== byPersona[i - 1]) switches++;
    expect(switches).toBeGreaterThanOrEqual(2);
    // Each update grows its own message, and never mixes in the other's text.
    const lastAda = updates.filter((f) => f.message.metadata.persona.name === "Ada").at(-1).message;
    expect(messageText(lastAda)).toMatch(/^t0 t1 /);

    // Both upstream requests overlapped in time.
    const calls = (await app.fake.requests(room.name)).filter((r) => r.lastUserText?.includes("count for me"));
    expect(calls).toHaveLength(2);
    const [a, b] = calls;
    expect(a.startedAt).toBeLessThan(b.finishedAt!);
    expect(b.startedAt).toBeLessThan(a.finishedAt!);
    expect(calls.map((c) => c.systemText).sort()).toEqual([
      expect.stringContaining("You are Ada."),
      expect.stringContaining("You are Bob.")
    ]);

    const { messages } = await api.messages(room.id);
    const answers = messages.filter((m) => m.role === "assistant");
    expect(answers.map((m) => m.metadata.persona)).toEqual([
      { id: personas.Ada.id, name: "Ada" },
      { id: personas.Bob.id, name: "Bob" }
    ]);
    for (const answer of answers)
      expect(messageText(answer)).toBe(Array.from({ length: 15 }, (_, i) => `t${i} `).join(""));
    socket.close();
  });

  it("show other personas' answers to a persona as named participants, not as its own words", async () => {
    const { api, room } = await roomWith(["Ada", "Bob"]);
    expect((await api.send(room.id, "@Ada say something [[fake:text=Ada thinks tea.]]")).status).toBe(200);
    expect((await api.send(room.id, "@Bob what did Ada say?")).status).toBe(200);
    const request = (await app.fake.requests(room.name)).find((r) => r.lastUserText?.includes("what did Ada say"));
    const messages = request!.body.messages as any[];
    expect(messages).toContainEqual({ role: "user", content: '[from persona "@Ada"] Ada thinks tea.' });
    expect(messages.filter((m) => m.role === "assistant")).toEqual([]);
  });

  it("mark a failing persona's answer with its error without blocking the other", async () => {
    const { api, room } = await roomWith([
      { name: "Ada", systemPrompt: "Broken persona [[fake:status=401]]" },
      { name: "Bob", systemPrompt: "Fine persona" }
    ]);
    const sent = await api.send(room.id, "@Ada @Bob status please");
    expect(sent.status).toBe(200);
    const { messages } = await api.messages(room.id);
    const [ada, bob] = messages.filter((m) => m.role === "assistant");
    expect(ada.metadata.persona.name).toBe("Ada");
    expect(ada.metadata.error).toMatch(/401|key|auth/i);
    expect(bob.metadata.error).toBeUndefined();
    expect(messageText(bob)).toBe('Echo: [from person "API"] @Ada @Bob status please');
  });
});

describe("the room's default responder", () => {
  it("can be nobody, so only mentions are answered, and every persona", async () => {
    const { api, room } = await roomWith(["Ada", "Bob"]);
    const patched = await api.call(`/${room.id}`, { method: "PATCH", json: { defaultResponder: "nobody" } });
    expect(patched.status).toBe(200);
    expect(((await patched.json()) as RoomDetail).settings.defaultResponder).toBe("nobody");

    const talking = uniqueName("just people talking");
    expect((await api.send(room.id, talking)).status).toBe(200);
    expect(await app.fake.requests(talking)).toEqual([]);
    let { messages } = await api.messages(room.id);
    expect(messages.map((m) => m.role)).toEqual(["user"]);
    expect(messages[0].metadata.noReply).toBe(true);

    // A later mention answers its own question, not the unanswered one.
    expect((await api.send(room.id, "@Ada now you")).status).toBe(200);
    ({ messages } = await api.messages(room.id));
    expect(messages.map((m) => m.metadata.persona?.name ?? m.role)).toEqual(["user", "user", "Ada"]);
    expect(messages[2].metadata.answers).toBe(messages[1].id);

    await api.call(`/${room.id}`, { method: "PATCH", json: { defaultResponder: "personas" } });
    expect((await api.send(room.id, "everyone?")).status).toBe(200);
    ({ messages } = await api.messages(room.id));
    expect(messages.slice(-2).map((m) => m.metadata.persona?.name)).toEqual(["Ada", "Bob"]);

    const bad = await api.call(`/${room.id}`, { method: "PATCH", json: { defaultResponder: "robots" } });
    expect(bad.status).toBe(400);
  });

  it("is the assistant by default, which answers without persona metadata", async () => {
    const { api, room } = await roomWith(["Ada"]);
    const question = uniqueName("plain question");
    expect((await api.send(room.id, question)).status).toBe(200);
    const { messages } = await api.messages(room.id);
    expect(messages[1].metadata.persona).toBeUndefined();
    expect(messageText(messages[1])).toBe(`Echo: ${question}`);
    // One request in all: the assistant's, none from the persona (whose prompt names the room).
    await waitFor(
      async () => (await app.fake.requests(question)).length,
      (n) => n === 1
    );
    expect(await app.fake.requests(room.name)).toEqual([]);
  });
});
