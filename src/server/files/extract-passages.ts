/**
 * A document's text, from its bytes in R2 to passages in its room's index,
 * run by the Worker after the upload answered (waitUntil). Not in the room:
 * a room is a facet sharing its overseer's thread, and extracting a
 * 300-page PDF there would stall every room of the workspace. Passages go
 * to the room in batches through the overseer (text only), each batch
 * moving the file's progress, which everyone in the room sees. A failure
 * keeps the file and says why.
 *
 * PDFs are read with unpdf (a serverless build of Mozilla's pdf.js, which
 * runs in workerd with no worker thread), imported only when a PDF comes.
 */
import {
  htmlToText,
  type Passage,
  type PassageBatch,
  pageText,
  passagesOfLines
} from "@/server/domain/files/text-passages";

/** Passages per call to the room: few calls, none large. */
const BATCH_PASSAGES = 40;
/** PDF pages per progress step at most. */
const BATCH_PAGES = 10;

export interface PassageSink {
  /** False when the file is gone: stop. */
  add(batch: PassageBatch): Promise<boolean>;
  fail(reason: string): Promise<void>;
}

export async function extractPassages(
  bucket: R2Bucket,
  key: string,
  file: { kind: string; contentType: string; size: number; name: string },
  sink: PassageSink
): Promise<void> {
  try {
    const object = await bucket.get(key);
    if (!object) return await sink.fail("The file's bytes are missing.");
    const total =
      file.kind === "pdf"
        ? await extractPdf(new Uint8Array(await object.arrayBuffer()), sink)
        : await extractText(object.body, file, sink);
    if (total === null) return;
    if (total === 0) {
      await sink.fail(
        file.kind === "pdf"
          ? "The PDF has no text to read (a scanned document?). It is kept, but cannot be searched."
          : "The file has no text to index."
      );
    }
  } catch (error) {
    await sink.fail(describeExtractionError(error)).catch(() => {});
  }
}

/** Sends passages in batches; answers the passages sent, or null when the file went meanwhile. */
class Batcher {
  #pending: Passage[] = [];
  sent = 0;

  /** Passages so far, sent or not. */
  get count() {
    return this.sent + this.#pending.length;
  }
  constructor(private readonly sink: PassageSink) {}

  async push(passages: Passage[], progress: { done: number; total: number; pages?: number }, force: boolean) {
    this.#pending.push(...passages);
    if (!force && this.#pending.length < BATCH_PASSAGES) return true;
    return this.flush(progress, false);
  }

  async flush(progress: { done: number; total: number; pages?: number }, last: boolean): Promise<boolean> {
    const passages = this.#pending;
    this.#pending = [];
    this.sent += passages.length;
    return this.sink.add({ passages, ...progress, last });
  }
}

async function extractText(
  body: ReadableStream<Uint8Array>,
  file: { contentType: string; size: number },
  sink: PassageSink
): Promise<number | null> {
  const html = /^text\/html\b/.test(file.contentType);
  const totalKb = Math.max(1, Math.ceil(file.size / 1024));
  const batcher = new Batcher(sink);
  const decoder = new TextDecoder();
  let carry = "";
  let line = 1;
  let read = 0;
  // HTML is read whole (tags span lines): bounded by the file limit.
  let whole = "";
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    read += value.byteLength;
    const text = decoder.decode(value, { stream: true });
    if (html) {
      whole += text;
      continue;
    }
    const lines = (carry + text).split(/\r?\n/);
    carry = lines.pop() ?? "";
    // Passages end at a blank line or their size; keep the unfinished tail for the next read.
    const passages = passagesOfLines(lines, line);
    line += lines.length;
    if (!(await batcher.push(passages, { done: Math.floor(read / 1024), total: totalKb }, false))) return null;
  }
  const rest = (html ? htmlToText(whole + decoder.decode()) : carry + decoder.decode()).split(/\r?\n/);
  const passages = passagesOfLines(rest, line);
  line += rest.length - 1;
  await batcher.push(passages, { done: totalKb, total: totalKb }, false);
  // No passage at all is a failure the caller reports, not an empty index.
  if (batcher.count === 0) return 0;
  if (!(await batcher.flush({ done: totalKb, total: totalKb, pages: line }, true))) return null;
  return batcher.sent;
}

async function extractPdf(bytes: Uint8Array, sink: PassageSink): Promise<number | null> {
  const { getDocumentProxy } = await import("unpdf");
  // pdf.js only reads the text: no scripting, no rendering (workerd forbids eval besides).
  const pdf = await getDocumentProxy(bytes);
  try {
    const total = pdf.numPages;
    const batcher = new Batcher(sink);
    for (let n = 1; n <= total; n++) {
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      page.cleanup();
      const passages = passagesOfLines(
        pageText(content.items as Array<{ str?: string; hasEOL?: boolean }>).split("\n"),
        1,
        n
      );
      const progress = { done: n, total, pages: total };
      if (n === total) {
        await batcher.push(passages, progress, false);
        if (batcher.count === 0) return 0;
        if (!(await batcher.flush(progress, true))) return null;
      } else if (!(await batcher.push(passages, progress, n % BATCH_PAGES === 0))) return null;
    }
    return batcher.sent;
  } finally {
    await pdf.loadingTask.destroy();
  }
}

/** What people are told when a document cannot be read. */
function describeExtractionError(error: unknown): string {
  const name = (error as { name?: string })?.name ?? "";
  if (name === "PasswordException") return "The PDF is encrypted (password-protected), so its text cannot be read.";
  if (name === "InvalidPDFException" || name === "FormatError") {
    return "The PDF is damaged or not a valid PDF, so its text cannot be read.";
  }
  console.warn("[files] extraction failed:", error);
  return "The file's text could not be extracted.";
}
