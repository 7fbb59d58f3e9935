/**
 * Reading a request body whose kind its first bytes decide (an import: JSON
 * or a `.zip`): peek at them without losing them, then read the rest as
 * the kind needs, a JSON file whole up to its cap, an archive streamed on.
 */

const EMPTY = new Uint8Array(0);

/** The body's first `count` bytes (fewer if it is shorter), and the whole body still to read. */
export async function peekBody(
  raw: ReadableStream<Uint8Array> | null,
  count: number
): Promise<{ head: Uint8Array; body: ReadableStream<Uint8Array> }> {
  if (!raw) return { head: EMPTY, body: new Response(EMPTY).body as ReadableStream<Uint8Array> };
  const reader = raw.getReader();
  const read: Uint8Array[] = [];
  let size = 0;
  let done = false;
  while (size < count && !done) {
    const next = await reader.read();
    if (next.done) done = true;
    else {
      read.push(next.value);
      size += next.value.length;
    }
  }
  const head = new Uint8Array(size);
  let at = 0;
  for (const piece of read) {
    head.set(piece, at);
    at += piece.length;
  }
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const piece = read.shift();
      if (piece) return controller.enqueue(piece);
      if (done) return controller.close();
      const next = await reader.read();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel: (reason) => reader.cancel(reason)
  });
  return { head: head.subarray(0, count), body };
}

/** The body as UTF-8 text, refused with `tooLarge()` once past `max` bytes. */
export async function readCappedText(
  body: ReadableStream<Uint8Array>,
  max: number,
  tooLarge: () => Error
): Promise<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = "";
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    size += next.value.length;
    if (size > max) {
      await reader.cancel();
      throw tooLarge();
    }
    text += decoder.decode(next.value, { stream: true });
  }
  return text + decoder.decode();
}
