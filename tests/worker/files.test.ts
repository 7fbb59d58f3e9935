/**
 * Files in a room, inside workerd against the real Worker and the local R2
 * bucket: the upload streams to R2 with its type decided from the bytes,
 * list, download and delete answer as the contract says, every refusal
 * leaves nothing in the bucket, and a deleted room leaves no byte and no row.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import type { OverseerAgent } from "@/server/agents/overseer-agent";
import { ChatRoom } from "@/server/index";
import { DEFAULT_MAX_FILE_BYTES, FILE_UPLOAD_RATE } from "@/shared/constants";
import type { ErrorBody } from "@/shared/errors";
import type { FilePage, RoomFile } from "@/shared/files";
import { fileForm, filledChunks, JPEG_HEAD, PNG_BYTES, sha256Hex, streamedUpload } from "../support/files";
import { filesPath, postFile, storedKeys, uploaded } from "./file-helpers";
import { api, BASE, connect, createRoom, fetchWorker, roomPath, signIn, uniqueName, workspaceAdmin } from "./helpers";

vi.setConfig({ testTimeout: 60_000 });

function uploadStream(ws: string, roomId: string, streamed: ReturnType<typeof streamedUpload>) {
  return fetchWorker(
    new Request(`${BASE}${filesPath(ws, roomId)}`, {
      method: "POST",
      body: streamed.body,
      headers: { "content-type": streamed.contentType },
      // @ts-expect-error workerd wants `duplex` for a streamed request body only in some versions
      duplex: "half"
    })
  );
}

function overseer(ws: string) {
  return env.OverseerAgent.get(env.OverseerAgent.idFromName(ws));
}

async function errorOf(response: Response): Promise<{ status: number; code: string; message: string }> {
  const body = await response.json<ErrorBody>();
  return { status: response.status, code: body.error.code, message: body.error.message };
}

describe("uploading a file", () => {
  it("streams it to R2, records it in the room and answers 201 with its record", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const response = await postFile(ws, room.id, fileForm(PNG_BYTES, "../../etc/\u202epic.png", "image/png"));
    const file = await uploaded(response);
    expect(file).toMatchObject({
      name: "pic.png",
      contentType: "image/png",
      kind: "image",
      size: PNG_BYTES.length,
      sha256: await sha256Hex(PNG_BYTES),
      author: { id: "api", name: "API" },
      state: "stored"
    });
    expect(file.id).toMatch(/^f_[A-Za-z0-9_-]{16}$/);
    expect(response.headers.get("location")).toBe(`${filesPath(ws, room.id)}/${file.id}`);
    const object = await env.FILES.get(`${ws}/${room.id}/${file.id}`);
    expect(new Uint8Array(await object!.arrayBuffer())).toEqual(PNG_BYTES);
  });

  it("decides the type from the bytes: a name or header says nothing a file's bytes contradict", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    // No claim at all: the bytes decide.
    expect((await uploaded(await postFile(ws, room.id, fileForm(PNG_BYTES, "noext")))).contentType).toBe("image/png");
    // Text: the name picks among text types.
    const notes = await uploaded(await postFile(ws, room.id, fileForm("# Notes\n\nhello", "notes.md")));
    expect(notes).toMatchObject({ contentType: "text/markdown; charset=utf-8", kind: "text", state: "indexing" });

    const refusals = [
      fileForm(PNG_BYTES, "photo.jpg", "image/jpeg"),
      fileForm("<html><script>alert(1)</script></html>", "x.png", "image/png"),
      fileForm(new Uint8Array([0x00, 0x01, 0x02, 0xfe, 0xff, 0x00]), "blob.bin"),
      fileForm(JPEG_HEAD, "doc.pdf", "application/pdf"),
      fileForm(new Uint8Array(0), "empty.txt", "text/plain")
    ];
    for (const form of refusals) {
      const error = await errorOf(await postFile(ws, room.id, form));
      expect(error.status).toBe(415);
      expect(error.code).toBe("unsupported_media_type:file");
    }
    // Text that turns out not to be UTF-8 after the first bytes.
    const tail = new Uint8Array(10);
    tail.set([0xc3, 0x28]);
    const error = await errorOf(
      await uploadStream(ws, room.id, streamedUpload("a.txt", "text/plain", [new Uint8Array(8192).fill(0x61), tail]))
    );
    expect(error).toMatchObject({ status: 415, code: "unsupported_media_type:file" });
    const page = await (await api(filesPath(ws, room.id))).json<FilePage>();
    expect(page.files).toHaveLength(2);
    expect(await storedKeys(`${ws}/${room.id}/`)).toHaveLength(2);
  });

  it("refuses what is not a multipart upload with a file, and unknown rooms", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const json = await api(filesPath(ws, room.id), { method: "POST", json: { file: "x" } });
    expect(await errorOf(json)).toMatchObject({ status: 415, code: "unsupported_media_type:upload" });
    const noFile = new FormData();
    noFile.append("note", "no file here");
    expect(await errorOf(await postFile(ws, room.id, noFile))).toMatchObject({
      status: 400,
      code: "bad_request:upload"
    });
    const cut = await uploadStream(
      ws,
      room.id,
      streamedUpload("a.txt", "text/plain", [new Uint8Array(100).fill(0x61)], { truncate: true })
    );
    expect(await errorOf(cut)).toMatchObject({ status: 400, code: "bad_request:upload" });
    expect(await errorOf(await postFile(ws, "nosuchroom000000", fileForm(PNG_BYTES, "a.png")))).toMatchObject({
      status: 404,
      code: "not_found:room"
    });
    expect(await storedKeys(`${ws}/`)).toEqual([]);
  });

  it("stores a file larger than one R2 part through a multipart upload, bytes and hash intact", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const chunk = new Uint8Array(64 * 1024);
    for (let i = 0; i < chunk.length; i++) chunk[i] = (i * 7) % 251;
    chunk.set(PNG_BYTES.subarray(0, 8)); // a PNG signature in front: bytes, not text
    const count = 190; // ~12 MB: two full 5 MiB parts and a remainder
    const whole = new Uint8Array(chunk.length * count);
    for (let i = 0; i < count; i++) whole.set(chunk, i * chunk.length);
    const file = await uploaded(
      await uploadStream(ws, room.id, streamedUpload("big.png", "image/png", filledFrom(chunk, count)))
    );
    expect(file.size).toBe(whole.length);
    expect(file.sha256).toBe(await sha256Hex(whole));
    const download = await api(`${filesPath(ws, room.id)}/${file.id}`);
    expect(download.status).toBe(200);
    expect(await sha256Hex(new Uint8Array(await download.arrayBuffer()))).toBe(file.sha256);
  });

  it("answers 413 with the limit past the file limit, early by Content-Length or while streaming, and keeps nothing", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const limitText = "25 MB";
    // Serialised first, so the request carries its Content-Length.
    const form = new Response(fileForm(new Uint8Array(DEFAULT_MAX_FILE_BYTES + 1).fill(0x61), "huge.txt"));
    const early = await errorOf(
      await fetchWorker(
        new Request(`${BASE}${filesPath(ws, room.id)}`, {
          method: "POST",
          body: await form.arrayBuffer(),
          headers: { "content-type": form.headers.get("content-type") ?? "" }
        })
      )
    );
    expect(early).toMatchObject({ status: 413, code: "payload_too_large:file" });
    expect(early.message).toContain(limitText);
    const chunks = DEFAULT_MAX_FILE_BYTES / (1024 * 1024) + 1;
    const streamed = await errorOf(
      await uploadStream(ws, room.id, streamedUpload("huge.txt", "text/plain", filledChunks(chunks, 1024 * 1024)))
    );
    expect(streamed).toMatchObject({ status: 413, code: "payload_too_large:file" });
    expect(streamed.message).toContain(limitText);
    expect(await storedKeys(`${ws}/`)).toEqual([]);
    expect((await (await api(filesPath(ws, room.id))).json<FilePage>()).files).toEqual([]);
  });

  it("rate-limits uploads per identity with 429 and Retry-After", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    // Until the first refusal: on a loaded machine the allowance refills while the burst is spent.
    let accepted = 0;
    let limited: Response | undefined;
    for (let i = 0; i < FILE_UPLOAD_RATE.burst * 3 && !limited; i++) {
      const response = await postFile(ws, room.id, fileForm(PNG_BYTES, `${i}.png`));
      if (response.status === 429) limited = response;
      else await uploaded(response).then(() => accepted++);
    }
    expect(accepted).toBeGreaterThanOrEqual(FILE_UPLOAD_RATE.burst);
    if (!limited) throw new Error(`no upload refused after ${accepted}`);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await errorOf(limited)).code).toBe("rate_limited:requests");
  });

  it("tells everyone in the room at once: a second socket sees the file appear and go", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const watcher = await connect(roomPath(ws, room.id));
    const file = await uploaded(await postFile(ws, room.id, fileForm(PNG_BYTES, "live.png")));
    const seen = await watcher.next((f) => f?.type === "rooms_file" && f.file.id === file.id);
    expect(seen.file).toMatchObject({ name: "live.png", size: PNG_BYTES.length });
    expect((await api(`${filesPath(ws, room.id)}/${file.id}`, { method: "DELETE" })).status).toBe(204);
    await watcher.next((f) => f?.type === "rooms_file_deleted" && f.id === file.id);
    watcher.ws.close();
  });
});

function* filledFrom(chunk: Uint8Array, count: number): Generator<Uint8Array> {
  for (let i = 0; i < count; i++) yield chunk;
}

describe("listing, reading and deleting files", () => {
  it("lists newest first, a page at a time, with what the room's files use", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const made: RoomFile[] = [];
    for (let i = 0; i < 3; i++)
      made.push(await uploaded(await postFile(ws, room.id, fileForm(`file ${i}`, `f${i}.txt`))));
    const first = await (await api(`${filesPath(ws, room.id)}?limit=2`)).json<FilePage>();
    expect(first.files.map((f) => f.id)).toEqual([made[2]!.id, made[1]!.id]);
    expect(first.usage).toEqual({ bytes: made.reduce((n, f) => n + f.size, 0), files: 3 });
    const second = await (await api(`${filesPath(ws, room.id)}?limit=2&before=${first.nextCursor}`)).json<FilePage>();
    expect(second.files.map((f) => f.id)).toEqual([made[0]!.id]);
    expect(second.nextCursor).toBeNull();
    expect((await api(`${filesPath(ws, room.id)}?limit=0`)).status).toBe(400);
  });

  it("serves the bytes with the stored type, nosniff, and inline only for raster images and PDFs", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const png = await uploaded(await postFile(ws, room.id, fileForm(PNG_BYTES, "p.png")));
    const html = await uploaded(await postFile(ws, room.id, fileForm("<h1>hi</h1><script>x()</script>", "page.html")));
    const svg = await uploaded(
      await postFile(
        ws,
        room.id,
        fileForm('<svg xmlns="http://www.w3.org/2000/svg"><script>x()</script></svg>', "é.svg")
      )
    );
    const image = await api(`${filesPath(ws, room.id)}/${png.id}`);
    expect(image.headers.get("content-type")).toBe("image/png");
    expect(image.headers.get("x-content-type-options")).toBe("nosniff");
    expect(image.headers.get("content-disposition")).toMatch(/^inline; filename="p.png"/);
    expect(image.headers.get("content-security-policy")).toContain("sandbox");
    expect(new Uint8Array(await image.arrayBuffer())).toEqual(PNG_BYTES);
    for (const file of [html, svg]) {
      const response = await api(`${filesPath(ws, room.id)}/${file.id}`);
      expect(response.headers.get("content-disposition")).toMatch(/^attachment;/);
      expect(response.headers.get("content-security-policy")).toContain("sandbox");
      await response.arrayBuffer();
    }
    const svgResponse = await api(`${filesPath(ws, room.id)}/${svg.id}`);
    expect(svgResponse.headers.get("content-disposition")).toContain("filename*=UTF-8''%C3%A9.svg");
    await svgResponse.arrayBuffer();
    expect((await errorOf(await api(`${filesPath(ws, room.id)}/f_AAAAAAAAAAAAAAAA`))).code).toBe("not_found:file");
    expect((await errorOf(await api(`${filesPath(ws, room.id)}/nope`))).code).toBe("not_found:file");
  });

  it("deletes record and bytes for the file's author, the room's owner or an admin; anyone else gets 403", async () => {
    const ws = uniqueName();
    const admin = await workspaceAdmin(ws);
    const owner = await signIn("Olive");
    const room = await (
      await api(`/api/workspaces/${ws}/rooms`, { method: "POST", json: { name: "Files" }, headers: owner.headers })
    ).json<{ id: string }>();
    const ada = await signIn("Ada");
    const bob = await signIn("Bob");
    const file = await uploaded(await postFile(ws, room.id, fileForm("hello", "a.txt"), ada.headers));
    const refused = await api(`${filesPath(ws, room.id)}/${file.id}`, { method: "DELETE", headers: bob.headers });
    expect(await errorOf(refused)).toMatchObject({ status: 403, code: "forbidden:not_author" });
    // The room's owner and an admin may remove anyone's file.
    for (const manager of [owner, admin]) {
      const bobs = await uploaded(await postFile(ws, room.id, fileForm("mine", "b.txt"), bob.headers));
      const removed = await api(`${filesPath(ws, room.id)}/${bobs.id}`, { method: "DELETE", headers: manager.headers });
      expect(removed.status).toBe(204);
    }
    const deleted = await api(`${filesPath(ws, room.id)}/${file.id}`, { method: "DELETE", headers: ada.headers });
    expect(deleted.status).toBe(204);
    expect((await api(`${filesPath(ws, room.id)}/${file.id}`)).status).toBe(404);
    await expect.poll(() => storedKeys(`${ws}/${room.id}/`)).toEqual([]);
    const footprint = await runInDurableObject(overseer(ws), (o: OverseerAgent) => o.fileFootprint(room.id));
    expect(footprint).toEqual({ usage: { bytes: 0, files: 0 }, purges: [], open: [] });
  });
});

describe("deleting a room", () => {
  it("leaves no object in the bucket and no row anywhere", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const other = await createRoom(ws);
    for (let i = 0; i < 3; i++) await uploaded(await postFile(ws, room.id, fileForm(PNG_BYTES, `${i}.png`)));
    await uploaded(await postFile(ws, other.id, fileForm(PNG_BYTES, "kept.png")));
    expect(await storedKeys(`${ws}/${room.id}/`)).toHaveLength(3);

    expect((await api(`/api/workspaces/${ws}/rooms/${room.id}`, { method: "DELETE" })).status).toBe(204);
    await expect.poll(() => storedKeys(`${ws}/${room.id}/`)).toEqual([]);
    const left = await runInDurableObject(overseer(ws), async (o: OverseerAgent) => ({
      footprint: o.fileFootprint(room.id),
      facet: o.dynamicAgents.has(ChatRoom, room.id)
    }));
    expect(left).toEqual({ footprint: { usage: { bytes: 0, files: 0 }, purges: [], open: [] }, facet: false });
    // The other room keeps its file.
    expect(await storedKeys(`${ws}/${other.id}/`)).toHaveLength(1);
    expect((await api(filesPath(ws, room.id))).status).toBe(404);
  });
});
