/**
 * Export, import and fork over REST (the overseer and rooms do the work):
 *
 *   GET  /api/rooms/:id/export?format=json|markdown|zip   one room, streamed (zip: with its files)
 *   GET  /api/export                                  the workspace, NDJSON, streamed
 *   POST /api/rooms/import                            our export, ChatGPT's conversations.json, or a room's .zip (its files restored)
 *   POST /api/rooms/:id/fork  { messageId }           a new room up to that message
 *
 * (each also under /api/workspaces/<workspace>/...)
 */
import { zValidator } from "@hono/zod-validator";
import { Hono } from "hono";
import { AppError, unwrap } from "@/server/app-error";
import { parseImportFile } from "@/server/domain/transfer/room-import";
import { isZip } from "@/server/domain/transfer/zip-read";
import { importZip } from "@/server/files/restore-zip";
import { roomZip } from "@/server/files/room-zip";
import { type AppEnv, requireCaller } from "@/server/http/access";
import { peekBody, readCappedText } from "@/server/http/request-body";
import { rejectInvalid } from "@/server/http/validation";
import { ExportQuery, ForkBody, MAX_IMPORT_BYTES } from "@/shared/transfer";
import { overseerFor } from "./overseer-stub";

/** A filename-safe form of a room name. */
function fileStem(name: string): string {
  return (
    name
      .normalize("NFKD")
      .replace(/[^\w.-]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 60) || "room"
  );
}

const jsonTooLarge = () =>
  new AppError("payload_too_large:body", 413, `An import file may be at most ${MAX_IMPORT_BYTES} bytes.`);

export const roomTransferRoutes = new Hono<AppEnv>()
  .post("/import", async (c) => {
    const caller = requireCaller(c);
    const declared = Number(c.req.header("content-length") ?? Number.NaN);
    const { head, body } = await peekBody(c.req.raw.body, 4);
    const overseer = await overseerFor(c);
    // What the bytes are decides, not the name or the Content-Type: a .zip is a room with its files.
    if (isZip(head)) {
      if (!Number.isSafeInteger(declared)) {
        throw new AppError("bad_request:zip", 400, "Send a .zip import with its Content-Length.");
      }
      return c.json(await importZip(c.env.FILES, overseer, caller, body, declared), 201);
    }
    if (declared > MAX_IMPORT_BYTES) throw jsonTooLarge();
    // Everything is validated before the first room is made.
    const rooms = parseImportFile(await readCappedText(body, MAX_IMPORT_BYTES, jsonTooLarge));
    return c.json(unwrap(await overseer.importRooms(rooms, caller)), 201);
  })
  .get("/:id/export", zValidator("query", ExportQuery, rejectInvalid("bad_request:query")), async (c) => {
    const caller = requireCaller(c);
    const id = c.req.param("id");
    const { format } = c.req.valid("query");
    const overseer = await overseerFor(c);
    if (format === "zip") {
      // Asked first, so a room the caller may not export answers its 403/404 rather than a broken archive.
      const transcript = unwrap(await overseer.exportRoom(id, "json", caller));
      const zip = roomZip(c.env.FILES, {
        transcript: async () => transcript,
        files: async (before, limit) => unwrap(await overseer.listFiles(id, { before, limit }, caller)),
        copy: async (fileId) => unwrap(await overseer.exportFileCopy(id, fileId, caller))
      });
      return new Response(zip, {
        headers: {
          "content-type": "application/zip",
          "content-disposition": `attachment; filename="room-${fileStem(id)}.zip"`,
          "cache-control": "no-store"
        }
      });
    }
    const stream = unwrap(await overseer.exportRoom(id, format, caller));
    const ext = format === "json" ? "json" : "md";
    return new Response(stream, {
      headers: {
        "content-type": format === "json" ? "application/json; charset=utf-8" : "text/markdown; charset=utf-8",
        "content-disposition": `attachment; filename="room-${fileStem(id)}.${ext}"`,
        "cache-control": "no-store"
      }
    });
  })
  .post("/:id/fork", zValidator("json", ForkBody, rejectInvalid("bad_request:body")), async (c) => {
    const caller = requireCaller(c);
    const overseer = await overseerFor(c);
    const room = unwrap(await overseer.forkRoom(c.req.param("id"), c.req.valid("json").messageId, caller));
    return c.json(room, 201, { Location: `/api/rooms/${room.id}` });
  });

export const workspaceExportRoutes = new Hono<AppEnv>().get("/", async (c) => {
  const caller = requireCaller(c);
  const overseer = await overseerFor(c);
  return new Response(unwrap(await overseer.exportWorkspace(caller)), {
    headers: {
      "content-type": "application/x-ndjson; charset=utf-8",
      "content-disposition": `attachment; filename="workspace-${fileStem(c.req.param("workspace") ?? "default")}.ndjson"`,
      "cache-control": "no-store"
    }
  });
});
