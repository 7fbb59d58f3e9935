import { describe, expect, it } from "vitest";
import { overBytes } from "../../src/server/domain/sockets/frame-bytes";

const bytes = (text: string) => new TextEncoder().encode(text).length;

describe("a frame's size in bytes", () => {
  it("counts UTF-8 bytes, not UTF-16 units", () => {
    expect(overBytes("é".repeat(6), 11)).toBe(true);
    expect(overBytes("é".repeat(6), 12)).toBe(false);
    expect(overBytes("語".repeat(4), 11)).toBe(true);
    expect(overBytes("語".repeat(4), 12)).toBe(false);
  });

  it("agrees with TextEncoder at the limit for ASCII, two-, three- and four-byte text and lone surrogates", () => {
    for (const text of ["hello", "héllo wörld", "日本語のテキスト", "😀 a 😀", "a\ud800b", "\udc00x", "z\ud83d"]) {
      const size = bytes(text);
      expect(overBytes(text, size), text).toBe(false);
      expect(overBytes(text, size - 1), text).toBe(true);
    }
  });
});
