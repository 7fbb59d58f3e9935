/**
 * A room's Files panel: every file in the room, newest first, with who
 * added it, when, its size and type, and what its extraction is doing
 * (progress while a document is read, why it failed). Each opens; its
 * author may delete it, and so may whoever may remove anyone's (the room's
 * owner, admins: `room.files`). Kept live from the room's socket, so a file
 * someone else adds or deletes shows at once. A share link's viewer gets
 * the same list read-only, through the link (ShareViewer.tsx).
 */
import { FileImage, FileText } from "lucide-react";
import { useCallback, useEffect, useMemo, useState } from "react";
import { Button } from "@/client/components/ui/Button";
import { Dialog } from "@/client/components/ui/Dialog";
import { ErrorNotice } from "@/client/components/ui/Field";
import { Spinner } from "@/client/components/ui/Spinner";
import { useRoomAccess } from "@/client/hooks/use-room-access";
import { api, errorMessage, type FilePageQuery } from "@/client/lib/api";
import { applyFileFrame, fileStateText, readFileFrame } from "@/client/lib/file-list";
import { formatSize } from "@/client/lib/file-uploads";
import { fullDateTime } from "@/client/lib/time";
import type { FilePage, RoomFile } from "@/shared/files";
import { useFileLinks } from "./file-links";

const PAGE = 50;

/** Where the panel reads the room's files, and whether it may remove them. */
export interface FilesSource {
  roomId: string;
  list(query: FilePageQuery, signal?: AbortSignal): Promise<FilePage>;
  /** Absent for a read-only viewer. */
  remove?: (fileId: string) => Promise<void>;
  /** May this viewer remove `file`? (its own, or anyone's with `room.files`) */
  mayRemove?: (file: RoomFile) => boolean;
  /** The room's socket frames, for live changes. */
  onFrame(listener: (data: string) => void): () => void;
}

function useRoomFiles({ list, onFrame }: Pick<FilesSource, "list" | "onFrame">) {
  const [files, setFiles] = useState<RoomFile[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [usage, setUsage] = useState<FilePage["usage"] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    // Frames that arrive before the first page are applied to it when it lands.
    const early: Parameters<typeof applyFileFrame>[1][] = [];
    let loaded = false;
    const stop = onFrame((data) => {
      const frame = readFileFrame(data);
      if (!frame) return;
      if (!loaded) early.push(frame);
      else setFiles((list) => (list ? applyFileFrame(list, frame) : list));
    });
    list({ limit: PAGE }, controller.signal).then(
      (page) => {
        loaded = true;
        setFiles(early.reduce(applyFileFrame, page.files));
        setNext(page.nextCursor);
        setUsage(page.usage);
      },
      (e: unknown) => {
        if (!controller.signal.aborted) setError(errorMessage(e));
      }
    );
    return () => {
      controller.abort();
      stop();
    };
  }, [list, onFrame]);

  const more = useCallback(async () => {
    if (!next) return;
    try {
      const page = await list({ before: next, limit: PAGE });
      setFiles((shown) => [...(shown ?? []), ...page.files.filter((f) => !shown?.some((g) => g.id === f.id))]);
      setNext(page.nextCursor);
    } catch (e) {
      setError(errorMessage(e));
    }
  }, [next, list]);

  /** A file this page deleted: gone at once, whether or not the socket's frame comes. */
  const drop = useCallback((id: string) => setFiles((list) => list?.filter((f) => f.id !== id) ?? list), []);

  return { files, next, usage, error, more, drop };
}

