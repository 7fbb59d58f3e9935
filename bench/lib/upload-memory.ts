/**
 * The app Worker's own memory during uploads (lib/inspector.ts), for
 * the files section and bench/upload-heap.ts. workerd's RSS cannot tell the
 * app from workerd's native buffers and the local R2 bucket, which all grow
 * with the file under `vite dev`; the app's isolate alone must not: it
 * streams the file into R2 parts through one reused 5 MiB part buffer.
 *
 * Each size is uploaded twice after a 1 MB warm-up, each time from the floor
 * of a forced collection: once at full speed, its peak sampled as often as
 * workerd answers (garbage included), and once paced in 1 MiB slices with a
 * collection and a reading after each (the live set: what the code holds).
 */
import { Api } from "./client.ts";
import type { BenchServer } from "./dev-server.ts";
import { type IsolateGrowth, liveGrowth, sampledGrowth, workerSession } from "./inspector.ts";
import { imageBytes, MiB, pacedUpload, upload } from "./uploads.ts";

interface UploadMemory {
  mb: number;
  /** full speed: peak as sampled, garbage included */
  sampled: IsolateGrowth;
  /** paced: peak of the live set */
  live: IsolateGrowth;
}

/** `inspectorPort`: the ROOMS_INSPECTOR_PORT `app` was started with. */
export async function measureUploadMemory(
  app: BenchServer,
  inspectorPort: number,
  sizes: number[],
  onResult: (result: UploadMemory) => void
): Promise<void> {
  const api = new Api(app.url);
  const ws = `heap-${Math.random().toString(36).slice(2, 8)}`;
  const room = await api.createRoom(ws, "uploads");
  const session = await workerSession(inspectorPort, "rooms-bench");
  // A request into the isolate, to run the collection the inspector queued.
  const poke = () => api.json(api.roomsPath(ws), { expect: [200] });
  try {
    await upload(app.url, ws, room.id, imageBytes(MiB), "warm-up.png");
    for (const mb of sizes) {
      const bytes = imageBytes(mb * MiB);
      const sampled = await sampledGrowth(session, poke, () => upload(app.url, ws, room.id, bytes, `${mb}mb.png`));
      const live = await liveGrowth(session, poke, (step) =>
        pacedUpload(app.url, ws, room.id, bytes, `${mb}mb-paced.png`, MiB, step)
      );
      onResult({ mb, sampled, live });
    }
  } finally {
    session.close();
  }
}
