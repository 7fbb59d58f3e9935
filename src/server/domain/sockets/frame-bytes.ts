/**
 * Whether a text frame is over `maxBytes` as sent: UTF-8 bytes, not the
 * UTF-16 units of `string.length` (a frame of "é" is twice its length in
 * bytes, of CJK three times). Counted without encoding a copy of a frame
 * megabytes long, and only as far as needed to decide.
 */
export function overBytes(text: string, maxBytes: number): boolean {
  // Every UTF-16 unit is one to three bytes: most frames are decided by their length alone.
  if (text.length > maxBytes) return true;
  if (text.length * 3 <= maxBytes) return false;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      // A surrogate pair is one code point of four bytes (a lone surrogate goes out as U+FFFD, three).
      bytes += 4;
      i++;
    } else bytes += 3;
    if (bytes > maxBytes) return true;
  }
  return false;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}
