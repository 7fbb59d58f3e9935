/** The files attached to the next message: a chip each, with its progress, its error, and Cancel or Remove. */
import { FileText, Paperclip, X } from "lucide-react";
import { useRef } from "react";
import type { FileUploads } from "@/client/hooks/use-file-uploads";
import { formatSize } from "@/client/lib/file-uploads";

export function AttachmentTray({ uploads }: { uploads: FileUploads }) {
  if (uploads.uploads.length === 0) return null;
  return (
    <ul aria-label="Attached files" className="flex flex-wrap gap-2 px-1 pb-2">
      {uploads.uploads.map((u) => (
        <li
          key={u.key}
          data-upload-state={u.status}
          className="flex max-w-64 items-center gap-2 rounded-lg border border-edge bg-surface-raised px-2 py-1 text-xs"
        >
          {u.preview ? (
            <img src={u.preview} alt="" className="size-8 rounded object-cover" />
          ) : (
            <FileText className="size-4 shrink-0 text-fg-muted" aria-hidden="true" />
          )}
          <span className="min-w-0 flex-1">
            <span className="block truncate font-medium text-fg">{u.name}</span>
            {u.status === "uploading" && (
              <progress
                className="block h-1 w-full"
                max={1}
                value={u.progress}
                aria-label={`Uploading ${u.name}: ${Math.round(u.progress * 100)}%`}
              />
            )}
            {u.status === "done" && <span className="text-fg-muted">{formatSize(u.size)}</span>}
            {u.status === "failed" && (
              <span role="alert" className="text-danger-fg">
                {u.error}
              </span>
            )}
          </span>
          <button
            type="button"
            onClick={() => uploads.remove(u.key)}
            className="rounded p-0.5 text-fg-muted hover:bg-surface-hover hover:text-fg"
            aria-label={u.status === "uploading" ? `Cancel uploading ${u.name}` : `Remove ${u.name}`}
          >
            <X className="size-3.5" aria-hidden="true" />
          </button>
        </li>
      ))}
    </ul>
  );
}

/** The paperclip: picks files to attach (several at once). */
export function AttachButton({ onFiles, disabled }: { onFiles: (files: FileList) => void; disabled?: boolean }) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <input
        ref={input}
        type="file"
        multiple
        hidden
        // Hidden, but a field still needs a name: assistive tech can reach it.
        aria-label="Files to attach"
        data-testid="attach-input"
        onChange={(event) => {
          if (event.target.files?.length) onFiles(event.target.files);
          event.target.value = "";
        }}
      />
      <button
        type="button"
        disabled={disabled}
        onClick={() => input.current?.click()}
        className="mb-0.5 inline-flex items-center justify-center rounded-lg p-2 text-fg-muted hover:bg-surface-hover hover:text-fg disabled:opacity-50 pointer-coarse:size-11"
        aria-label="Attach files"
        title="Attach files (or drop or paste them here)"
      >
        <Paperclip className="size-4" aria-hidden="true" />
      </button>
    </>
  );
}
