import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { OverseerAgent } from "../../src/server/agents/overseer-agent";
import { ChatRoom, PersonaAgent } from "../../src/server/index";
import type { ErrorBody } from "../../src/shared/errors";
import type { Persona } from "../../src/shared/personas";
import { MAX_PERSONAS_PER_ROOM } from "../../src/shared/personas";
import type { MessageVersions, RoomDetail } from "../../src/shared/protocol";
import { api, chatRequest, connect, createRoom, history, isDone, messageText, roomPath, uniqueName } from "./helpers";

const personas = (ws: string, roomId: string) => `/api/workspaces/${ws}/rooms/${roomId}/personas`;

async function addPersona(ws: string, roomId: string, body: Record<string, unknown>) {
  const response = await api(personas(ws, roomId), { method: "POST", json: body });
  expect(response.status).toBe(201);
  return response.json<Persona>();
}

/** Reads a persona facet's storage through its room (spawns an empty one if it is gone). */
async function footprint(ws: string, roomId: string, personaId: string) {
  const stub = env.OverseerAgent.get(env.OverseerAgent.idFromName(ws));
  return runInDurableObject(stub, async (overseer: OverseerAgent) => {
    const room = await overseer.dynamicAgents.get(ChatRoom, roomId);
    return room.personaFootprint(personaId);
  });
}

describe("persona classes", () => {
  it("keep their names through bundling", () => {
    expect(PersonaAgent.name).toBe("PersonaAgent");
  });
});

describe("REST personas", () => {
  it("creates, lists, updates and deletes personas", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const ada = await addPersona(ws, room.id, { name: "Ada", systemPrompt: "You are precise.", temperature: 0.2 });
    expect(ada).toMatchObject({
      name: "Ada",
      systemPrompt: "You are precise.",
      temperature: 0.2,
      model: null,
      colour: expect.stringMatching(/^#[0-9a-f]{6}$/),
      tools: ["remember", "recall", "react"]
    });
    const bob = await addPersona(ws, room.id, { name: "Bob", colour: "#AABBCC", tools: ["get_current_time"] });
    expect(bob.colour).toBe("#aabbcc");

    const list = await (await api(personas(ws, room.id))).json<{ personas: Persona[] }>();
    expect(list.personas.map((p) => p.name)).toEqual(["Ada", "Bob"]);

    const patched = await api(`${personas(ws, room.id)}/${ada.id}`, {
      method: "PATCH",
      json: { name: "Ada2", model: "gpt-4o" }
    });
    expect(patched.status).toBe(200);
    expect(await patched.json<Persona>()).toMatchObject({ id: ada.id, name: "Ada2", model: "gpt-4o" });

    expect((await api(`${personas(ws, room.id)}/${bob.id}`, { method: "DELETE" })).status).toBe(204);
    const after = await (await api(personas(ws, room.id))).json<{ personas: Persona[] }>();
    expect(after.personas.map((p) => p.name)).toEqual(["Ada2"]);
    // The room's synced state carries the roster too.
    const detail = await (await api(`/api/workspaces/${ws}/rooms/${room.id}`)).json<RoomDetail>();
    expect(detail.id).toBe(room.id);
  });

  it("refuses bad input with a message naming the field", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    for (const [body, field] of [
      [{ name: "two words" }, "name"],
      [{ name: "" }, "name"],
      [{ name: "@Ada" }, "name"],
      [{ name: "Ada", colour: "red" }, "colour"],
      [{ name: "Ada", temperature: 5 }, "temperature"],
      [{ name: "Ada", tools: ["rm_rf"] }, "tools"],
      [{ name: "Ada", extra: 1 }, ""]
    ] as const) {
      const response = await api(personas(ws, room.id), { method: "POST", json: body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      const error = (await response.json<ErrorBody>()).error;
      expect(error.code).toBe("bad_request:body");
      expect(error.message).toContain(field);
    }
    const empty = await api(`${personas(ws, room.id)}/whatever`, { method: "PATCH", json: {} });
    expect(empty.status).toBe(400);
  });

  it("keeps names unique per room, ignoring case, and allows the same name in another room", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const other = await createRoom(ws);
    await addPersona(ws, room.id, { name: "Ada" });
    const clash = await api(personas(ws, room.id), { method: "POST", json: { name: "ada" } });
    expect(clash.status).toBe(409);
    expect((await clash.json<ErrorBody>()).error).toMatchObject({ code: "conflict:persona_name" });
    await addPersona(ws, other.id, { name: "Ada" });
    const bob = await addPersona(ws, room.id, { name: "Bob" });
    const rename = await api(`${personas(ws, room.id)}/${bob.id}`, { method: "PATCH", json: { name: "ADA" } });
    expect(rename.status).toBe(409);
  });

  it("refuses names that read as the assistant or look like a persona already in the room", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const ada = await addPersona(ws, room.id, { name: "Ada" });
    for (const name of ["Assistant", "system", "\u0410da", "\u0430da", "\uff21da"]) {
      const refused = await api(personas(ws, room.id), { method: "POST", json: { name } });
      expect(refused.status, name).toBe(409);
      expect((await refused.json<ErrorBody>()).error, name).toMatchObject({ code: "conflict:persona_name" });
    }
    const bob = await addPersona(ws, room.id, { name: "Bob" });
    const rename = await api(`${personas(ws, room.id)}/${bob.id}`, {
      method: "PATCH",
      json: { name: "\u0391d\u03b1" }
    });
    expect(rename.status).toBe(409);
    // Nothing was added or renamed.
    const listed = await (await api(personas(ws, room.id))).json<{ personas: { id: string; name: string }[] }>();
    expect(listed.personas.map((p) => [p.id, p.name])).toEqual([
      [ada.id, "Ada"],
      [bob.id, "Bob"]
    ]);
  });

  it(`holds at most ${MAX_PERSONAS_PER_ROOM} personas`, async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    for (let i = 0; i < MAX_PERSONAS_PER_ROOM; i++) await addPersona(ws, room.id, { name: `P${i}` });
    const full = await api(personas(ws, room.id), { method: "POST", json: { name: "OneTooMany" } });
    expect(full.status).toBe(409);
    expect((await full.json<ErrorBody>()).error).toMatchObject({
      code: "conflict:persona_limit",
      message: expect.stringContaining(String(MAX_PERSONAS_PER_ROOM))
    });
  });

  it("answers 404 for an unknown room or persona", async () => {
    const ws = uniqueName();
    expect((await api(personas(ws, "nope-nope-nope-no"))).status).toBe(404);
    const room = await createRoom(ws);
    const missing = await api(`${personas(ws, room.id)}/nobody`, { method: "DELETE" });
    expect(missing.status).toBe(404);
    expect((await missing.json<ErrorBody>()).error.code).toBe("not_found:persona");
  });
});

