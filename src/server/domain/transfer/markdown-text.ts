/**
 * Text from a room (people's messages, the model's answers, names) made
 * safe to put in the Markdown export. Pure.
 *
 * A Markdown file is read in viewers that render HTML, so text must not be
 * able to become structure: raw HTML is escaped (`<`, `>`, `&`) outside
 * code, where it is literal anyway; headings and rules stay text; and a
 * code fence a message opens is closed at the message's end, so one
 * unclosed fence cannot swallow the rest of the transcript into a code
 * block.
 */

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
/** An inline code span: a run of backticks, anything, the same run. */
const CODE_SPAN = /(`+)[\s\S]*?\1/g;

const escapeHtml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** One line outside a fence: HTML escaped except inside code spans; a heading or rule kept as text. */
function proseLine(line: string): string {
  let out = "";
  let at = 0;
  for (const span of line.matchAll(CODE_SPAN)) {
    out += escapeHtml(line.slice(at, span.index)) + span[0];
    at = span.index + span[0].length;
  }
  out += escapeHtml(line.slice(at));
  return out.replace(/^(#{1,6}\s|---\s*$)/, "\\$1");
}

/** `text` as export-safe Markdown (see the header). */
export function markdownText(text: string): string {
  const out: string[] = [];
  let open: { char: string; length: number } | null = null;
  for (const line of text.split("\n")) {
    const fence = FENCE.exec(line)?.[1];
    if (open) {
      out.push(line);
      if (fence && fence[0] === open.char && fence.length >= open.length && line.trim() === fence) open = null;
    } else if (fence) {
      out.push(line);
      open = { char: fence[0], length: fence.length };
    } else {
      out.push(proseLine(line));
    }
  }
  if (open) out.push(open.char.repeat(open.length));
  return out.join("\n");
}

/** A name or other one-line text in a heading or emphasis: HTML escaped, no line breaks. */
export function markdownInline(text: string): string {
  return escapeHtml(text.replace(/[\r\n]+/g, " ")).replace(/([*_`[\]])/g, "\\$1");
}
