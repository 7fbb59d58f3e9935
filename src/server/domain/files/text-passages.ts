/**
 * Documents as passages for the room's full-text index: text cut at line
 * boundaries into passages of about PASSAGE_CHARS, each knowing its lines
 * (text) or page (PDF), so an answer can cite "page 2" or "lines 40–61".
 * HTML becomes its visible text first. Pure.
 */

/** About a paragraph or two: small enough to cite precisely, big enough to carry context. */
const PASSAGE_CHARS = 1200;
/** One line longer than this is cut (minified JSON, a CSV with no newlines). */
const MAX_LINE_CHARS = PASSAGE_CHARS;

export interface Passage {
  text: string;
  /** PDF: the page (1-based). */
  page?: number;
  /** Text: the first and last line (1-based). */
  lineFrom?: number;
  lineTo?: number;
}

/** A batch of a file's passages, as the Worker's extraction sends them (server/files/extract-passages.ts). */
export interface PassageBatch {
  passages: Passage[];
  /** Units done of the total (pages of a PDF, KB of text), for the progress bar. */
  done: number;
  total: number;
  /** The last batch: the file is indexed. */
  last: boolean;
  /** A PDF's page count, a text's line count. */
  pages?: number;
}

/**
 * Cuts lines (numbered from `firstLine`) into passages. Blank lines end a
 * passage early when it is already half full, so paragraphs stay whole.
 */
export function passagesOfLines(lines: readonly string[], firstLine = 1, page?: number): Passage[] {
  const passages: Passage[] = [];
  let buffer: string[] = [];
  let size = 0;
  let start = firstLine;
  const flush = (last: number) => {
    const text = buffer.join("\n").trim();
    if (text) passages.push({ text, ...(page !== undefined ? { page } : { lineFrom: start, lineTo: last }) });
    buffer = [];
    size = 0;
  };
  lines.forEach((raw, i) => {
    const number = firstLine + i;
    const line = raw.length > MAX_LINE_CHARS ? raw.slice(0, MAX_LINE_CHARS) : raw;
    if (buffer.length === 0) start = number;
    if (size + line.length > PASSAGE_CHARS && buffer.length > 0) {
      flush(number - 1);
      start = number;
    }
    buffer.push(line);
    size += line.length + 1;
    if (line.trim() === "" && size > PASSAGE_CHARS / 2) flush(number);
  });
  flush(firstLine + lines.length - 1);
  return passages;
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

/** The visible text of an HTML document: no scripts, styles or tags; entities decoded; block ends as newlines. */
export function htmlToText(html: string): string {
  return html
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/<(script|style|noscript|template)\b[\s\S]*?<\/\1\s*>/gi, "")
    .replace(/<(br|\/p|\/div|\/li|\/h[1-6]|\/tr|\/section|\/article|\/pre|\/blockquote)\b[^>]*>/gi, "\n")
    .replace(/<[^>]*>/g, "")
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, entity: string) => {
      if (entity[0] === "#") {
        const code = entity[1]?.toLowerCase() === "x" ? Number.parseInt(entity.slice(2), 16) : Number(entity.slice(1));
        return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : "";
      }
      return ENTITIES[entity.toLowerCase()] ?? whole;
    })
    .replace(/[ \t]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n");
}

/** One PDF page's text items, joined as the page reads (pdf.js marks line ends with hasEOL). */
export function pageText(items: ReadonlyArray<{ str?: string; hasEOL?: boolean }>): string {
  let text = "";
  for (const item of items) {
    if (typeof item.str === "string") text += item.str;
    if (item.hasEOL) text += "\n";
  }
  return text;
}

const STOP_WORDS = new Set(
  "a an and are as at be but by can could did do does for from had has have how i if in into is it its me my no not of on or our so than that the their them then there these they this to was we were what when where which who why will with would you your about said say tell please".split(
    " "
  )
);
/** Terms of a question searched for at most: a query costs the same however long the question. */
const MAX_QUERY_TERMS = 12;

/**
 * An FTS5 query for a question: its distinctive words (no stop words), each
 * quoted so nothing a person types is FTS syntax, joined with OR so BM25
 * ranks passages by how many and how rare the words they share are. Null
 * when the question has no such word.
 */
export function passageQuery(question: string): string | null {
  const terms: string[] = [];
  for (const word of question.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (word.length < 2 || STOP_WORDS.has(word) || terms.includes(word)) continue;
    terms.push(word);
    if (terms.length === MAX_QUERY_TERMS) break;
  }
  return terms.length > 0 ? terms.map((t) => `"${t}"`).join(" OR ") : null;
}
