/**
 * Export, import and fork in the UI. Exports are plain download links (the
 * server streams them; the browser shows the download's progress). Imports
 * upload with a progress bar, since a ChatGPT export can be tens of MB.
 */
import { Download, GitFork, Upload } from "lucide-react";
import { useRef, useState } from "react";
import { useNavigate } from "react-router";
import { ApiError, api, errorMessage } from "@/client/lib/api";
import { cn } from "@/client/lib/cn";
import { roomPath } from "@/client/lib/routes";
import { type ImportResult, MAX_IMPORT_BYTES, MAX_ZIP_IMPORT_BYTES } from "@/shared/transfer";
import { Button, buttonClass, IconButton } from "./ui/Button";

/** Where a room's export downloads from, as JSON (re-importable) or Markdown. */
export const exportHref = (roomId: string, format: "json" | "markdown" | "zip") =>
  `/api/rooms/${encodeURIComponent(roomId)}/export?format=${format}`;

/** A room's `.zip` export (with its files), by name or type; the server checks the bytes. */
const isZipFile = (file: File) => /\.zip$/i.test(file.name) || /zip/.test(file.type);

function upload(file: File, onProgress: (fraction: number) => void): Promise<ImportResult> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", "/api/rooms/import");
    // The server tells JSON from a .zip by the bytes; the type only has to be one a plain form cannot send.
    xhr.setRequestHeader("content-type", isZipFile(file) ? "application/zip" : "application/json");
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    };
    xhr.onerror = () => reject(new ApiError("Could not reach the server. Check your connection and try again.", 0));
    xhr.onload = () => {
      let body: unknown;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = undefined;
      }
      if (xhr.status >= 200 && xhr.status < 300) return resolve(body as ImportResult);
      const message = (body as { error?: { message?: string } } | undefined)?.error?.message;
      reject(new ApiError(message ?? `The import failed (HTTP ${xhr.status}).`, xhr.status));
    };
    xhr.send(file);
  });
}

/** Import a Rooms export (JSON, or a .zip with its files) or a ChatGPT conversations.json, with upload progress. */
export function ImportButton() {
  const input = useRef<HTMLInputElement>(null);
  const navigate = useNavigate();
  const [progress, setProgress] = useState<number | null>(null);
  const [message, setMessage] = useState<{ error: boolean; text: string } | null>(null);

  const onFile = async (file: File | undefined) => {
    if (!file) return;
    setMessage(null);
    const max = isZipFile(file) ? MAX_ZIP_IMPORT_BYTES : MAX_IMPORT_BYTES;
    if (file.size > max) {
      setMessage({
        error: true,
        text: `That file is ${(file.size / 1e6).toFixed(1)} MB; ${isZipFile(file) ? ".zip imports" : "imports"} take at most ${max / 1024 / 1024} MB.`
      });
      return;
    }
    setProgress(0);
    try {
      const result = await upload(file, setProgress);
      const count = result.rooms.length;
      setMessage({ error: false, text: `Imported ${count} ${count === 1 ? "room" : "rooms"}.` });
      if (count === 1) navigate(roomPath(result.rooms[0].id));
    } catch (error) {
      setMessage({ error: true, text: errorMessage(error) });
    } finally {
      setProgress(null);
      if (input.current) input.current.value = "";
    }
  };

  return (
    <div className="flex flex-col items-center gap-2">
      <div className="flex flex-wrap items-center justify-center gap-2">
        <Button variant="secondary" onClick={() => input.current?.click()} disabled={progress !== null}>
          <Upload className="size-4" aria-hidden="true" />
          Import conversations
        </Button>
        <a href="/api/export" download className={cn(buttonClass({ variant: "ghost" }), "px-3")}>
          <Download className="size-4" aria-hidden="true" />
          Export all rooms
        </a>
      </div>
      <input
        ref={input}
        type="file"
        accept="application/json,.json,application/zip,.zip"
        className="sr-only"
        aria-label="Import file (a Rooms JSON or .zip export, or ChatGPT conversations.json)"
        onChange={(e) => void onFile(e.target.files?.[0])}
      />
      {progress !== null && (
        <progress
          aria-label="Import progress"
          className="h-1.5 w-56 overflow-hidden rounded-full"
          value={progress < 1 ? progress : undefined}
          max={1}
        />
      )}
      {progress === 1 && <span className="text-xs text-fg-muted">Creating rooms…</span>}
      {message && (
        <p
          role={message.error ? "alert" : "status"}
          className={message.error ? "text-sm text-danger-strong" : "text-sm text-success"}
        >
          {message.text}
        </p>
      )}
    </div>
  );
}

/** "Fork from here": a new room with the history up to this message. */
export function useFork(roomId: string) {
  const navigate = useNavigate();
  const [error, setError] = useState<string | null>(null);
  const fork = async (messageId: string) => {
    setError(null);
    try {
      const room = await api.forkRoom(roomId, messageId);
      navigate(roomPath(room.id));
    } catch (e) {
      setError(errorMessage(e));
    }
  };
  return { fork, error, dismiss: () => setError(null) };
}

export function ForkButton({ onFork }: { onFork: () => void }) {
  return (
    <IconButton size="sm" label="Fork from here" onClick={onFork}>
      <GitFork />
    </IconButton>
  );
}
