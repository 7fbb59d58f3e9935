/// <reference types="@cloudflare/vitest-plugin/types" />
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ChatRoom, type OverseerAgent } from "../../src/server/index";
import { MAX_MESSAGE_LENGTH } from "../../src/shared/constants";
import type { ErrorBody } from "../../src/shared/errors";
import type { MessagePage, RoomDetail } from "../../src/shared/protocol";
import type { ImportResult } from "../../src/shared/transfer";
import chatgpt from "../fixtures/chatgpt-conversations.json";
import { api, connect, createRoom, type RoomList, signIn, uniqueName } from "./helpers";

const base = (ws: string) => `/api/workspaces/${ws}/rooms`;
const send = async (ws: string, roomId: string, text: string) => {
  const response = await api(`${base(ws)}/${roomId}/messages`, { method: "POST", json: { text } });
  expect(response.status).toBe(200);
};
const exportText = async (ws: string, id: string, format = "json") => {
  const response = await api(`${base(ws)}/${id}/export?format=${format}`);
  expect(response.status).toBe(200);
  return response.text();
};
const importFile = (ws: string, body: string) =>
  api(`${base(ws)}/import`, { method: "POST", body, headers: { "content-type": "application/json" } });
const list = async (ws: string) => (await (await api(base(ws))).json<RoomList>()).rooms;

/** Replaces every id (rooms, messages, authors) and the export time with stable placeholders. */
function normalise(text: string): string {
  const data = JSON.parse(text);
  const ids = [data.room.id, ...data.messages.map((m: any) => m.id)];
  let out = text.replace(`"exportedAt":"${data.exportedAt}"`, '"exportedAt":"<time>"');
  ids.forEach((id: string, i: number) => {
    out = out.split(`"${id}"`).join(`"<id-${i}>"`);
  });
  // Trace ids name traces kept in the source room only; an import drops them.
  return out.replace(/"author":\{"id":"[^"]*"/g, '"author":{"id":"<author>"').replace(/,"traceId":"[0-9a-f]+"/g, "");
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("export", () => {
  it("streams a lossless JSON export and a readable Markdown transcript", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws, { name: "Trip", systemPrompt: "Be brief." });
    await send(ws, room.id, "# Not a heading\nfirst question");
    await send(ws, room.id, "second question");
    const response = await api(`${base(ws)}/${room.id}/export`);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(response.headers.get("content-disposition")).toContain("attachment");
    const data = JSON.parse(await response.text());
    expect(data).toMatchObject({
      format: "rooms.room-export",
      version: 1,
      room: { id: room.id, name: "Trip", settings: { name: "Trip", systemPrompt: "Be brief." } }
    });
    expect(data.messages.map((m: any) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    const page = await (await api(`${base(ws)}/${room.id}/messages?limit=50`)).json<MessagePage>();
    expect(data.messages).toEqual(page.messages);

    const markdown = await exportText(ws, room.id, "markdown");
    expect(markdown).toContain("# Trip");
    expect(markdown).toContain("> Be brief.");
    expect(markdown).toContain("\\# Not a heading");
    expect(markdown).toContain("second question");
    expect(markdown).toMatch(/### Assistant/);
    expect(markdown).not.toContain("## Earlier versions");
  });

  it("answers 404 for an unknown room and 400 for an unknown format", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    expect((await api(`${base(ws)}/nope/export`)).status).toBe(404);
    const bad = await api(`${base(ws)}/${room.id}/export?format=pdf`);
    expect(bad.status).toBe(400);
    expect((await bad.json<ErrorBody>()).error.message).toContain("format must be json, markdown");
  });

  it("streams the whole workspace as NDJSON, room by room", async () => {
    const ws = uniqueName();
    const a = await createRoom(ws, { name: "A" });
    const b = await createRoom(ws, { name: "B" });
    await send(ws, a.id, "in a");
    await send(ws, b.id, "in b");
    const response = await api(`/api/workspaces/${ws}/export`);
    expect(response.headers.get("content-type")).toContain("application/x-ndjson");
    const lines = (await response.text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.type, l.type === "room" ? l.id : l.roomId])).toEqual([
      ["room", a.id],
      ["message", a.id],
      ["message", a.id],
      ["room", b.id],
      ["message", b.id],
      ["message", b.id]
    ]);
  });
});

