/**
 * A room's file records as the overseer's RPC reaches them: each call asks
 * who may (uploaders may add and delete, readers may list and fetch), goes
 * to a registered room (overseer/workspace-rooms.ts) and keeps the
 * workspace's file quotas in step with what the room records
 * (overseer/workspace-files.ts). The bytes never come here: the Worker
 * streams them between the request and R2.
 */
import { AppError, unwrap } from "@/server/app-error";
import type { Caller } from "@/server/domain/access/caller";
import { fileKey, type UploadTicket } from "@/server/domain/files/file-limits";
import type { FileCopy, FilePage, FilesQuery, NewFile, RoomFile } from "@/shared/files";
import { authorOf } from "@/shared/identity";
import type { WorkspaceAccess } from "./workspace-access";
import type { WorkspaceFiles } from "./workspace-files";
import type { WorkspaceRooms } from "./workspace-rooms";

export class FileRecords {
  constructor(
    private readonly rooms: Pick<WorkspaceRooms, "call">,
    private readonly access: Pick<WorkspaceAccess, "requireRoom" | "may">,
    private readonly files: WorkspaceFiles,
    /** The workspace's name, the first segment of every file's key in R2. */
    private readonly workspace: () => string
  ) {}

  /** Before an upload reads a byte: the room exists, the caller may upload, and something fits. */
  admit(roomId: string, caller: Caller): Promise<UploadTicket> {
    this.access.requireRoom(caller, roomId, "room.upload");
    return this.files.admit(this.workspace(), roomId, caller);
  }

  /** After the Worker stored an upload's bytes: the room records it, unless it went or filled up meanwhile. */
  async register(roomId: string, file: NewFile, caller: Caller): Promise<RoomFile> {
    // Asked again: the uploader may have lost the room while the bytes streamed.
    this.access.requireRoom(caller, roomId, "room.upload");
    this.files.checkFits(roomId, file.size);
    // From here the record owns the bytes; an upload past its deadline is already being purged.
    if (!this.files.openWrites.settle(fileKey(this.workspace(), roomId, file.id))) {
      throw new AppError("conflict:file", 409, "This upload took too long and was discarded. Upload the file again.");
    }
    const stored = await this.rooms.call(roomId, caller, "room.upload", (room) => room.addFile(file));
    this.files.added(roomId, file.size);
    return stored;
  }

  list(roomId: string, query: FilesQuery, caller: Caller): Promise<FilePage> {
    return this.rooms.call(roomId, caller, "room.read", async (room) => unwrap(await room.listFiles(query)));
  }

  /** A file's record and where its bytes are. */
  get(roomId: string, fileId: string, caller: Caller): Promise<{ file: RoomFile; key: string }> {
    return this.rooms.call(roomId, caller, "room.read", async (room) => ({
      file: unwrap(await room.getFile(fileId)),
      key: fileKey(this.workspace(), roomId, fileId)
    }));
  }

  /** A file's record and index with where its bytes are, for a room's `.zip` export. */
  exportCopy(roomId: string, fileId: string, caller: Caller): Promise<{ copy: FileCopy; key: string }> {
    return this.rooms.call(roomId, caller, "room.export", async (room) => ({
      copy: unwrap(await room.copyFileOut(fileId)),
      key: fileKey(this.workspace(), roomId, fileId)
    }));
  }

  /** The record goes at once (nobody reaches the file after this answers), then its bytes. */
  async delete(roomId: string, fileId: string, caller: Caller): Promise<void> {
    // Your own file with the right to upload; anyone's with the right to manage the room's files.
    const anyone = this.access.may(caller, roomId, "room.files");
    const file = unwrap(
      await this.rooms.call(roomId, caller, "room.upload", (room) =>
        room.deleteFile(fileId, authorOf(caller.identity), anyone)
      )
    );
    this.files.removed(roomId, file.size, fileKey(this.workspace(), roomId, fileId));
  }

  /** What the workspace still holds of a room's files (tests prove a deleted room leaves nothing). */
  footprint(roomId: string): { usage: { bytes: number; files: number }; purges: string[]; open: string[] } {
    const usage = this.files.usage(roomId);
    return {
      usage: { bytes: usage.roomBytes, files: usage.roomFiles },
      purges: this.files.pendingPurges(),
      open: this.files.openWrites.pending()
    };
  }
}
