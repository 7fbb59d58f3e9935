/**
 * The files being attached to the next message: each uploads at once, with
 * its own progress and a cancel; the message takes the ones that finished.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { fileRefOf, uploadFile } from "@/client/lib/file-uploads";
import { MAX_FILES_PER_MESSAGE } from "@/shared/constants";
import type { FileRef, RoomFile } from "@/shared/files";

export interface PendingUpload {
  key: string;
  name: string;
  size: number;
  progress: number;
  status: "uploading" | "done" | "failed";
  file?: RoomFile;
  error?: string;
  /** An object URL for an image's thumbnail while it uploads. */
  preview?: string;
}

export function useFileUploads(roomId: string) {
  const [uploads, setUploads] = useState<PendingUpload[]>([]);
  const controllers = useRef(new Map<string, AbortController>());
  const patch = useCallback((key: string, change: Partial<PendingUpload>) => {
    setUploads((list) => list.map((u) => (u.key === key ? { ...u, ...change } : u)));
  }, []);

  // Leaving the room cancels what is still uploading.
  // biome-ignore lint/correctness/useExhaustiveDependencies: a room change is the trigger
  useEffect(() => {
    const running = controllers.current;
    return () => {
      for (const controller of running.values()) controller.abort();
      running.clear();
      setUploads([]);
    };
  }, [roomId]);

  const add = useCallback(
    (files: Iterable<File>) => {
      for (const file of [...files].slice(0, MAX_FILES_PER_MESSAGE)) {
        const key = crypto.randomUUID();
        const controller = new AbortController();
        controllers.current.set(key, controller);
        const preview = file.type.startsWith("image/") ? URL.createObjectURL(file) : undefined;
        setUploads((list) => [
          ...list,
          { key, name: file.name, size: file.size, progress: 0, status: "uploading", preview }
        ]);
        uploadFile(roomId, file, (progress) => patch(key, { progress }), controller.signal)
          .then((stored) => patch(key, { status: "done", progress: 1, file: stored }))
          .catch((error: unknown) => {
            if ((error as { name?: string }).name === "AbortError") return;
            patch(key, { status: "failed", error: error instanceof Error ? error.message : String(error) });
          })
          .finally(() => controllers.current.delete(key));
      }
    },
    [roomId, patch]
  );

  /** Cancels an upload, or takes a finished one off the message (the file stays in the room). */
  const remove = useCallback((key: string) => {
    controllers.current.get(key)?.abort();
    controllers.current.delete(key);
    setUploads((list) => {
      const gone = list.find((u) => u.key === key);
      if (gone?.preview) URL.revokeObjectURL(gone.preview);
      return list.filter((u) => u.key !== key);
    });
  }, []);

  /** The finished files as message parts, and the tray emptied for the next message. */
  const take = useCallback((): FileRef[] => {
    const refs = uploads.flatMap((u) => (u.status === "done" && u.file ? [fileRefOf(roomId, u.file)] : []));
    for (const u of uploads) if (u.preview) URL.revokeObjectURL(u.preview);
    setUploads((list) => list.filter((u) => u.status === "uploading"));
    return refs;
  }, [uploads, roomId]);

  const uploading = uploads.some((u) => u.status === "uploading");
  const ready = uploads.some((u) => u.status === "done");
  // One object per change, so the memoised composer skips a streamed chunk's render.
  return useMemo(
    () => ({ uploads, add, remove, take, uploading, ready }),
    [uploads, add, remove, take, uploading, ready]
  );
}

export type FileUploads = ReturnType<typeof useFileUploads>;
