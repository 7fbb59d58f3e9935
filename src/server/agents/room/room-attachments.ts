/**
 * A room's files as messages and turns use them: the file parts a message
 * may carry (only this room's files, named by their canonical url), and
 * what a turn reads of them (retrieved passages, attachments, image bytes
 * from R2). The records and the index are RoomFiles' (room/room-files.ts).
 */

import type { AgentPathStep } from "agents";
import { fileKey } from "@/server/domain/files/file-limits";
import { acceptsImages } from "@/server/domain/files/image-input";
import type { FileSearchHit } from "@/server/domain/turns/room-tools";
import type { Env } from "@/server/env";
import { DEFAULT_WORKSPACE } from "@/shared/constants";
import { type FileRef, fileIdFromUrl, fileUrl } from "@/shared/files";
import type { RoomSettings } from "@/shared/protocol";
import type { AssistantTurn } from "./assistant-turn";
import type { RoomFiles } from "./room-files";
import { searchFiles } from "./turn-passages";

/** What attachments need of their room. */
export interface AttachmentsHost {
  files: RoomFiles;
  env: Env;
  roomId(): string;
  /** The room's ancestors, root first: the last is its overseer, named for its workspace. */
  parentPath(): ReadonlyArray<AgentPathStep>;
  settings(): RoomSettings;
}

export class RoomAttachments {
  constructor(private readonly host: AttachmentsHost) {}

  /** The workspace: the overseer's name. */
  #workspace(): string {
    return this.host.parentPath().at(-1)?.name ?? DEFAULT_WORKSPACE;
  }

  /** This room's route of a file (which is also a file part's url). */
  url(fileId: string): string {
    return fileUrl(this.#workspace(), this.host.roomId(), fileId);
  }

  /** The file parts for these files of the room; one that is not the room's throws its 404. */
  requireRefs(fileIds: readonly string[]): FileRef[] {
    const { files, roomId } = this.host;
    return fileIds.map((id) => files.ref(this.#workspace(), roomId(), files.require(id)));
  }

  /** The file parts for those of these files the room still holds (a REST send's, checked before). */
  refs(fileIds: readonly string[] = []): FileRef[] {
    return fileIds.flatMap((id) => {
      const file = this.host.files.get(id);
      return file ? [this.host.files.ref(this.#workspace(), this.host.roomId(), file)] : [];
    });
  }

  /** The file part for a url naming a file of this room (the frame guard's check of a socket send). */
  fileOf(url: string): FileRef | null {
    const id = fileIdFromUrl(url, this.host.roomId());
    const file = id ? this.host.files.get(id) : null;
    return file ? this.host.files.ref(this.#workspace(), this.host.roomId(), file) : null;
  }

  /** The `search_files` tool's search (a persona's, through its room). */
  search(query: string, limit: number): FileSearchHit[] {
    return this.host.files.hasPassages() ? searchFiles(this.host.files, query, limit) : [];
  }

  /** What a turn reads of the room's files (room/assistant-turn.ts). */
  forTurn(): AssistantTurn["files"] {
    const { files, env, roomId } = this.host;
    const settings = () => this.host.settings();
    return {
      // A room without indexed documents pays one indexed lookup, no search.
      retrieve: (question, limit, attached) => (files.hasPassages() ? files.retrieve(question, limit, attached) : []),
      idOf: (url) => fileIdFromUrl(url, roomId()),
      hasPassages: () => files.hasPassages(),
      attachments: {
        describe: (url) => {
          const id = fileIdFromUrl(url, roomId());
          const file = id ? files.get(id) : null;
          return file ? { ...file, firstLine: files.firstLine(file.id) } : null;
        },
        imageBytes: async (fileId) => {
          const object = await env.FILES.get(fileKey(this.#workspace(), roomId(), fileId));
          return object ? new Uint8Array(await object.arrayBuffer()) : null;
        },
        // Read when a turn asks, not when this is made: personas get theirs while the room is
        // still being built (reading state then broadcasts from a half-made room), and a
        // settings change must reach them.
        get acceptsImages() {
          return acceptsImages(env, settings());
        }
      }
    };
  }
}
