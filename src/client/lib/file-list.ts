/**
 * A room's file list kept live from the room's socket: `rooms_file` (a file
 * appeared or changed, e.g. its indexing progress) and `rooms_file_deleted`
 * frames, read cheaply (a frame that is not one of these is not parsed).
 */
import type { RoomFile, RoomFilesFrame } from "@/shared/files";

export function readFileFrame(data: string): RoomFilesFrame | null {
  if (!data.includes('"rooms_file')) return null;
  try {
    const frame = JSON.parse(data) as { type?: unknown; file?: { id?: unknown }; id?: unknown };
    if (frame.type === "rooms_file" && typeof frame.file?.id === "string") return frame as RoomFilesFrame;
    if (frame.type === "rooms_file_deleted" && typeof frame.id === "string") return frame as RoomFilesFrame;
  } catch {
    // Not JSON: not ours.
  }
  return null;
}

/** The list after a frame: a changed file in place, a new one first (newest first), a deleted one gone. */
export function applyFileFrame(files: readonly RoomFile[], frame: RoomFilesFrame): RoomFile[] {
  if (frame.type === "rooms_file_deleted") return files.filter((f) => f.id !== frame.id);
  const at = files.findIndex((f) => f.id === frame.file.id);
  if (at === -1) return [frame.file, ...files];
  return files.map((f, i) => (i === at ? frame.file : f));
}

/** What a file's extraction is doing, in words. */
export function fileStateText(file: RoomFile): string {
  switch (file.state) {
    case "stored":
      return "Stored";
    case "indexed":
      return `Indexed · ${file.chunks} ${file.chunks === 1 ? "passage" : "passages"}`;
    case "failed":
      return `Could not be read: ${file.error ?? "unknown reason"}`;
    case "indexing": {
      if (!file.progress) return "Indexing…";
      const unit = file.kind === "pdf" ? "pages" : "KB";
      return `Indexing… ${file.progress.done} of ${file.progress.total} ${unit}`;
    }
  }
}