function FileRow({ source, file, onRemoved }: { source: FilesSource; file: RoomFile; onRemoved: () => void }) {
  const links = useFileLinks();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const removable = source.remove && source.mayRemove?.(file);
  const remove = async () => {
    setBusy(true);
    setError(null);
    try {
      await source.remove?.(file.id);
      onRemoved();
    } catch (e) {
      setError(errorMessage(e));
      setBusy(false);
    }
  };
  const Icon = file.kind === "image" ? FileImage : FileText;
  return (
    <li data-file={file.id} data-file-state={file.state} className="space-y-1 rounded-lg border border-edge-quiet p-3">
      <div className="flex items-center gap-2">
        <Icon className="size-4 shrink-0 text-fg-muted" aria-hidden="true" />
        <a
          href={links.byId(source.roomId, file.id)}
          target="_blank"
          rel="noopener noreferrer"
          className="min-w-0 flex-1 truncate text-sm font-medium text-accent-fg underline"
        >
          {file.name}
        </a>
      </div>
      <p className="text-xs text-fg-muted">
        Added by {file.author.name} · {fullDateTime(file.createdAt)} · {formatSize(file.size)} ·{" "}
        {file.contentType.split(";")[0]}
      </p>
      <p className={file.state === "failed" ? "text-xs text-danger-strong" : "text-xs text-fg-muted"}>
        {fileStateText(file)}
        {file.state === "indexing" && file.progress && (
          <progress
            className="ml-2 h-1.5 w-24 align-middle"
            aria-label={`Indexing ${file.name}`}
            max={file.progress.total}
            value={file.progress.done}
          />
        )}
      </p>
      {removable && (
        <div className="flex gap-2">
          {confirming ? (
            <>
              <Button size="sm" variant="danger" disabled={busy} onClick={() => void remove()}>
                Delete {file.name}
              </Button>
              <Button size="sm" variant="ghost" disabled={busy} onClick={() => setConfirming(false)}>
                Keep
              </Button>
            </>
          ) : (
            <Button size="sm" variant="ghost" onClick={() => setConfirming(true)}>
              Delete…
            </Button>
          )}
        </div>
      )}
      {error && <ErrorNotice variant="inline">{error}</ErrorNotice>}
    </li>
  );
}

function FilesList({ source }: { source: FilesSource }) {
  const { files, next, usage, error, more, drop } = useRoomFiles(source);
  if (error) return <ErrorNotice variant="inline">{error}</ErrorNotice>;
  if (!files) return <Spinner label="Loading files" />;
  if (files.length === 0) {
    return (
      <p className="text-sm text-fg-muted">
        No files yet.{source.remove ? " Attach one with the paperclip beside the message box." : ""}
      </p>
    );
  }
  return (
    <div className="space-y-3">
      {usage && (
        <p className="text-xs text-fg-muted">
          {usage.files} {usage.files === 1 ? "file" : "files"} · {formatSize(usage.bytes)}
        </p>
      )}
      <ul aria-label="Files in this room" className="space-y-2">
        {files.map((file) => (
          <FileRow key={file.id} source={source} file={file} onRemoved={() => drop(file.id)} />
        ))}
      </ul>
      {next && (
        <Button size="sm" onClick={() => void more()}>
          Show older files
        </Button>
      )}
    </div>
  );
}

export function FilesPanel({ open, onClose, source }: { open: boolean; onClose: () => void; source: FilesSource }) {
  return (
    <Dialog
      open={open}
      onClose={onClose}
      variant="sheet"
      title="Files"
      description={source.remove ? "Everything brought into this room." : "The room's files, read-only."}
    >
      <div className="px-5 py-4">
        <FilesList source={source} />
      </div>
    </Dialog>
  );
}

/**
 * The Files panel for a member: their own files (or, with `room.files`,
 * anyone's) may be deleted. What the caller may do comes from the room's
 * detail (`access.may`), read when the panel opens.
 */
export function RoomFilesPanel({
  roomId,
  selfId,
  onFrame,
  open,
  onClose
}: {
  roomId: string;
  selfId: string;
  onFrame: FilesSource["onFrame"];
  open: boolean;
  onClose: () => void;
}) {
  const access = useRoomAccess(roomId, open);
  const mayRemoveAny = access?.may.includes("room.files") ?? false;
  const list = useCallback<FilesSource["list"]>((query, signal) => api.listFiles(roomId, query, signal), [roomId]);
  const source = useMemo<FilesSource>(
    () => ({
      roomId,
      list,
      remove: (fileId) => api.deleteFile(roomId, fileId),
      mayRemove: (file) => mayRemoveAny || file.author.id === selfId,
      onFrame
    }),
    [roomId, list, selfId, mayRemoveAny, onFrame]
  );
  return <FilesPanel open={open} onClose={onClose} source={source} />;
}