describe("import", () => {
  it("round-trips: export → import → export is byte-equal apart from ids and times", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws, { name: "Round trip", systemPrompt: "Keep it short.", temperature: 0.5 });
    await send(ws, room.id, 'héllo 👋 with "quotes" and\nnewlines');
    await send(ws, room.id, "second");
    const first = await exportText(ws, room.id);

    // The source goes first, so the import keeps its name (a taken name is told apart: see below).
    await api(`${base(ws)}/${room.id}`, { method: "DELETE" });
    const imported = await importFile(ws, first);
    expect(imported.status).toBe(201);
    const made = (await imported.json<ImportResult>()).rooms;
    expect(made).toEqual([{ id: expect.any(String), name: "Round trip", messageCount: 4, truncated: [] }]);
    const second = await exportText(ws, made[0].id);
    expect(normalise(second)).toBe(normalise(first));

    // And once more: a fixed point, authors included.
    await api(`${base(ws)}/${made[0].id}`, { method: "DELETE" });
    const again = (await (await importFile(ws, second)).json<ImportResult>()).rooms[0];
    expect(normalise(await exportText(ws, again.id))).toBe(normalise(second));
    // Imported questions keep their author's name as data, under the reserved id.
    const data = JSON.parse(second);
    expect(data.messages[0].metadata.author).toEqual({ id: "imported", name: "API" });
    // The registry knows the imported room like any other.
    await expect.poll(async () => (await list(ws)).find((r) => r.id === again.id)?.messageCount).toBe(4);
  });

  it("tells an import apart from a room of the same name, and the importer has read what it holds", async () => {
    const ws = uniqueName();
    const ann = await signIn("Ann");
    const room = await createRoom(ws, { name: "Trip planning" });
    await send(ws, room.id, "one");
    const file = await exportText(ws, room.id);
    const made: ImportResult["rooms"] = [];
    for (let i = 0; i < 2; i++) {
      const response = await api(`${base(ws)}/import`, {
        method: "POST",
        body: file,
        headers: { "content-type": "application/json", ...ann.headers }
      });
      expect(response.status).toBe(201);
      made.push(...(await response.json<ImportResult>()).rooms);
    }
    expect(made.map((r) => r.name)).toEqual(["Trip planning (imported)", "Trip planning (imported 2)"]);
    expect((await list(ws)).map((r) => r.name).sort()).toEqual([
      "Trip planning",
      "Trip planning (imported 2)",
      "Trip planning (imported)"
    ]);

    // Ann's list: both imports read to their end (no "2 new messages"); the source, which she never opened, is not.
    const socket = await connect(`/agents/overseer-agent/${ws}`, ann.headers);
    try {
      const frame = await socket.next((f) => f?.type === "read_marks" && f.replace);
      const counts = Object.fromEntries(frame.marks.map((m: { roomId: string; count: number }) => [m.roomId, m.count]));
      expect(counts).toEqual({ [made[0].id]: 2, [made[1].id]: 2 });
    } finally {
      socket.ws.close();
    }
  });

  it("imports a ChatGPT conversations.json, one room per conversation, along the current branch", async () => {
    const ws = uniqueName();
    const response = await importFile(ws, JSON.stringify(chatgpt));
    expect(response.status).toBe(201);
    const { rooms } = await response.json<ImportResult>();
    expect(rooms.map((r) => [r.name, r.messageCount])).toEqual([
      ["Packing for Lisbon", 4],
      ["Regex help", 2]
    ]);
    const data = JSON.parse(await exportText(ws, rooms[0].id));
    const texts = data.messages.map((m: any) => [m.role, m.parts[0].text]);
    expect(texts).toEqual([
      ["user", "What should I pack for Lisbon in May?"],
      ["assistant", "Light layers, a rain jacket and comfortable shoes for the hills."],
      ["user", "And for a day trip to Sintra?"],
      ["assistant", "Bring a sweater: Sintra is cooler and often misty."]
    ]);
    expect(data.messages[0].metadata).toEqual({
      author: { id: "imported", name: "ChatGPT user" },
      createdAt: 1714000010000
    });
    expect(data.messages[1].metadata).toMatchObject({ model: "gpt-4o", createdAt: 1714000020000 });
    // Imported history is searchable like any other.
    const search = await (await api(`/api/workspaces/${ws}/search?q=Sintra`)).json<any>();
    expect(search.results.map((r: any) => r.roomId)).toContain(rooms[0].id);
  });

  it("says which ChatGPT turns it shortened to fit a message, and by how much", async () => {
    const ws = uniqueName();
    const long = "x".repeat(MAX_MESSAGE_LENGTH + 4_000);
    const node = (id: string, parent: string | null, role: string, text: string, child?: string) => ({
      id,
      parent,
      children: child ? [child] : [],
      message: { id: `m-${id}`, author: { role }, content: { content_type: "text", parts: [text] } }
    });
    const file = [
      {
        title: "Long one",
        current_node: "c",
        mapping: {
          a: node("a", null, "user", "short question", "b"),
          b: node("b", "a", "assistant", "short answer", "c"),
          c: node("c", "b", "user", long)
        }
      },
      { title: "Fine", current_node: "a", mapping: { a: node("a", null, "user", "all of it") } }
    ];
    const response = await importFile(ws, JSON.stringify(file));
    expect(response.status).toBe(201);
    const { rooms } = await response.json<ImportResult>();
    const [longRoom, fine] = rooms;
    expect(fine.truncated).toEqual([]);
    expect(longRoom.truncated).toEqual([
      {
        messageId: expect.any(String),
        position: 3,
        role: "user",
        originalLength: long.length,
        keptLength: MAX_MESSAGE_LENGTH
      }
    ]);
    const page = await (await api(`${base(ws)}/${longRoom.id}/messages`)).json<MessagePage>();
    const stored = page.messages.find((m) => m.id === longRoom.truncated[0].messageId);
    expect((stored?.parts[0] as { text: string } | undefined)?.text).toHaveLength(MAX_MESSAGE_LENGTH);
  });

  it("refuses bad files with a 4xx that names what is wrong, and makes no room", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws, { name: "Source" });
    await send(ws, room.id, "hi");
    const good = JSON.parse(await exportText(ws, room.id));
    const cases: Array<[string, number, string]> = [
      ["{not json", 400, "not valid JSON"],
      [JSON.stringify({ hello: 1 }), 422, "Unrecognised file"],
      [JSON.stringify({ ...good, version: 9 }), 422, "Unsupported export version 9"],
      [JSON.stringify({ ...good, room: { ...good.room, settings: { name: "" } } }), 422, "room.settings.name"],
      [JSON.stringify({ ...good, messages: [{ ...good.messages[0], role: "robot" }] }), 422, "messages[0].role"],
      [
        JSON.stringify({ ...good, messages: [good.messages[0], { ...good.messages[1], parts: [{ type: "text" }] }] }),
        422,
        "messages[1].parts[0].text"
      ],
      [JSON.stringify({ ...good, messages: [good.messages[0], good.messages[0]] }), 422, "appears twice"],
      [
        JSON.stringify([{ title: "x", mapping: { a: { message: { author: {} } } }, current_node: "a" }]),
        422,
        "author.role"
      ]
    ];
    for (const [body, status, text] of cases) {
      const response = await importFile(ws, body);
      expect(response.status, text).toBe(status);
      const error = (await response.json<ErrorBody>()).error;
      expect(error.message, text).toContain(text);
    }
    expect((await list(ws)).map((r) => r.id)).toEqual([room.id]);
  });

  it("leaves no half-made room when the import fails after rooms were made", async () => {
    const ws = uniqueName();
    const original = ChatRoom.prototype.importMessages;
    let calls = 0;
    const touched: string[] = [];
    // Test-only failure: the second room's first batch fails.
    vi.spyOn(ChatRoom.prototype, "importMessages").mockImplementation(function (this: ChatRoom, messages) {
      calls++;
      touched.push(this.name);
      if (calls === 2) return Promise.reject(new Error("disk full (test)"));
      return original.call(this, messages);
    });
    const response = await importFile(ws, JSON.stringify(chatgpt));
    expect(response.status).toBe(500);
    expect(calls).toBe(2);
    expect(await list(ws)).toEqual([]);
    const stub = env.OverseerAgent.get(env.OverseerAgent.idFromName(ws));
    expect(new Set(touched).size).toBe(2);
    await runInDurableObject(stub, (overseer: OverseerAgent) => {
      // Both rooms were made and filled partly; both are gone again.
      for (const id of touched) expect(overseer.dynamicAgents.has(ChatRoom, id)).toBe(false);
    });
  });
});