describe("persona storage", () => {
  it("is written by a mention, wiped when the persona is deleted", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const ada = await addPersona(ws, room.id, { name: "Ada" });
    const sent = await api(`/api/workspaces/${ws}/rooms/${room.id}/messages`, {
      method: "POST",
      json: { text: "@Ada what do you think?" }
    });
    expect(sent.status).toBe(200);
    const messages = await history(ws, room.id);
    expect(messages).toHaveLength(2);
    expect(messages[1].metadata.persona).toEqual({ id: ada.id, name: "Ada" });
    expect(messageText(messages[1])).toContain("answering as Ada");

    const before = await footprint(ws, room.id, ada.id);
    expect(before).toMatchObject({ registered: true, answers: 1 });
    expect(before.usage.totalTokens).toBeGreaterThan(0);

    expect((await api(`${personas(ws, room.id)}/${ada.id}`, { method: "DELETE" })).status).toBe(204);
    const after = await footprint(ws, room.id, ada.id);
    expect(after).toMatchObject({ registered: false, answers: 0, notes: 0 });
    expect(after.usage.totalTokens).toBe(0);
  });

  it("of every nested facet is wiped when the room is deleted", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const ada = await addPersona(ws, room.id, { name: "Ada" });
    const bob = await addPersona(ws, room.id, { name: "Bob" });
    const sent = await api(`/api/workspaces/${ws}/rooms/${room.id}/messages`, {
      method: "POST",
      json: { text: "@Ada and @Bob, hello" }
    });
    expect(sent.status).toBe(200);
    expect((await footprint(ws, room.id, ada.id)).answers).toBe(1);
    expect((await footprint(ws, room.id, bob.id)).answers).toBe(1);

    expect((await api(`/api/workspaces/${ws}/rooms/${room.id}`, { method: "DELETE" })).status).toBe(204);
    const stub = env.OverseerAgent.get(env.OverseerAgent.idFromName(ws));
    const after = await runInDurableObject(stub, async (overseer: OverseerAgent) => {
      expect(overseer.dynamicAgents.has(ChatRoom, room.id)).toBe(false);
      // Spawning the same ids again must find nothing of the old tree.
      const reborn = await overseer.dynamicAgents.get(ChatRoom, room.id);
      const result = {
        personas: await reborn.listPersonas(),
        messages: (await reborn.listMessages({ limit: 10 })).messages.length,
        ada: await reborn.personaFootprint(ada.id),
        bob: await reborn.personaFootprint(bob.id)
      };
      await overseer.dynamicAgents.delete(ChatRoom, room.id);
      return result;
    });
    expect(after.personas).toEqual([]);
    expect(after.messages).toBe(0);
    expect(after.ada).toMatchObject({ registered: false, answers: 0, notes: 0 });
    expect(after.bob).toMatchObject({ registered: false, answers: 0, notes: 0 });
  });
});

