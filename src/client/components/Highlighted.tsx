import type { TextRange } from "@/shared/search";

/**
 * Plain text with some ranges marked. The ranges come from the server; the
 * text is rendered as React text nodes, so nothing in it is ever HTML.
 */
export function Highlighted({ text, marks }: { text: string; marks: TextRange[] }) {
  const pieces: Array<{ at: number; text: string; marked: boolean }> = [];
  let at = 0;
  for (const [start, end] of [...marks].sort((a, b) => a[0] - b[0])) {
    if (start < at || end > text.length || end <= start) continue; // overlapping or out of range: skip
    if (start > at) pieces.push({ at, text: text.slice(at, start), marked: false });
    pieces.push({ at: start, text: text.slice(start, end), marked: true });
    at = end;
  }
  if (at < text.length) pieces.push({ at, text: text.slice(at), marked: false });
  return (
    <>
      {pieces.map((piece) =>
        piece.marked ? (
          <mark key={piece.at} className="rounded-sm bg-highlight px-0.5 text-fg">
            {piece.text}
          </mark>
        ) : (
          <span key={piece.at}>{piece.text}</span>
        )
      )}
    </>
  );
}
