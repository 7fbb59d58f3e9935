/**
 * Files through the real Worker, for the worker tests of uploads, zips,
 * forks and shares: a multipart POST to a room's files route, its answer
 * read as the stored record, and the R2 keys left under a prefix (what a
 * test lists to prove nothing is orphaned).
 */
import { env } from "cloudflare:workers";
import type { FilePage, RoomFile } from "../../src/shared/files";
import { api, BASE, fetchWorker } from "./helpers";

export const filesPath = (ws: string, roomId: string) => `/api/workspaces/${ws}/rooms/${roomId}/files`;

/** The upload's answer, whatever it is. */
export function postFile(ws: string, roomId: string, form: FormData, headers: Record<string, string> = {}) {
  return fetchWorker(new Request(`${BASE}${filesPath(ws, roomId)}`, { method: "POST", body: form, headers }));
}

/** The stored record of an upload that must have succeeded. */
export async function uploaded(response: Response): Promise<RoomFile> {
  if (response.status !== 201) throw new Error(`upload failed ${response.status}: ${await response.text()}`);
  return (await response.json<{ file: RoomFile }>()).file;
}

export async function uploadFile(ws: string, roomId: string, form: FormData, headers: Record<string, string> = {}) {
  return uploaded(await postFile(ws, roomId, form, headers));
}

/** The room's files, newest first (the first page). */
export async function roomFiles(ws: string, roomId: string): Promise<RoomFile[]> {
  return (await (await api(filesPath(ws, roomId))).json<FilePage>()).files;
}

/** Every R2 key under `prefix`, sorted. */
export async function storedKeys(prefix: string): Promise<string[]> {
  return (await env.FILES.list({ prefix })).objects.map((o) => o.key).sort();
}