describe("fork", () => {
  it("copies history up to and including the first, a middle and the last message, with settings and a link back", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws, { name: "Origin", systemPrompt: "Pirate voice.", temperature: 0.7 });
    for (const text of ["one", "two", "three"]) await send(ws, room.id, text);
    const all = (await (await api(`${base(ws)}/${room.id}/messages?limit=50`)).json<MessagePage>()).messages;
    expect(all).toHaveLength(6);
    for (const cut of [0, 2, 5]) {
      const response = await api(`${base(ws)}/${room.id}/fork`, { method: "POST", json: { messageId: all[cut].id } });
      expect(response.status).toBe(201);
      const fork = await response.json<RoomDetail>();
      expect(fork.settings).toEqual({
        // One "(fork)" per fork: numbered, so three forks are three names.
        name: cut === 0 ? "Origin (fork)" : cut === 2 ? "Origin (fork 2)" : "Origin (fork 3)",
        systemPrompt: "Pirate voice.",
        model: null,
        temperature: 0.7
      });
      const data = JSON.parse(await exportText(ws, fork.id));
      expect(data.messages).toEqual(all.slice(0, cut + 1));
      expect(data.room.origin).toEqual({ roomId: room.id, roomName: "Origin", messageId: all[cut].id });
      await expect.poll(async () => (await list(ws)).find((r) => r.id === fork.id)?.messageCount).toBe(cut + 1);
    }
    // The source is untouched.
    expect((await (await api(`${base(ws)}/${room.id}/messages?limit=50`)).json<MessagePage>()).messages).toEqual(all);
  });

  it("answers 404 for an unknown message or room, 400 for a bad body, and makes no room", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const missing = await api(`${base(ws)}/${room.id}/fork`, { method: "POST", json: { messageId: "nope" } });
    expect(missing.status).toBe(404);
    expect((await missing.json<ErrorBody>()).error.code).toBe("not_found:message");
    expect((await api(`${base(ws)}/nope/fork`, { method: "POST", json: { messageId: "x" } })).status).toBe(404);
    expect((await api(`${base(ws)}/${room.id}/fork`, { method: "POST", json: {} })).status).toBe(400);
    expect((await list(ws)).map((r) => r.id)).toEqual([room.id]);
  });
});

