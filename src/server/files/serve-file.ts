/**
 * A stored file's bytes as a response, the same for a member's route
 * (routes/files-routes.ts) and a share link's (routes/shares-routes.ts):
 * the stored type, never sniffed, and a CSP under which nothing in the
 * file can run. Raster images and PDFs are shown inline; everything else
 * (SVG and HTML included) is an attachment.
 */
import { AppError } from "@/server/app-error";
import { isInline } from "@/server/domain/files/file-types";
import { FILE_ID_PATTERN, type RoomFile } from "@/shared/files";

/** A file's bytes never run as a page: no scripts, no plugins, no same-origin access. */
const FILE_CSP = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox";
/**
 * Browsers refuse to show a PDF under `sandbox`; PDFs keep the app's policy
 * minus everything a page could do (their viewer is the browser's own).
 */
const PDF_CSP = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; object-src 'self'";

/** 404 before asking anyone for an id that cannot be a file's. */
export function requireFileId(fileId: string) {
  if (!FILE_ID_PATTERN.test(fileId)) throw new AppError("not_found:file", 404, `No file "${fileId.slice(0, 40)}".`);
}

/** `attachment` or `inline`, with the name as RFC 6266 wants it (ASCII fallback and UTF-8). */
function disposition(file: RoomFile): string {
  const ascii = file.name.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return `${isInline(file.contentType) ? "inline" : "attachment"}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(file.name)}`;
}

/** The bytes under `key` as `file`'s response; 404 when they are missing. */
export async function serveFile(bucket: R2Bucket, file: RoomFile, key: string): Promise<Response> {
  const object = await bucket.get(key);
  if (!object) throw new AppError("not_found:file", 404, `The bytes of "${file.name}" are missing.`);
  return new Response(object.body, {
    headers: {
      "content-type": file.contentType,
      "content-length": String(object.size),
      "content-disposition": disposition(file),
      "content-security-policy": file.contentType === "application/pdf" ? PDF_CSP : FILE_CSP,
      "x-content-type-options": "nosniff",
      "cache-control": "private, no-cache",
      etag: `"${file.sha256}"`
    }
  });
}
