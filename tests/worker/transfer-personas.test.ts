/// <reference types="@cloudflare/vitest-plugin/types" />
import { describe, expect, it } from "vitest";
import { api, createRoom, uniqueName } from "./helpers";

const base = (ws: string) => `/api/workspaces/${ws}/rooms`;
const importFile = (ws: string, body: string) =>
  api(`${base(ws)}/import`, { method: "POST", body, headers: { "content-type": "application/json" } });
const exportJson = async (ws: string, id: string) => {
  const response = await api(`${base(ws)}/${id}/export?format=json`);
  expect(response.status).toBe(200);
  return JSON.parse(await response.text());
};
const roomCount = async (ws: string) => ((await (await api(base(ws))).json()) as { rooms: unknown[] }).rooms.length;

describe("personas in exports and imports", () => {
  it("are re-created on import, and the answers they wrote point at the new personas", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws, { name: "Panel room" });
    const made = await api(`${base(ws)}/${room.id}/personas`, {
      method: "POST",
      json: { name: "Ada", colour: "#3366ff", systemPrompt: "Be a sceptic.", tools: ["get_current_time"] }
    });
    expect(made.status).toBe(201);
    const ada = (await made.json()) as { id: string };
    const sent = await api(`${base(ws)}/${room.id}/messages`, { method: "POST", json: { text: "@Ada what now?" } });
    expect(sent.status).toBe(200);

    const original = await exportJson(ws, room.id);
    expect(original.room.personas).toHaveLength(1);
    expect(original.messages[1].metadata.persona).toEqual({ id: ada.id, name: "Ada" });

    const imported = await importFile(ws, JSON.stringify(original));
    expect(imported.status).toBe(201);
    const { rooms } = (await imported.json()) as { rooms: Array<{ id: string }> };
    const copy = await exportJson(ws, rooms[0].id);
    const [persona] = copy.room.personas;
    expect(persona).toMatchObject({
      name: "Ada",
      colour: "#3366ff",
      systemPrompt: "Be a sceptic.",
      model: null,
      temperature: null,
      tools: ["get_current_time"]
    });
    expect(persona.id).not.toBe(ada.id);
    expect(copy.messages[1].metadata.persona).toEqual({ id: persona.id, name: "Ada" });
    // The imported room's persona answers a mention like any other.
    const again = await api(`${base(ws)}/${rooms[0].id}/messages`, { method: "POST", json: { text: "@Ada and now?" } });
    expect(again.status).toBe(200);
    const page = (await (await api(`${base(ws)}/${rooms[0].id}/messages`)).json()) as {
      messages: Array<{ metadata: { persona?: { id: string } } }>;
    };
    expect(page.messages.at(-1)?.metadata.persona?.id).toBe(persona.id);
  });

  it("refuses a bad roster with a 422 naming the field, and makes no room", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const file = await exportJson(ws, room.id);
    const before = await roomCount(ws);
    const cases: Array<[unknown, RegExp]> = [
      [[{ id: "p1", name: "two words" }], /room\.personas\[0\]\.name/],
      [[{ id: "p1", name: "Ada", colour: "blue" }], /room\.personas\[0\]\.colour/],
      [
        [
          { id: "p1", name: "Ada" },
          { id: "p2", name: "ada" }
        ],
        /room\.personas\[1\]\.name.*twice/
      ],
      [[{ name: "Ada" }], /room\.personas\[0\]\.id/],
      [[{ id: "p1", name: "Ada", tools: ["rm_rf"] }], /room\.personas\[0\]\.tools/],
      ["Ada", /room\.personas must be an array/],
      [Array.from({ length: 9 }, (_, i) => ({ id: `p${i}`, name: `P${i}` })), /at most 8/]
    ];
    for (const [personas, message] of cases) {
      const response = await importFile(ws, JSON.stringify({ ...file, room: { ...file.room, personas } }));
      expect(response.status, JSON.stringify(personas)).toBe(422);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("bad_request:import");
      expect(body.error.message).toMatch(message);
    }
    expect(await roomCount(ws)).toBe(before);
  });
});
