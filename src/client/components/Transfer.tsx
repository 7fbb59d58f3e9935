/**
 * Export, import and fork in the UI. Exports are plain download links (the
 * server streams them; the browser shows the download's progress). Imports
 * upload with a progress bar, since a ChatGPT export can be tens of MB.
 */
import { Download, GitFork, Upload } from "lucide-react";
import { useRef, useState } from "react";
import { Link, useNavigate } from "react-router";
import { ApiError, api, errorMessage } from "@/client/lib/api";
import { cn } from "@/client/lib/cn";
import { importSummary } from "@/client/lib/import-summary";
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
  const [message, setMessage] = useState<{
    error: boolean;
    text: string;
    /** Messages the server shortened to fit (lib/import-summary.ts). */
    details?: string[];
    /** The one room made, to open from here when the details keep the person on this page. */
    roomId?: string;
  } | null>(null);

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
      const { headline, shortened } = importSummary(result);
      const only = result.rooms.length === 1 ? result.rooms[0].id : undefined;
      setMessage({ error: false, text: headline, details: shortened, roomId: only });
      // Opening the room at once would take the list of shortened messages off screen before anyone read it.
      if (only && shortened.length === 0) navigate(roomPath(only));
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
        <div role={message.error ? "alert" : "status"} className="flex max-w-md flex-col items-center gap-1 text-sm">
          <p className={message.error ? "text-danger-strong" : "text-success"}>{message.text}</p>
          {message.details && message.details.length > 0 && (
            <>
              <p className="text-fg-muted">Some messages were longer than a room keeps, and were shortened:</p>
              <ul className="list-disc pl-5 text-left text-fg-muted">
                {message.details.map((line) => (
                  <li key={line}>{line}</li>
                ))}
              </ul>
              {message.roomId && (
                <Link to={roomPath(message.roomId)} className="underline">
                  Open the room
                </Link>
              )}
            </>
          )}
        </div>
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
