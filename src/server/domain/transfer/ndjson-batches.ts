/**
 * Reading NDJSON a bounded batch at a time. A fork streams the source room's
 * NDJSON export into the new room; this turns that byte stream into batches
 * of `maxLines` complete lines (the last may be shorter), reading the next
 * chunk only when the caller asks for the next batch. So what is held at once
 * is about one batch plus one chunk, never the room: a 100,000-message fork
 * pulls its source as it writes. Pure: no storage, no parsing of the lines.
 */
export async function* ndjsonBatches(stream: ReadableStream<Uint8Array>, maxLines: number): AsyncGenerator<string[]> {
  if (!(maxLines >= 1)) throw new RangeError("maxLines must be at least 1");
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let partial = "";
  let pending: string[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      const lines = (partial + (done ? decoder.decode() : decoder.decode(value, { stream: true }))).split("\n");
      partial = done ? "" : (lines.pop() ?? "");
      for (const line of lines) if (line.length > 0) pending.push(line);
      // Full batches as soon as they are complete; the remainder waits for the next chunk (or the end).
      while (pending.length >= maxLines || (done && pending.length > 0)) {
        const batch = pending.slice(0, maxLines);
        pending = pending.slice(maxLines);
        yield batch;
      }
      if (done) return;
    }
  } finally {
    reader.releaseLock();
  }
}
