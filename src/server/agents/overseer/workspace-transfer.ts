/**
 * The overseer's half of export, import and fork (each room's half is
 * room/room-transfer.ts). A made room is filled before the registry shows it,
 * and a failure leaves nothing half-made: every room made so far is
 * deleted again. Slots under the workspace's room cap are held
 * (overseer/admission.ts) from the check until the rooms are registered or
 * discarded, so concurrent creations cannot overshoot it.
 */
import { AppError, roomNotFound, unwrap } from "@/server/app-error";
import type { Remote } from "@/server/contracts/remote";
import type { ChatRoomApi } from "@/server/contracts/room-api";
import type { Caller } from "@/server/domain/access/caller";
import { generateRoomId, type RoomRow } from "@/server/domain/rooms/room-rows";
import { badImport, type ImportedRoom } from "@/server/domain/transfer/imported-room";
import { ndjsonBatches } from "@/server/domain/transfer/ndjson-batches";
import { withPersonaIds } from "@/server/domain/transfer/room-import";
import { distinctRoomName } from "@/server/domain/transfer/room-names";
import type { ArchivedFiles } from "@/server/domain/transfer/zip-import";
import type { FileCopy } from "@/shared/files";
import type { RoomVisibility } from "@/shared/permissions";
import type { PersonaRef } from "@/shared/personas";
import type { ChatMessage, RoomSettings } from "@/shared/protocol";
import type { ExportedVersion, ImportResult } from "@/shared/transfer";
import type { WorkspaceAdmission } from "./admission";
import type { RoomRegistry } from "./registry";

/** Messages per import RPC: keeps each call's payload small. */
const IMPORT_BATCH = 500;

/** What transfers need from the overseer. */
interface TransferHost {
  registry: RoomRegistry;
  admission: WorkspaceAdmission;
  /** The room's facet, spawned when absent. */
  room(id: string): Promise<Remote<ChatRoomApi>>;
  /** Deletes a room's facet and its storage. */
  deleteRoom(id: string): Promise<void>;
  /** A room just became reachable: records its owner and visibility, and tells the room lists. */
  registered(row: RoomRow, owner: Caller, visibility: RoomVisibility): void;
  /** Who may see a room now. */
  visibility(id: string): RoomVisibility;
  /**
   * Marks a room read up to `count` for one person: whoever imports or forks
   * a room has seen what it holds, so it must not open as "1,000 new messages".
   */
  markRead(identityId: string, roomId: string, count: number): void;
  /** Files' bytes and quotas (overseer/workspace-files.ts). */
  files: {
    checkCopyFits(bytes: number): void;
    /** A `.zip` import's files fit (overseer/workspace-files.ts); throws 413 if not. */
    checkImportFits(sizes: readonly number[]): void;
    /** A `.zip` import's room prefix is this import's now; false when its deadline passed (open-writes.ts). */
    settleImport(roomId: string): boolean;
    /** A file's bytes the Worker stored now count for its room. */
    added(roomId: string, size: number): void;
    /** Copies a file's bytes between rooms; false when the source's are gone. */
    copy(fromRoom: string, toRoom: string, fileId: string): Promise<boolean>;
    /** A room made and discarded again: whatever of its files was copied goes. */
    discarded(roomId: string): void;
  };
}

export class WorkspaceTransfer {
  constructor(private readonly host: TransferHost) {}

