/**
 * Uploading a file to a room: `POST /api/rooms/:id/files` as multipart,
 * through XMLHttpRequest because fetch cannot report upload progress.
 * Refusals come back as the API's errors (413 with the limit, 415 with the
 * accepted types), said in words.
 */
import type { FileRef, RoomFile } from "@/shared/files";

export function roomFilesPath(roomId: string): string {
  return `/api/rooms/${encodeURIComponent(roomId)}/files`;
}

export function uploadFile(
  roomId: string,
  file: File,
  onProgress: (fraction: number) => void,
  signal: AbortSignal
): Promise<RoomFile> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", roomFilesPath(roomId));
    xhr.responseType = "json";
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    };
    xhr.onload = () => {
      const body = xhr.response as { file?: RoomFile; error?: { message?: string } } | null;
      if (xhr.status === 201 && body?.file) resolve(body.file);
      else reject(new Error(body?.error?.message ?? `The upload failed (${xhr.status}).`));
    };
    xhr.onerror = () => reject(new Error("The upload was cut off; check the connection and try again."));
    xhr.onabort = () => reject(new DOMException("Upload cancelled", "AbortError"));
    signal.addEventListener("abort", () => xhr.abort(), { once: true });
    const form = new FormData();
    form.append("file", file, file.name);
    xhr.send(form);
  });
}

/** The message part naming an uploaded file (the server checks it and writes its own copy). */
export function fileRefOf(roomId: string, file: RoomFile): FileRef {
  return {
    type: "file",
    mediaType: file.contentType.split(";")[0] ?? file.contentType,
    filename: file.name,
    url: `${roomFilesPath(roomId)}/${file.id}`
  };
}

/** Bytes as people read them. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
