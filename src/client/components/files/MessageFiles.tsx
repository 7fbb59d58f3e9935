/**
 * A message's files and an answer's citations. Images show as thumbnails
 * that open in a lightbox; documents as cards that open the file (a PDF in
 * the browser's viewer, anything else as a download: the server never lets
 * SVG or HTML render). A citation opens its file at the cited page.
 */

import { FileText, Quote } from "lucide-react";
import { useState } from "react";
import { useRoomId } from "@/client/components/room/room-route";
import { Dialog } from "@/client/components/ui/Dialog";
import type { RoomMessage } from "@/client/lib/messages";
import { type FileLinks, useFileLinks } from "./file-links";

type FilePart = { type: "file"; url: string; mediaType: string; filename?: string };
type SourcePart = {
  type: "source-document";
  sourceId: string;
  title: string;
  mediaType: string;
  providerMetadata?: { rooms?: { fileId?: string; page?: number; n?: number } };
};

const RASTER = /^image\/(png|jpeg|gif|webp)$/;

export function MessageFiles({ message }: { message: RoomMessage }) {
  const links = useFileLinks();
  const files = (message.parts.filter((p) => p.type === "file") as unknown as FilePart[]).map((file) => ({
    ...file,
    url: links.byUrl(file.url)
  }));
  const [open, setOpen] = useState<FilePart | null>(null);
  if (files.length === 0) return null;
  return (
    <ul aria-label="Files" className="mt-2 flex flex-wrap gap-2">
      {files.map((file) => (
        <li key={file.url}>
          {RASTER.test(file.mediaType) ? (
            <button
              type="button"
              onClick={() => setOpen(file)}
              className="block overflow-hidden rounded-lg border border-edge hover:border-accent-line"
              aria-label={`View ${file.filename ?? "image"}`}
            >
              <img src={file.url} alt={file.filename ?? ""} loading="lazy" className="h-24 max-w-48 object-cover" />
            </button>
          ) : (
            <a
              href={file.url}
              target="_blank"
              rel="noopener noreferrer"
              className="flex max-w-64 items-center gap-2 rounded-lg border border-edge bg-surface-raised px-3 py-2 text-sm hover:border-accent-line"
            >
              <FileText className="size-4 shrink-0 text-fg-muted" aria-hidden="true" />
              <span className="truncate">{file.filename ?? "file"}</span>
            </a>
          )}
        </li>
      ))}
      <Dialog open={open !== null} onClose={() => setOpen(null)} title={open?.filename ?? "Image"}>
        {open && <img src={open.url} alt={open.filename ?? ""} className="max-h-[75vh] w-full object-contain" />}
      </Dialog>
    </ul>
  );
}

/** Where a citation opens: its file, at the page for a PDF. */
function citationHref(links: FileLinks, roomId: string, source: SourcePart): string | null {
  const rooms = source.providerMetadata?.rooms;
  if (!rooms?.fileId) return null;
  const url = links.byId(roomId, rooms.fileId);
  return source.mediaType === "application/pdf" && rooms.page ? `${url}#page=${rooms.page}` : url;
}

/** The room comes from the route here, not from the row: a row that read the route would re-render on every route render. */
export function Citations({ message }: { message: RoomMessage }) {
  const roomId = useRoomId();
  const links = useFileLinks();
  const sources = message.parts.filter((p) => p.type === "source-document") as unknown as SourcePart[];
  if (sources.length === 0) return null;
  return (
    <ol aria-label="Sources" className="mt-2 flex flex-wrap gap-2 text-xs">
      {sources.map((source) => {
        const href = citationHref(links, roomId, source);
        const n = source.providerMetadata?.rooms?.n;
        const label = `${n ? `[${n}] ` : ""}${source.title}`;
        return (
          <li key={source.sourceId}>
            {href ? (
              <a
                href={href}
                target="_blank"
                rel="noopener noreferrer"
                className="inline-flex items-center gap-1 rounded-md border border-edge px-2 py-1 text-fg-3 hover:border-accent-line hover:text-fg"
              >
                <Quote className="size-3" aria-hidden="true" />
                {label}
              </a>
            ) : (
              <span>{label}</span>
            )}
          </li>
        );
      })}
    </ol>
  );
}