  /**
   * Every room `include` lets through as NDJSON, one room after another:
   * each room streams its own lines, so the workspace is never gathered in
   * one place.
   */
  exportWorkspace(include: (id: string) => boolean): ReadableStream<Uint8Array> {
    const ids = this.host.registry.idsByCreation().filter(include);
    let reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
    return new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          for (;;) {
            if (!reader) {
              const id = ids.shift();
              if (id === undefined) return controller.close();
              if (!this.host.registry.row(id)) continue; // deleted meanwhile
              const room = await this.host.room(id);
              reader = unwrap(await room.exportRoom("ndjson")).getReader();
            }
            const { done, value } = await reader.read();
            if (!done) return controller.enqueue(value);
            reader = null;
          }
        },
        cancel: async () => {
          await reader?.cancel();
        }
      },
      { highWaterMark: 1 }
    );
  }

  /**
   * All or nothing: every room of the file is made and filled before any
   * appears in the registry; if one fails, every room made so far is
   * deleted again. A `.zip` import (`archive`, one room) comes with the
   * room's id its files' bytes were stored under and their records, which
   * go in too; a failure purges the bytes with the room.
   */
  async importRooms(rooms: ImportedRoom[], caller: Caller, archive?: ArchivedFiles): Promise<ImportResult> {
    // Every room the file makes counts against the creation limit.
    await this.host.admission.admitNewRooms(caller, rooms.length);
    if (archive) {
      if (rooms.length !== 1) throw badImport("A .zip holds exactly one room.");
      if (this.host.registry.row(archive.roomId)) throw badImport("That archive was imported already.");
      this.host.files.checkImportFits(archive.sizes);
      if (!this.host.files.settleImport(archive.roomId)) {
        throw badImport("The import took too long and was discarded. Import the file again.");
      }
    }
    const release = this.host.admission.holdRooms(rooms.length);
    const made: Array<{ id: string; settings: RoomSettings }> = [];
    const taken = this.#names();
    try {
      for (const imported of rooms) {
        const id = archive?.roomId ?? generateRoomId();
        const settings = { ...imported.settings, name: distinctRoomName(imported.settings.name, "imported", taken) };
        taken.add(settings.name);
        made.push({ id, settings });
        const room = await this.host.room(id);
        await room.initialize(settings);
        // Personas first: their new ids go on the answers they wrote.
        const personaIds = new Map<string, PersonaRef>();
        for (const persona of imported.personas) {
          const created = unwrap(await room.createPersona(persona.body));
          personaIds.set(persona.id, { id: created.id, name: created.name });
        }
        // Earlier versions first, so the transcript's last message ends up the room's latest leaf.
        const versions = imported.versions.map((v) => ({
          ...v,
          message: withPersonaIds([v.message], personaIds)[0]
        }));
        for (let i = 0; i < versions.length; i += IMPORT_BATCH) {
          await room.importVersions(versions.slice(i, i + IMPORT_BATCH) as ExportedVersion[]);
        }
        const messages = withPersonaIds(imported.messages, personaIds);
        let after: string | null = null;
        for (let i = 0; i < messages.length; i += IMPORT_BATCH) {
          const batch = messages.slice(i, i + IMPORT_BATCH);
          await room.importMessages(batch as ChatMessage[], after);
          after = batch[batch.length - 1].id;
        }
        if (imported.memory) await room.importMemory(imported.memory);
        if (archive) await this.#restoreFiles(room, id, archive);
      }
    } catch (error) {
      await this.#discard(made.map((m) => m.id));
      throw error;
    } finally {
      release();
    }
    const result: ImportResult = { rooms: [] };
    for (const [i, { id, settings }] of made.entries()) {
      const { messageCount } = await this.#register(id, settings, caller, "workspace");
      this.host.markRead(caller.identity.id, id, messageCount);
      result.rooms.push({ id, name: settings.name, messageCount, truncated: rooms[i].truncated ?? [] });
    }
    return result;
  }

  /**
   * A new room holding the history up to and including `messageId`; its id.
   * The source streams its messages (NDJSON, a batch per pull) straight
   * into the new room, so a 100,000-message room is never in memory at once.
   */
  async forkRoom(id: string, messageId: string, caller: Caller): Promise<string> {
    await this.host.admission.admitNewRooms(caller);
    const sourceRow = this.host.registry.require(id);
    const source = await this.host.room(id);
    if (!(await source.hasMessage(messageId))) {
      throw new AppError("not_found:message", 404, `Message "${messageId}" is not in this room.`);
    }
    const { settings } = await source.describe();
    const forkSettings: RoomSettings = { ...settings, name: distinctRoomName(settings.name, "fork", this.#names()) };
    const release = this.host.admission.holdRooms(1);
    const newId = generateRoomId();
    try {
      const room = await this.host.room(newId);
      await room.initialize(forkSettings);
      const stream = unwrap(await source.exportRoom("ndjson", messageId));
      await room.importStream(stream, { roomId: id, roomName: sourceRow.name, messageId });
      await this.#copyFiles(source, id, room, newId, messageId);
    } catch (error) {
      await this.#discard([newId]);
      if (!this.host.registry.row(id)) throw roomNotFound(id);
      throw error;
    } finally {
      release();
    }
    // A fork of a private room is private: what was said there stays among its members.
    const { messageCount } = await this.#register(newId, forkSettings, caller, this.host.visibility(id));
    this.host.markRead(caller.identity.id, newId, messageCount);
    return newId;
  }

  /**
   * A fork's files: each file the source had at the fork point, its bytes
   * copied in R2 and its record and index into the fork with the same id
   * (the copied messages' file parts are pointed at the fork's route), so
   * the fork keeps its files whatever happens to the source. A file deleted
   * meanwhile is left out.
   */
  async #copyFiles(
    source: Remote<ChatRoomApi>,
    sourceId: string,
    fork: Remote<ChatRoomApi>,
    forkId: string,
    messageId: string
  ) {
    const files = await source.forkFiles(messageId);
    this.host.files.checkCopyFits(files.reduce((sum, f) => sum + f.size, 0));
    for (const { id } of files) {
      const copy = await source.copyFileOut(id);
      if (!copy.ok) continue; // deleted meanwhile
      if (!(await this.host.files.copy(sourceId, forkId, id))) continue;
      unwrap(await fork.copyFileIn(copy.value));
    }
  }

  /**
   * A `.zip` import's file records and indexes, a line each as the Worker
   * streams them (its bytes are in R2 already), each counted for the room
   * and checked against the sizes the quota was checked with.
   */
  async #restoreFiles(room: Remote<ChatRoomApi>, roomId: string, archive: ArchivedFiles) {
    let count = 0;
    for await (const lines of ndjsonBatches(archive.copies, 10)) {
      for (const line of lines) {
        const copy = JSON.parse(line) as FileCopy;
        if (copy.file.size !== archive.sizes[count])
          throw badImport("A file's size is not the one its quota was checked with.");
        unwrap(await room.copyFileIn(copy));
        this.host.files.added(roomId, copy.file.size);
        count++;
      }
    }
    if (count !== archive.sizes.length) throw badImport("The archive's files did not all arrive.");
  }

  /**
   * The names of the workspace's rooms that everyone in it can see: a private
   * room's name must not show through an import's name ("(imported)" would
   * tell an outsider that a room called so exists).
   */
  #names(): Set<string> {
    const visible = this.host.registry.list().filter((row) => this.host.visibility(row.id) === "workspace");
    return new Set(visible.map((row) => row.name));
  }

  async #discard(ids: string[]) {
    for (const id of ids) {
      this.host.files.discarded(id);
      await this.host
        .deleteRoom(id)
        .catch((error: unknown) => console.warn(`[OverseerAgent] could not discard half-made room ${id}:`, error));
    }
  }

  /** Makes a filled room reachable: its registry row, then its own activity report. */
  async #register(
    id: string,
    settings: RoomSettings,
    owner: Caller,
    visibility: RoomVisibility
  ): Promise<{ messageCount: number }> {
    this.host.registered(this.host.registry.insert(id, settings.name, Date.now()), owner, visibility);
    const room = await this.host.room(id);
    const filled = await room.finishImport();
    // The room's own report is on its way; until it lands, the count keeps search from skipping the room as empty.
    this.host.registry.seedCount(id, filled.messageCount);
    return filled;
  }
}
