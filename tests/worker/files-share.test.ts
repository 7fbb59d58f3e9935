/**
 * A share link's viewer and the room's files, against the real Worker and
 * the local R2 bucket: the link lists the room's files and serves their
 * bytes as the member's route does, only for its own room and only while
 * it is valid; a link can neither add nor remove a file.
 */
import { describe, expect, it, vi } from "vitest";
// The Worker's modules, loaded with the file: a file run alone otherwise loads them inside its first request.
import "@/server/index";
import type { ErrorBody } from "@/shared/errors";
import type { FilePage, RoomFile } from "@/shared/files";
import type { ShareLink } from "@/shared/shares";
import { fileForm, PNG_BYTES } from "../support/files";
import { api, BASE, createRoom, fetchWorker, uniqueName } from "./helpers";

vi.setConfig({ testTimeout: 60_000 });

const roomsPath = (ws: string) => `/api/workspaces/${ws}/rooms`;

async function upload(ws: string, roomId: string, form: FormData): Promise<RoomFile> {
  const response = await fetchWorker(
    new Request(`${BASE}${roomsPath(ws)}/${roomId}/files`, { method: "POST", body: form })
  );
  expect(response.status, await response.clone().text()).toBe(201);
  return (await response.json<{ file: RoomFile }>()).file;
}

async function shareToken(ws: string, roomId: string): Promise<{ id: string; token: string }> {
  const response = await api(`${roomsPath(ws)}/${roomId}/shares`, { method: "POST", json: {} });
  expect(response.status).toBe(201);
  const link = await response.json<ShareLink>();
  return { id: link.id, token: link.path.replace(/^\/share\//, "") };
}

const errorCode = async (response: Response) => (await response.json<ErrorBody>()).error.code;

describe("a share link's viewer and the room's files", () => {
  it("lists the room's files and downloads their bytes, as a member's routes do", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const image = await upload(ws, room.id, fileForm(PNG_BYTES, "pic.png"));
    const notes = await upload(ws, room.id, fileForm("<b>hello</b>", "page.html"));
    const { token } = await shareToken(ws, room.id);

    const listed = await api(`/api/share/${token}/files`);
    expect(listed.status).toBe(200);
    expect(listed.headers.get("cache-control")).toBe("no-store");
    const page = await listed.json<FilePage>();
    expect(page.files.map((f) => f.id)).toEqual([notes.id, image.id]);

    const bytes = await api(`/api/share/${token}/files/${image.id}`);
    expect(bytes.status).toBe(200);
    expect(bytes.headers.get("content-type")).toBe("image/png");
    expect(new Uint8Array(await bytes.arrayBuffer())).toEqual(PNG_BYTES);
    // HTML is never rendered inline, for a viewer as for a member.
    const html = await api(`/api/share/${token}/files/${notes.id}`);
    expect(html.headers.get("content-disposition")).toMatch(/^attachment;/);
    expect(html.headers.get("x-content-type-options")).toBe("nosniff");
    expect(html.headers.get("content-security-policy")).toContain("sandbox");
  });

  it("reaches only its own room's files, and nothing once revoked", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const other = await createRoom(ws);
    const mine = await upload(ws, room.id, fileForm(PNG_BYTES, "mine.png"));
    const theirs = await upload(ws, other.id, fileForm(PNG_BYTES, "theirs.png"));
    const link = await shareToken(ws, room.id);

    const elsewhere = await api(`/api/share/${link.token}/files/${theirs.id}`);
    expect(elsewhere.status).toBe(404);
    expect(await errorCode(elsewhere)).toBe("not_found:file");
    expect((await api(`/api/share/${link.token}/files/not-an-id`)).status).toBe(404);
    expect((await api(`/api/share/${link.token}/files?limit=0`)).status).toBe(400);

    const revoked = await api(`${roomsPath(ws)}/${room.id}/shares/${link.id}`, { method: "DELETE" });
    expect(revoked.status).toBe(204);
    for (const path of [`/api/share/${link.token}/files`, `/api/share/${link.token}/files/${mine.id}`]) {
      const response = await api(path);
      expect(response.status).toBe(404);
      expect(await errorCode(response)).toBe("not_found:share");
    }
  });

  it("cannot add or remove a file: there is no such route for a link, and the room keeps its files", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const file = await upload(ws, room.id, fileForm(PNG_BYTES, "kept.png"));
    const { token } = await shareToken(ws, room.id);

    const added = await fetchWorker(
      new Request(`${BASE}/api/share/${token}/files`, { method: "POST", body: fileForm(PNG_BYTES, "new.png") })
    );
    // Refused before any route: a link has no upload (and a form is not the JSON every other write takes).
    expect([404, 415]).toContain(added.status);
    const removed = await api(`/api/share/${token}/files/${file.id}`, { method: "DELETE" });
    expect(removed.status).toBe(404);

    const page = await (await api(`${roomsPath(ws)}/${room.id}/files`)).json<FilePage>();
    expect(page.files.map((f) => f.id)).toEqual([file.id]);
  });
});
