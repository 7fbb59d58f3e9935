/**
 * Importing a room's `.zip` against the real Worker and the local R2: the
 * transcript comes back, each file under a new id with the same name, size
 * and hash, its bytes downloadable and its index searchable, and the
 * messages' file parts point at the new files. A broken or over-quota
 * archive leaves no room and no object in R2.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { crc32 as nodeCrc32 } from "node:zlib";
import { describe, expect, it, vi } from "vitest";
// The Worker's modules, loaded with the file: a file run alone otherwise loads them inside its first request.
import "@/server/index";
import type { OverseerAgent } from "@/server/agents/overseer-agent";
import { DEFAULT_WORKSPACE_FILE_QUOTA_BYTES } from "@/shared/constants";
import { type ImportResult, MAX_IMPORT_BYTES } from "@/shared/transfer";
import { fileForm, PNG_BYTES } from "../support/files";
import { waitFor } from "../support/wait";
import { deflateRaw, readZip, writeZip, type ZipWrite } from "../support/zip";
import { filesPath, roomFiles, storedKeys, uploadFile } from "./file-helpers";
import { api, createRoom, history, uniqueName } from "./helpers";

vi.setConfig({ testTimeout: 90_000 });

const roomsPath = (ws: string) => `/api/workspaces/${ws}/rooms`;
const FACT = "The lighthouse lamp turns once every twelve seconds.";

async function roomIds(ws: string): Promise<string[]> {
  return (await (await api(roomsPath(ws))).json<{ rooms: { id: string }[] }>()).rooms.map((r) => r.id).sort();
}

/** Sent as a browser sends a file it knows nothing of: the bytes decide what it is. */
function importZip(ws: string, zip: Uint8Array<ArrayBuffer>): Promise<Response> {
  return api(`${roomsPath(ws)}/import`, {
    method: "POST",
    body: zip,
    headers: { "content-type": "application/octet-stream" }
  });
}

/** A room with a document (indexed) and a picture, both on its first message; and its `.zip` export. */
async function exportedRoom() {
  const ws = uniqueName();
  const room = await createRoom(ws, { name: "Lighthouse" });
  const notes = await uploadFile(ws, room.id, fileForm(`# Lamp\n\n${FACT}\n`, "lamp.md"));
  const picture = await uploadFile(ws, room.id, fileForm(PNG_BYTES, "lamp.png"));
  await waitFor(
    () => roomFiles(ws, room.id),
    (list) => list.some((f) => f.id === notes.id && f.state === "indexed"),
    20_000,
    "the notes indexed"
  );
  const sent = await api(`${roomsPath(ws)}/${room.id}/messages`, {
    method: "POST",
    json: { text: "How often does the lamp turn?", files: [notes.id, picture.id] }
  });
  expect(sent.status).toBe(200);
  const exported = await api(`${roomsPath(ws)}/${room.id}/export?format=zip`);
  expect(exported.status).toBe(200);
  return { ws, room, notes, picture, zip: new Uint8Array(await exported.arrayBuffer()) };
}

/** The archive's entries written again as zip tools write them, each deflated or stored, `change` applied. */
async function rezip(
  zip: Uint8Array,
  change: (entry: ZipWrite) => ZipWrite = (e) => e,
  deflate = false
): Promise<Uint8Array<ArrayBuffer>> {
  const entries: ZipWrite[] = [];
  for (const entry of readZip(zip)) {
    const bytes = entry.bytes.slice();
    const crc = nodeCrc32(bytes);
    const written = deflate
      ? { name: entry.name, data: await deflateRaw(bytes), method: 8, crc, size: bytes.length }
      : { name: entry.name, data: bytes, crc };
    entries.push(change(written));
  }
  return writeZip(entries);
}

async function expectRestored(
  ws: string,
  zip: Uint8Array<ArrayBuffer>,
  source: Awaited<ReturnType<typeof exportedRoom>>
) {
  const keysBefore = await storedKeys(`${ws}/`);
  const response = await importZip(ws, zip);
  expect(response.status, await response.clone().text()).toBe(201);
  const [imported] = (await response.json<ImportResult>()).rooms;
  if (!imported) throw new Error("no room imported");
  expect(imported).toMatchObject({ name: "Lighthouse (imported)", messageCount: 2 });

  const restored = await roomFiles(ws, imported.id);
  const notes = restored.find((f) => f.name === "lamp.md");
  const picture = restored.find((f) => f.name === "lamp.png");
  expect(restored).toHaveLength(2);
  expect(notes).toMatchObject({ size: source.notes.size, sha256: source.notes.sha256, state: "indexed", chunks: 1 });
  expect(picture).toMatchObject({ size: source.picture.size, sha256: source.picture.sha256, state: "stored" });
  // New ids, made by the server; the bytes under the new room, and nothing else left behind (no spooled archive).
  expect([notes?.id, picture?.id]).not.toContain(source.notes.id);
  expect([notes?.id, picture?.id]).not.toContain(source.picture.id);
  const newKeys = (await storedKeys(`${ws}/`)).filter((k) => !keysBefore.includes(k));
  expect(newKeys).toEqual([notes?.id, picture?.id].map((id) => `${ws}/${imported.id}/${id}`).sort());

  const bytes = await api(`${filesPath(ws, imported.id)}/${picture?.id}`);
  expect(new Uint8Array(await bytes.arrayBuffer())).toEqual(PNG_BYTES);
  expect(await (await api(`${filesPath(ws, imported.id)}/${notes?.id}`)).text()).toContain(FACT);

  const [question] = await history(ws, imported.id);
  const urls = question.parts.filter((p: { type: string }) => p.type === "file").map((p: { url: string }) => p.url);
  expect(urls.sort()).toEqual([notes?.id, picture?.id].map((id) => `${filesPath(ws, imported.id)}/${id}`).sort());

  // The index came along: a question retrieves the restored document.
  const asked = await api(`${roomsPath(ws)}/${imported.id}/messages`, {
    method: "POST",
    json: { text: "How often does the lighthouse lamp turn?" }
  });
  expect(asked.status).toBe(200);
  const answer = (await history(ws, imported.id)).at(-1);
  expect(answer.parts.find((p: { type: string }) => p.type === "source-document")).toMatchObject({
    providerMetadata: { rooms: { fileId: notes?.id } }
  });
}

