/**
 * A fork keeps its files: the bytes are copied in R2 under the fork, the
 * records and the index come with the same ids, the copied messages' file
 * parts point at the fork's route, and all of it keeps working after the
 * source room is deleted. Files added after the fork point stay behind.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
// The Worker's modules, loaded with the file: a file run alone otherwise loads them inside its first request.
import "@/server/index";
import type { OverseerAgent } from "@/server/agents/overseer-agent";
import { DEFAULT_WORKSPACE_FILE_QUOTA_BYTES } from "@/shared/constants";
import type { RoomDetail } from "@/shared/protocol";
import { fileForm, PNG_BYTES } from "../support/files";
import { waitFor } from "../support/wait";
import { filesPath, roomFiles, storedKeys, uploadFile } from "./file-helpers";
import { api, createRoom, history, uniqueName } from "./helpers";

vi.setConfig({ testTimeout: 60_000 });

const roomsPath = (ws: string) => `/api/workspaces/${ws}/rooms`;

const overseer = (ws: string) => env.OverseerAgent.get(env.OverseerAgent.idFromName(ws));

const FACT = "The harbour crane lifts forty tonnes on a calm day.";

describe("forking a room with files", () => {
  it("copies the files it had at the fork point, and they outlive the source", async () => {
    const ws = uniqueName();
    const source = await createRoom(ws);
    const notes = await uploadFile(ws, source.id, fileForm(`# Crane\n\n${FACT}\n`, "crane.md"));
    const picture = await uploadFile(ws, source.id, fileForm(PNG_BYTES, "crane.png"));
    await waitFor(
      () => roomFiles(ws, source.id),
      (list) => list.some((f) => f.id === notes.id && f.state === "indexed"),
      20_000,
      "the notes indexed"
    );
    const sent = await api(`${roomsPath(ws)}/${source.id}/messages`, {
      method: "POST",
      json: { text: "How much does the crane lift?", files: [notes.id, picture.id] }
    });
    expect(sent.status).toBe(200);
    const [question] = await history(ws, source.id);
    // Added after the fork point: stays behind.
    const later = await uploadFile(ws, source.id, fileForm("later", "later.txt"));

    const forked = await api(`${roomsPath(ws)}/${source.id}/fork`, {
      method: "POST",
      json: { messageId: question.id }
    });
    expect(forked.status, await forked.clone().text()).toBe(201);
    const fork = await forked.json<RoomDetail>();

    const copied = await roomFiles(ws, fork.id);
    expect(copied.map((f) => f.id).sort()).toEqual([notes.id, picture.id].sort());
    expect(copied.find((f) => f.id === notes.id)).toMatchObject({
      name: "crane.md",
      state: "indexed",
      chunks: 1,
      size: notes.size,
      sha256: notes.sha256,
      author: notes.author,
      createdAt: notes.createdAt
    });
    expect(copied.some((f) => f.id === later.id)).toBe(false);
    expect(await storedKeys(`${ws}/${fork.id}/`)).toEqual(
      [notes.id, picture.id].map((id) => `${ws}/${fork.id}/${id}`).sort()
    );
    const [copiedQuestion] = await history(ws, fork.id);
    const urls = copiedQuestion.parts
      .filter((p: { type: string }) => p.type === "file")
      .map((p: { url: string }) => p.url);
    expect(urls.sort()).toEqual([notes.id, picture.id].map((id) => `${filesPath(ws, fork.id)}/${id}`).sort());

    // The source goes, bytes and all; the fork keeps its files, readable and searchable.
    expect((await api(`${roomsPath(ws)}/${source.id}`, { method: "DELETE" })).status).toBe(204);
    await expect.poll(() => storedKeys(`${ws}/${source.id}/`)).toEqual([]);
    const bytes = await api(`${filesPath(ws, fork.id)}/${picture.id}`);
    expect(bytes.status).toBe(200);
    expect(new Uint8Array(await bytes.arrayBuffer())).toEqual(PNG_BYTES);
    expect(await (await api(`${filesPath(ws, fork.id)}/${notes.id}`)).text()).toContain(FACT);
    const asked = await api(`${roomsPath(ws)}/${fork.id}/messages`, {
      method: "POST",
      json: { text: "How many tonnes does the harbour crane lift?" }
    });
    expect(asked.status).toBe(200);
    const answer = (await history(ws, fork.id)).at(-1);
    expect(answer.parts.find((p: { type: string }) => p.type === "source-document")).toMatchObject({
      providerMetadata: { rooms: { fileId: notes.id } }
    });
    // The workspace counts the fork's copies, and nothing of the source's.
    const usage = await runInDurableObject(overseer(ws), (o: OverseerAgent) => ({
      fork: o.fileFootprint(fork.id).usage,
      source: o.fileFootprint(source.id).usage
    }));
    expect(usage).toEqual({ fork: { bytes: notes.size + picture.size, files: 2 }, source: { bytes: 0, files: 0 } });
  });

  it("refuses a fork whose files would pass the workspace's quota, and leaves nothing half-made", async () => {
    const ws = uniqueName();
    const source = await createRoom(ws);
    await uploadFile(ws, source.id, fileForm(PNG_BYTES, "a.png"));
    const sent = await api(`${roomsPath(ws)}/${source.id}/messages`, { method: "POST", json: { text: "hello" } });
    expect(sent.status).toBe(200);
    const [message] = await history(ws, source.id);
    const before = (await (await api(roomsPath(ws))).json<{ rooms: { id: string }[] }>()).rooms.map((r) => r.id);
    // Fill the workspace so that the source's file fits but one more copy of it does not.
    await runInDurableObject(overseer(ws), (_o: OverseerAgent, state) => {
      state.storage.sql.exec(
        "INSERT INTO room_file_usage (room_id, bytes, files) VALUES ('elsewhere', ?, 0)",
        DEFAULT_WORKSPACE_FILE_QUOTA_BYTES - 2 * PNG_BYTES.length + 1
      );
    });
    const refused = await api(`${roomsPath(ws)}/${source.id}/fork`, {
      method: "POST",
      json: { messageId: message.id }
    });
    expect(refused.status).toBe(413);
    expect((await refused.json<{ error: { code: string } }>()).error.code).toBe("payload_too_large:quota");
    const after = (await (await api(roomsPath(ws))).json<{ rooms: { id: string }[] }>()).rooms.map((r) => r.id);
    expect(after).toEqual(before);
    const keys = await storedKeys(`${ws}/`);
    expect(keys.every((k) => k.startsWith(`${ws}/${source.id}/`))).toBe(true);
  });
});
