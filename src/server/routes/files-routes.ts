/**
 * Files in a room over REST (the UI uses the same routes):
 *
 *   POST   /api/rooms/:id/files            multipart/form-data, field `file` → 201 { file }
 *   GET    /api/rooms/:id/files            { files, nextCursor, usage }, newest first
 *   GET    /api/rooms/:id/files/:fileId    the bytes
 *   DELETE /api/rooms/:id/files/:fileId    record, index and bytes
 *
 * The bytes go between the request and R2 here, in the Worker: the
 * overseer only admits the upload and the room only records it, so a file
 * never passes through either (files/store-upload.ts).
 */
import { zValidator } from "@hono/zod-validator";
import { Hono } from "hono";
import { AppError, unwrap } from "@/server/app-error";
import { sanitizeFileName } from "@/server/domain/files/file-types";
import { boundaryOf, MultipartError, openFilePart } from "@/server/domain/files/multipart-stream";
import { extractPassages } from "@/server/files/extract-passages";
import { requireFileId, serveFile } from "@/server/files/serve-file";
import { storeUpload } from "@/server/files/store-upload";
import { type AppEnv, requireCaller } from "@/server/http/access";
import { rejectInvalid } from "@/server/http/validation";
import { MAX_FILE_NAME_LENGTH } from "@/shared/constants";
import { FilesQuery, type RoomFile } from "@/shared/files";
import { authorOf } from "@/shared/identity";
import { overseerFor } from "./overseer-stub";

/** Bytes of a multipart body beyond its file: boundaries and part headers. */
const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

export const fileRoutes = new Hono<AppEnv>()
  .post("/", async (c) => {
    const caller = requireCaller(c);
    const id = c.req.param("id") as string;
    const boundary = boundaryOf(c.req.header("content-type"));
    if (!boundary || !c.req.raw.body) {
      throw new AppError(
        "unsupported_media_type:upload",
        415,
        'Send the file as multipart/form-data with the file in a field named "file".'
      );
    }
    const overseer = await overseerFor(c);
    const ticket = unwrap(await overseer.admitUpload(id, caller));
    const tooLarge = () => new AppError(ticket.tooLargeCode, 413, ticket.tooLarge);
    const declared = Number(c.req.header("content-length"));
    if (Number.isFinite(declared) && declared > ticket.maxBytes + MULTIPART_OVERHEAD_BYTES) throw tooLarge();

    let part: Awaited<ReturnType<typeof openFilePart>>;
    try {
      part = await openFilePart(c.req.raw.body, boundary);
    } catch (error: unknown) {
      if (error instanceof MultipartError) throw new AppError("bad_request:upload", 400, error.message);
      throw error;
    }
    let stored: Awaited<ReturnType<typeof storeUpload>>;
    try {
      stored = await storeUpload(c.env.FILES, ticket.key, part, { maxBytes: ticket.maxBytes, tooLarge });
    } catch (error: unknown) {
      if (error instanceof MultipartError) throw new AppError("bad_request:upload", 400, error.message);
      throw error;
    }
    const registered = await overseer
      .registerFile(
        id,
        {
          id: ticket.fileId,
          name: sanitizeFileName(part.filename, MAX_FILE_NAME_LENGTH),
          contentType: stored.contentType,
          kind: stored.kind,
          size: stored.size,
          sha256: stored.sha256,
          author: authorOf(caller.identity)
        },
        caller
      )
      .catch((error: unknown) => ({ ok: false as const, thrown: error }));
    if (!registered.ok) {
      // The room went or filled up while the bytes arrived: they go too.
      await c.env.FILES.delete(ticket.key);
      if ("thrown" in registered) throw registered.thrown;
      unwrap(registered);
    }
    const file = (registered as { ok: true; value: RoomFile }).value;
    if (file.state === "indexing") {
      // After the answer: a 300-page PDF must not hold the upload's response.
      c.executionCtx.waitUntil(
        extractPassages(c.env.FILES, ticket.key, file, {
          add: async (batch) => unwrap(await overseer.addFilePassages(id, file.id, batch)),
          fail: async (reason) => unwrap(await overseer.failFileIndex(id, file.id, reason))
        }).catch((error: unknown) => console.warn("[files] indexing stopped:", error))
      );
    }
    return c.json({ file }, 201, { Location: `${new URL(c.req.url).pathname}/${file.id}` });
  })
  .get("/", zValidator("query", FilesQuery, rejectInvalid("bad_request:query")), async (c) => {
    const caller = requireCaller(c);
    const overseer = await overseerFor(c);
    return c.json(unwrap(await overseer.listFiles(c.req.param("id") as string, c.req.valid("query"), caller)));
  })
  .get("/:fileId", async (c) => {
    const caller = requireCaller(c);
    const fileId = c.req.param("fileId");
    requireFileId(fileId);
    const overseer = await overseerFor(c);
    const { file, key } = unwrap(await overseer.getFile(c.req.param("id") as string, fileId, caller));
    return serveFile(c.env.FILES, file, key);
  })
  .delete("/:fileId", async (c) => {
    const caller = requireCaller(c);
    const fileId = c.req.param("fileId");
    requireFileId(fileId);
    const overseer = await overseerFor(c);
    unwrap(await overseer.deleteFile(c.req.param("id") as string, fileId, caller));
    return c.body(null, 204);
  });