describe("importing a room's .zip", () => {
  it("restores the transcript and every file: same names, sizes and hashes, new ids, bytes and index", async () => {
    const source = await exportedRoom();
    await expectRestored(source.ws, source.zip, source);
  });

  it("reads an archive a zip tool wrote again with deflate", async () => {
    const source = await exportedRoom();
    const zip = await rezip(source.zip, undefined, true);
    expect(readZip(zip).every((e) => e.method === 8)).toBe(true);
    await expectRestored(source.ws, zip, source);
  });

  it("refuses a damaged or unsafe archive with a 400, leaving no room and no object in R2", async () => {
    const source = await exportedRoom();
    const isPicture = (e: ZipWrite) => e.name.endsWith("/lamp.png");
    const broken = {
      "a file failing its CRC": await rezip(source.zip, (e) => (isPicture(e) ? { ...e, crc: e.crc ^ 1 } : e)),
      "a name climbing out of its folder": await rezip(source.zip, (e) =>
        isPicture(e) ? { ...e, name: `files/../../${e.name}` } : e
      ),
      "an unsupported method": await rezip(source.zip, (e) => (isPicture(e) ? { ...e, method: 14 } : e)),
      "a transcript that is not an export": await rezip(source.zip, (e) =>
        e.name === "room.json" ? { ...e, data: new TextEncoder().encode("{}"), crc: nodeCrc32("{}") } : e
      )
    };
    const rooms = await roomIds(source.ws);
    const keys = await storedKeys(`${source.ws}/`);
    for (const [what, zip] of Object.entries(broken)) {
      const refused = await importZip(source.ws, zip);
      const body = await refused.json<{ error: { code: string; message: string } }>();
      // A transcript is checked as a JSON import is (422); the archive itself, 400.
      const expected = what.startsWith("a transcript") ? [422, "bad_request:import"] : [400, "bad_request:zip"];
      expect([refused.status, body.error.code], `${what}: ${body.error.message}`).toEqual(expected);
      expect(await roomIds(source.ws), what).toEqual(rooms);
      await waitFor(
        () => storedKeys(`${source.ws}/`),
        (now) => now.join() === keys.join(),
        10_000,
        `${what}: R2 as before`
      );
    }
  });

  it("still holds a JSON import to its own cap, told from a zip by its bytes", async () => {
    const ws = uniqueName();
    const tooBig = new TextEncoder().encode(`{"format":"rooms.room-export","pad":"${"x".repeat(MAX_IMPORT_BYTES)}"}`);
    const refused = await importZip(ws, tooBig);
    expect(refused.status).toBe(413);
    expect((await refused.json<{ error: { code: string } }>()).error.code).toBe("payload_too_large:body");
  });

  it("refuses an archive whose files pass the workspace's quota with a 413, leaving nothing", async () => {
    const source = await exportedRoom();
    const overseer = env.OverseerAgent.get(env.OverseerAgent.idFromName(source.ws));
    // The source's files fit; one more copy of them does not.
    await runInDurableObject(overseer, (_o: OverseerAgent, state) => {
      state.storage.sql.exec(
        "INSERT INTO room_file_usage (room_id, bytes, files) VALUES ('elsewhere', ?, 0)",
        DEFAULT_WORKSPACE_FILE_QUOTA_BYTES - 2 * (source.notes.size + source.picture.size) + 1
      );
    });
    const rooms = await roomIds(source.ws);
    const keys = await storedKeys(`${source.ws}/`);
    const refused = await importZip(source.ws, source.zip);
    expect(refused.status).toBe(413);
    expect((await refused.json<{ error: { code: string } }>()).error.code).toBe("payload_too_large:quota");
    expect(await roomIds(source.ws)).toEqual(rooms);
    expect(await storedKeys(`${source.ws}/`)).toEqual(keys);
  });
});
