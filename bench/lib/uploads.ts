/** Uploads for the files benchmarks: a file's bytes, and the multipart POST a browser sends. */

export const MiB = 1024 * 1024;

/** Bytes that are a PNG to the type check and noise after it (incompressible, like a real photo). */
export function imageBytes(size: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(size);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  let x = 12345;
  for (let i = 8; i < size; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    bytes[i] = x >>> 24;
  }
  return bytes;
}

export async function upload(
  base: string,
  ws: string,
  roomId: string,
  bytes: Uint8Array<ArrayBuffer> | string,
  name: string
) {
  const form = new FormData();
  form.append("file", new Blob([bytes]), name);
  const response = await fetch(`${base}/api/workspaces/${ws}/rooms/${roomId}/files`, { method: "POST", body: form });
  const body = (await response.json()) as { file?: { id: string; state: string }; error?: unknown };
  if (response.status !== 201 || !body.file)
    throw new Error(`upload ${name}: ${response.status} ${JSON.stringify(body)}`);
  return body.file;
}

/**
 * `upload`'s request (one multipart/form-data POST with a Content-Length)
 * sent in slices of `sliceBytes`: before each slice but the first, the body
 * waits for `between()`, so the Worker has read everything before it.
 */
export async function pacedUpload(
  base: string,
  ws: string,
  roomId: string,
  bytes: Uint8Array,
  name: string,
  sliceBytes: number,
  between: () => Promise<void>
) {
  const boundary = `----bench${Math.random().toString(16).slice(2)}`;
  const encoder = new TextEncoder();
  const head = encoder.encode(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`
  );
  const tail = encoder.encode(`\r\n--${boundary}--\r\n`);
  const slices: Uint8Array[] = [head];
  for (let at = 0; at < bytes.length; at += sliceBytes) slices.push(bytes.subarray(at, at + sliceBytes));
  slices.push(tail);
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (next >= slices.length) return controller.close();
      if (next > 1) await between();
      controller.enqueue((slices[next++] as Uint8Array).slice());
    }
  });
  const response = await fetch(`${base}/api/workspaces/${ws}/rooms/${roomId}/files`, {
    method: "POST",
    body,
    duplex: "half",
    headers: {
      "content-type": `multipart/form-data; boundary=${boundary}`,
      "content-length": String(head.length + bytes.length + tail.length)
    }
  } as RequestInit);
  if (response.status !== 201) throw new Error(`upload ${name}: ${response.status} ${await response.text()}`);
}
