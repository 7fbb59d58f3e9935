import { describe, expect, it } from "vitest";
import { formatBytes, uploadAllowance } from "@/server/domain/files/file-limits";
import { isInline, sanitizeFileName, sniffType } from "@/server/domain/files/file-types";
import { fileIdFromUrl, fileUrl } from "@/shared/files";
import { JPEG_HEAD, PNG_BYTES } from "../support/files";

const text = (s: string) => new TextEncoder().encode(s);

describe("file types from bytes", () => {
  it("names the type the bytes have, whatever the name says", () => {
    expect(sniffType(PNG_BYTES, { name: "x.jpg" }, true)).toEqual({
      ok: true,
      contentType: "image/png",
      kind: "image"
    });
    expect(sniffType(JPEG_HEAD, { name: "x", contentType: "application/octet-stream" }, true)).toMatchObject({
      contentType: "image/jpeg"
    });
    expect(sniffType(text("GIF89a..."), { name: "a.gif" }, true)).toMatchObject({ contentType: "image/gif" });
    expect(sniffType(text("RIFF\0\0\0\0WEBPVP8 "), { name: "a" }, true)).toMatchObject({ contentType: "image/webp" });
    expect(sniffType(text("\n%PDF-1.7\n"), { name: "a.txt" }, true)).toMatchObject({ kind: "pdf" });
  });

  it("refuses a claim the bytes contradict, and bytes it does not know", () => {
    expect(sniffType(PNG_BYTES, { name: "a.png", contentType: "image/jpeg" }, true).ok).toBe(false);
    expect(sniffType(text("<html>"), { name: "a.png", contentType: "image/png" }, true).ok).toBe(false);
    expect(sniffType(new Uint8Array([0, 1, 2]), { name: "a.txt" }, true).ok).toBe(false);
    expect(sniffType(new Uint8Array([0xc3, 0x28]), { name: "a.txt" }, true).ok).toBe(false);
    expect(sniffType(new Uint8Array(0), { name: "a.txt" }, true).ok).toBe(false);
  });

  it("lets the name or the claim choose among text types, defaulting to plain text", () => {
    expect(sniffType(text("# Hi"), { name: "a.md" }, true)).toMatchObject({
      contentType: "text/markdown; charset=utf-8"
    });
    expect(sniffType(text("a,b"), { name: "a", contentType: "text/csv" }, true)).toMatchObject({
      contentType: "text/csv; charset=utf-8"
    });
    expect(sniffType(text("hi"), { name: "a.exe" }, true)).toMatchObject({ contentType: "text/plain; charset=utf-8" });
    // A multi-byte character cut at the end of the sniffed head is fine until the stream ends.
    expect(sniffType(new Uint8Array([0x61, 0xc3]), { name: "a.txt" }, false).ok).toBe(true);
  });

  it("shows only raster images and PDFs inline", () => {
    expect(isInline("image/png")).toBe(true);
    expect(isInline("application/pdf")).toBe(true);
    expect(isInline("image/svg+xml; charset=utf-8")).toBe(false);
    expect(isInline("text/html; charset=utf-8")).toBe(false);
  });

  it("sanitises names: no path, no control or direction characters, bounded with the extension kept", () => {
    expect(sanitizeFileName("../../etc/passwd", 120)).toBe("passwd");
    expect(sanitizeFileName("C:\\x\\\u202eevil\u0000.png", 120)).toBe("evil.png");
    expect(sanitizeFileName("...", 120)).toBe("file");
    const long = sanitizeFileName(`${"a".repeat(300)}.pdf`, 120);
    expect(long).toHaveLength(120);
    expect(long.endsWith(".pdf")).toBe(true);
  });
});

describe("file limits and urls", () => {
  const limits = { maxFileBytes: 100, roomQuotaBytes: 1000, workspaceQuotaBytes: 5000 };
  it("allows the smallest of the file limit and what is left of each quota", () => {
    expect(uploadAllowance(limits, { roomBytes: 0, roomFiles: 0, workspaceBytes: 0 })).toEqual({
      ok: true,
      maxBytes: 100,
      bound: "file"
    });
    expect(uploadAllowance(limits, { roomBytes: 950, roomFiles: 3, workspaceBytes: 950 })).toMatchObject({
      maxBytes: 50,
      bound: "room"
    });
    expect(uploadAllowance(limits, { roomBytes: 0, roomFiles: 0, workspaceBytes: 4990 })).toMatchObject({
      maxBytes: 10,
      bound: "workspace"
    });
    const full = uploadAllowance(limits, { roomBytes: 1000, roomFiles: 3, workspaceBytes: 1000 });
    expect(full).toMatchObject({ ok: false });
    expect(!full.ok && full.message).toContain("1000 bytes");
  });

  it("formats bytes as people read them", () => {
    expect(formatBytes(25 * 1024 * 1024)).toBe("25 MB");
    expect(formatBytes(1536)).toBe("1.5 KB");
    expect(formatBytes(12)).toBe("12 bytes");
  });

  it("reads a room's file id back from a file part's url, and only that room's", () => {
    const url = fileUrl("team", "room1", "f_AAAAAAAAAAAAAAAA");
    expect(url).toBe("/api/workspaces/team/rooms/room1/files/f_AAAAAAAAAAAAAAAA");
    expect(fileIdFromUrl(url, "room1")).toBe("f_AAAAAAAAAAAAAAAA");
    expect(fileIdFromUrl(fileUrl("default", "room1", "f_AAAAAAAAAAAAAAAA"), "room1")).toBe("f_AAAAAAAAAAAAAAAA");
    expect(fileIdFromUrl(url, "room2")).toBeNull();
    expect(fileIdFromUrl("https://evil.example/api/rooms/room1/files/f_AAAAAAAAAAAAAAAA", "room1")).toBeNull();
  });
});