describe("export and fork of a room longer than the framework's 10,000-step path walk", () => {
  /** Writes `count` messages through the room's own import method, as an import or fork does. */
  async function seed(ws: string, roomId: string, count: number): Promise<string[]> {
    const ids: string[] = [];
    const stub = env.OverseerAgent.get(env.OverseerAgent.idFromName(ws));
    await runInDurableObject(stub, async (overseer: OverseerAgent) => {
      const room = await overseer.dynamicAgents.get(ChatRoom, roomId);
      for (let start = 0; start < count; start += 2_000) {
        const batch = Array.from({ length: Math.min(2_000, count - start) }, (_, i) => {
          const n = start + i;
          const id = `seed-${n}`;
          ids.push(id);
          const role = n % 2 === 0 ? "user" : "assistant";
          return { id, role, parts: [{ type: "text", text: `message #${n}` }], metadata: { createdAt: 1_000 + n } };
        });
        await room.importMessages(batch as any);
      }
      await room.finishImport();
    });
    return ids;
  }

  /** The lines of a JSON export's `messages` array: one message each, as written. */
  function messageLines(text: string): string[] {
    const body = text.slice(text.indexOf('"messages":[') + '"messages":['.length, text.indexOf("\n]"));
    return body
      .split("\n")
      .filter(Boolean)
      .map((line) => line.replace(/,$/, ""));
  }

  it("forks a 3,001-message room byte for byte up to the chosen message", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws, { name: "Rich", systemPrompt: "Be brief." });
    const stub = env.OverseerAgent.get(env.OverseerAgent.idFromName(ws));
    const ids: string[] = [];
    await runInDurableObject(stub, async (overseer: OverseerAgent) => {
      const facet = await overseer.dynamicAgents.get(ChatRoom, room.id);
      for (let start = 0; start < 3_001; start += 1_000) {
        const batch = Array.from({ length: Math.min(1_000, 3_001 - start) }, (_, i) => {
          const n = start + i;
          const user = n % 2 === 0;
          ids.push(`rich-${n}`);
          return {
            id: `rich-${n}`,
            role: user ? "user" : "assistant",
            parts: [
              { type: "text", text: `Zeile ${n}: ünïcödé 👋 "quoted" and\na second line` },
              ...(n % 7 === 0 ? [{ type: "text", text: `another part of #${n}` }] : [])
            ],
            metadata: user
              ? { createdAt: Date.UTC(2025, 0, 1) + n * 1_000, author: { id: "imported", name: `Writer ${n % 5}` } }
              : {
                  createdAt: Date.UTC(2025, 0, 1) + n * 1_000,
                  model: "m",
                  usage: { inputTokens: n, outputTokens: 2, totalTokens: n + 2 }
                }
          };
        });
        await facet.importMessages(batch as any);
      }
      await facet.finishImport();
    });
    const source = messageLines(await exportText(ws, room.id));
    expect(source).toHaveLength(3_001);

    for (const cut of [2_345, 3_000]) {
      const response = await api(`${base(ws)}/${room.id}/fork`, { method: "POST", json: { messageId: ids[cut] } });
      expect(response.status).toBe(201);
      const fork = await response.json<RoomDetail>();
      expect(messageLines(await exportText(ws, fork.id))).toEqual(source.slice(0, cut + 1));
      await expect.poll(async () => (await list(ws)).find((r) => r.id === fork.id)?.messageCount).toBe(cut + 1);
    }
  }, 180_000);

  it("exports every message of a 12,001-message room, first to last, in order, as JSON, Markdown and via fork", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws, { name: "Long" });
    const ids = await seed(ws, room.id, 12_001);

    const data = JSON.parse(await exportText(ws, room.id));
    expect(data.messages).toHaveLength(ids.length);
    expect(data.messages.map((m: any) => m.id)).toEqual(ids);
    expect(data.messages[0].parts[0].text).toBe("message #0");

    const markdown = await exportText(ws, room.id, "markdown");
    const numbers = [...markdown.matchAll(/message #(\d+)/g)].map((match) => Number(match[1]));
    expect(numbers).toEqual(ids.map((_, n) => n));

    // A fork streams the source's history up to the cut: every message before it arrives.
    const cut = ids.length - 2;
    const response = await api(`${base(ws)}/${room.id}/fork`, { method: "POST", json: { messageId: ids[cut] } });
    expect(response.status).toBe(201);
    const fork = await response.json<RoomDetail>();
    const forked = JSON.parse(await exportText(ws, fork.id));
    expect(forked.messages.map((m: any) => m.id)).toEqual(ids.slice(0, cut + 1));
    await expect.poll(async () => (await list(ws)).find((r) => r.id === fork.id)?.messageCount).toBe(cut + 1);
  }, 180_000);
});