describe("with the offline model", () => {
  it("answers mentions and panels with labelled, deterministic persona answers and a synthesis", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    await addPersona(ws, room.id, { name: "Ada" });
    await addPersona(ws, room.id, { name: "Bob" });
    const sent = await api(`/api/workspaces/${ws}/rooms/${room.id}/messages`, {
      method: "POST",
      json: { text: "/panel Tea or coffee?" }
    });
    expect(sent.status).toBe(200);
    const messages = await history(ws, room.id);
    expect(messages.map((m) => [m.metadata.persona?.name, m.metadata.panel])).toEqual([
      [undefined, undefined],
      ["Ada", "answer"],
      ["Bob", "answer"],
      [undefined, "synthesis"]
    ]);
    expect(messageText(messages[1])).toMatch(/^\*\*Offline model, answering as Ada\*\*/);
    expect(messageText(messages[2])).toMatch(/^\*\*Offline model, answering as Bob\*\*/);
    expect(messageText(messages[3])).toMatch(/^\*\*Offline model\*\*/);
    expect(messageText(messages[3])).toContain("@Ada said:");
  });
});

describe("regenerating a persona's answer", () => {
  it("asks that persona again and keeps the earlier answer as version 1", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const ada = await addPersona(ws, room.id, { name: "Ada", systemPrompt: "You are Ada." });
    const socket = await connect(roomPath(ws, room.id));
    try {
      const ask = chatRequest("@Ada what now?");
      socket.send(ask.frame);
      await socket.next(isDone(ask.id), 30_000);
      const before = await history(ws, room.id);
      expect(before.map((m) => m.metadata.persona?.name)).toEqual([undefined, "Ada"]);

      // The default responder (the assistant) must not take the question over.
      const regenerate = chatRequest("", { trigger: "regenerate-message", history: [before[0]] });
      socket.send(regenerate.frame);
      await socket.next(isDone(regenerate.id), 30_000);
      const after = await history(ws, room.id);
      expect(after).toHaveLength(2);
      expect(after[0]).toEqual(before[0]);
      expect(after[1].id).not.toBe(before[1].id);
      expect(after[1].metadata).toMatchObject({
        persona: { id: ada.id, name: "Ada" },
        versionOf: before[1].id,
        version: 2,
        answers: before[0].id
      });
      expect(messageText(after[1])).toContain("answering as Ada");

      const listed = await (
        await api(`/api/workspaces/${ws}/rooms/${room.id}/messages/${after[1].id}/versions`)
      ).json<MessageVersions>();
      expect(listed.versions.map((v) => v.messages[0].id)).toEqual([before[1].id, after[1].id]);
      expect(listed.versions[0].messages[0]).toEqual(before[1]);

      // The room goes on from the new answer, with the assistant for a plain question.
      const next = chatRequest("and then?");
      socket.send(next.frame);
      await socket.next(isDone(next.id), 30_000);
      const later = await history(ws, room.id);
      expect(later.slice(0, 2).map((m) => m.id)).toEqual(after.map((m) => m.id));
      expect(later).toHaveLength(4);
      expect(later[3].metadata.persona).toBeUndefined();
      expect(later.every((m) => messageText(m).length > 0)).toBe(true);
    } finally {
      socket.ws.close();
    }
  });
});
