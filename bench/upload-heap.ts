/**
 * The app Worker's own memory during an upload, through workerd's V8 inspector.
 *
 *   node --experimental-strip-types --no-warnings bench/upload-heap.ts [--sizes 5,20,20] [--target preview]
 *
 * workerd's RSS (the files section) grows with an upload's size under
 * `vite dev`, but so does a bare Worker's that only reads the body: it
 * holds workerd's native buffers and the local R2 bucket's services beside
 * the app. This starts the benchmarks' app with the inspector on and reads
 * the app's isolate alone (lib/upload-memory.ts): per size, the peak growth
 * of a full-speed upload as sampled (garbage included) and the live set's
 * peak in a paced one, in MiB over the floor of a forced collection: JS
 * heap, workerd's own objects, ArrayBuffers, their total, and what stayed
 * after the upload. `--target preview` builds the app and serves the build.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "../tests/support/dev-server.ts";
import { buildBenchApp, startBenchServer } from "./lib/dev-server.ts";
import type { IsolateGrowth } from "./lib/inspector.ts";
import { appVars, startBenchFake } from "./lib/section.ts";
import { measureUploadMemory } from "./lib/upload-memory.ts";
import { MiB } from "./lib/uploads.ts";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

const sizes = arg("sizes", "5,20,20").split(",").map(Number);
const target = arg("target", "dev");
if (target !== "dev" && target !== "preview") throw new Error(`--target must be dev or preview, not ${target}`);

const buildDir = target === "preview" ? mkdtempSync(path.join(tmpdir(), "rooms-upload-heap-")) : undefined;
if (buildDir) await buildBenchApp(buildDir);
const inspectorPort = await freePort();
const fake = await startBenchFake();
try {
  const app = await startBenchServer({
    vars: { ...appVars(fake), ROOMS_INSPECTOR_PORT: String(inspectorPort) },
    ...(buildDir ? { buildDir } : {})
  });
  try {
    const mib = (bytes: number) => (bytes / MiB).toFixed(1).padStart(7);
    const row = (label: string, g: IsolateGrowth) =>
      `  ${label}${mib(g.peak.jsHeap)}${mib(g.peak.embedder)}${mib(g.peak.arrayBuffers)}${mib(g.peak.total)}${mib(g.kept)}${String(g.samples).padStart(8)}`;
    console.log(`${target}: the app isolate's growth during uploads, MiB over the floor of a forced collection`);
    console.log("  upload                JS heap workerd  ArrBuf   total    kept samples");
    await measureUploadMemory(app, inspectorPort, sizes, ({ mb, sampled, live }) => {
      console.log(row(`${String(mb).padStart(2)} MB, full speed `, sampled));
      console.log(row(`${String(mb).padStart(2)} MB, paced (live)`, live));
    });
  } finally {
    await app.stop();
  }
} finally {
  await fake.close();
  if (buildDir) rmSync(buildDir, { recursive: true, force: true });
}
