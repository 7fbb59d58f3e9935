import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { boundaryOf, MultipartError, openFilePart } from "@/server/domain/files/multipart-stream";

const encoder = new TextEncoder();

/** `bytes` as a stream cut at `cuts` (sorted offsets). */
function streamOf(bytes: Uint8Array, cuts: number[]): ReadableStream<Uint8Array> {
  const pieces: Uint8Array[] = [];
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    pieces.push(bytes.slice(from, cut));
    from = cut;
  }
  return new ReadableStream({
    pull(controller) {
      const next = pieces.shift();
      if (next === undefined) controller.close();
      else controller.enqueue(next);
    }
  });
}

function body(boundary: string, fields: string, file: Uint8Array, name = "a.bin", tail = "--\r\n"): Uint8Array {
  const head = encoder.encode(
    `preamble\r\n--${boundary}\r\n${fields}Content-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: text/plain\r\n\r\n`
  );
  const end = encoder.encode(`\r\n--${boundary}${tail}`);
  const out = new Uint8Array(head.length + file.length + end.length);
  out.set(head);
  out.set(file, head.length);
  out.set(end, head.length + file.length);
  return out;
}

async function readAll(part: Awaited<ReturnType<typeof openFilePart>>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for (let chunk = await part.read(); chunk; chunk = await part.read()) chunks.push(chunk);
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

describe("streaming multipart: the file field", () => {
  it("reads the boundary from the Content-Type, quoted or not, and nothing else", () => {
    expect(boundaryOf("multipart/form-data; boundary=abc")).toBe("abc");
    expect(boundaryOf('multipart/form-data; charset=utf-8; boundary="a b"')).toBe("a b");
    expect(boundaryOf("application/json")).toBeNull();
    expect(boundaryOf("multipart/form-data")).toBeNull();
  });

  it("gives back exactly the file's bytes however the body is cut into chunks", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 3000 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.boolean(),
        async (file, rawCuts, withField) => {
          const boundary = "----bnd42";
          // A file that holds most of a delimiter must not end early.
          const tricky = new Uint8Array([
            ...file,
            ...encoder.encode(`\r\n--${boundary.slice(0, 6)}`),
            ...file.slice(0, 5)
          ]);
          const fields = withField
            ? `Content-Disposition: form-data; name="note"\r\n\r\nhello\r\n--${boundary}\r\n`
            : "";
          const bytes = body(boundary, fields, tricky);
          const cuts = [...new Set(rawCuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
          const part = await openFilePart(streamOf(bytes, cuts), boundary);
          expect(part.filename).toBe("a.bin");
          expect(part.contentType).toBe("text/plain");
          expect(await readAll(part)).toEqual(tricky);
        }
      ),
      { numRuns: 200 }
    );
  });

  it("decodes RFC 5987 file names", async () => {
    const boundary = "b";
    const bytes = encoder.encode(
      `--b\r\nContent-Disposition: form-data; name="file"; filename="x"; filename*=UTF-8''%C3%A9t%C3%A9.txt\r\n\r\nhi\r\n--b--`
    );
    const part = await openFilePart(streamOf(bytes, []), boundary);
    expect(part.filename).toBe("été.txt");
  });

  it("fails on a body cut before the file ends, a missing file field, and a wrong boundary", async () => {
    const boundary = "bnd";
    const whole = body(boundary, "", encoder.encode("hello"));
    const cut = whole.slice(0, whole.length - 10);
    const part = await openFilePart(streamOf(cut, [3, 50]), boundary);
    await expect(readAll(part)).rejects.toThrow(MultipartError);
    const noFile = encoder.encode(
      `--${boundary}\r\nContent-Disposition: form-data; name="x"\r\n\r\nv\r\n--${boundary}--\r\n`
    );
    await expect(openFilePart(streamOf(noFile, []), boundary)).rejects.toThrow(/No "file" file field/);
    await expect(openFilePart(streamOf(whole, []), "other")).rejects.toThrow(MultipartError);
  });
});
