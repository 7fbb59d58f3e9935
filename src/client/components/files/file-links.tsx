/**
 * Where a file opens. A member opens a room's file at its own route
 * (`/api/rooms/:id/files/:fileId`, the url a message's file part carries);
 * a share link's viewer has no session, so the viewer page provides links
 * through its token (`/api/share/<token>/files/:fileId`) instead.
 */
import { createContext, useContext } from "react";
import { roomFilesPath } from "@/client/lib/file-uploads";

export interface FileLinks {
  /** A file of `roomId` by id. */
  byId(roomId: string, fileId: string): string;
  /** A message's file part's url (the member's route), as this page may open it. */
  byUrl(url: string): string;
}

const FILE_ID_AT_END = /\/files\/(f_[A-Za-z0-9_-]{16})$/;

const memberLinks: FileLinks = {
  byId: (roomId, fileId) => `${roomFilesPath(roomId)}/${fileId}`,
  byUrl: (url) => url
};

/** A share link's viewer: every file through the link's own route. */
export function shareFileLinks(token: string): FileLinks {
  const base = `/api/share/${encodeURIComponent(token)}/files`;
  return {
    byId: (_roomId, fileId) => `${base}/${fileId}`,
    byUrl: (url) => {
      const fileId = FILE_ID_AT_END.exec(url)?.[1];
      return fileId ? `${base}/${fileId}` : url;
    }
  };
}

export const FileLinksContext = createContext<FileLinks>(memberLinks);

export const useFileLinks = () => useContext(FileLinksContext);
