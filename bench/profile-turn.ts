/**
 * CPU profile of chat turns inside workerd, through its V8 inspector.
 *
 *   node --experimental-strip-types --no-warnings bench/profile-turn.ts [--turns 30] [--chunks 20] [--seed 0]
 *        [--viewers 1] [--others 0] [--out /tmp/turn.cpuprofile] [--floor] [--settle]
 *
 * Starts the benchmarks' app (vite dev, fast fake model) with the inspector
 * on, creates a room (optionally seeded with --seed messages), runs warm-up
 * turns (--others: with that many sockets open in 20 other rooms of the same
 * workspace), then profiles --turns WebSocket turns one after another and prints
 * where workerd's CPU went: self time by module group and the top functions.
 * The .cpuprofile opens in Chrome DevTools (Performance → Load profile).
 * `--settle` waits after the warm-up until the room's summaries have caught up
 * (a seeded room summarises its backlog in the background), so only
 * steady-state turns are profiled.
 * `--floor` profiles the framework-floor Worker (bench/floor: a bare
 * AIChatAgent facet) instead of the app (--seed does not apply).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "../tests/support/dev-server.ts";
import { Api, RoomSocket, roomSocketUrl } from "./lib/client.ts";
import { startBenchServer } from "./lib/dev-server.ts";
import { floorRoomSocketUrl, startFloorServer } from "./lib/floor-server.ts";
import { cdp, inspectorTargets } from "./lib/inspector.ts";
import { appVars, startBenchFake } from "./lib/section.ts";
import { seedViaRoute } from "./lib/seed.ts";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

type ProfileNode = {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
};
type Profile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number };

const packageOfFile = new Map<string, string>();

/** The npm package most referenced in a pre-bundled deps file (Vite names them by hash). */
function packageOf(file: string): string {
  let name = packageOfFile.get(file);
  if (name) return name;
  const counts = new Map<string, number>();
  try {
    for (const m of readFileSync(file, "utf8").matchAll(/node_modules\/((?:@[\w.-]+\/)?[\w.-]+)/g)) {
      counts.set(m[1], (counts.get(m[1]) ?? 0) + 1);
    }
  } catch {
    // unreadable: fall back to the file name
  }
  name = [...counts].sort((x, y) => y[1] - x[1])[0]?.[0] ?? path.basename(file);
  packageOfFile.set(file, name);
  return name;
}

function group(url: string): string {
  if (!url) return "(native / runtime)";
  const file = url.replace(/\?.*$/, "");
  if (/\/deps[^/]*\/[^/]+\.js$/.test(file)) {
    const base = path.basename(file, ".js");
    return /^(dist|types|schemas|index|stream|chunk)-/.test(base) ? packageOf(file) : base.replace(/_/g, "/");
  }
  if (file.includes("/src/server/")) return `ours: ${file.slice(file.indexOf("/src/server/") + 1)}`;
  if (file.startsWith("workers/runner-worker")) return "vite module runner (workerd side)";
  return file.length > 60 ? `…${file.slice(-60)}` : file;
}

const turns = Number(arg("turns", "30"));
const chunks = Number(arg("chunks", "20"));
const seed = Number(arg("seed", "0"));
const viewers = Number(arg("viewers", "1"));
const others = Number(arg("others", "0"));
const out = arg("out", path.join(tmpdir(), `rooms-turn-${Date.now()}.cpuprofile`));

const inspectorPort = await freePort();
const fake = await startBenchFake();
const floor = process.argv.includes("--floor");
const app = floor
  ? await startFloorServer(fake, { inspectorPort })
  : await startBenchServer({ vars: { ...appVars(fake), ROOMS_INSPECTOR_PORT: String(inspectorPort) } });
try {
  const ws = `prof-${Math.random().toString(36).slice(2, 8)}`;
  const api = new Api(app.url);
  /** A room's socket URL; the app's rooms are created first, the floor's on first connect. */
  const openRoom = async (name: string): Promise<{ url: string; id: string }> => {
    if (floor) return { url: floorRoomSocketUrl(app.url, ws, name), id: name };
    const room = await api.createRoom(ws, name);
    return { url: roomSocketUrl(app.url, ws, room.id), id: room.id };
  };
  const room = await openRoom("profile");
  if (seed > 0 && !floor) {
    const seeded = await seedViaRoute(api, ws, room.id, seed, () => {});
    if (!seeded.ok) throw new Error(`seeding failed: ${seeded.reason}`);
  }
  const sockets = await Promise.all(Array.from({ length: viewers }, () => RoomSocket.open(room.url)));
  const otherRooms = others > 0 ? await Promise.all(Array.from({ length: 20 }, (_, i) => openRoom(`o${i}`))) : [];
  const otherSockets = await Promise.all(
    Array.from({ length: others }, (_, i) => RoomSocket.open(otherRooms[i % 20].url))
  );
  const turn = async (i: number) => {
    const trace = sockets[0].sendChat(`[[fake:chunks=${chunks}]] profiled turn ${i}`);
    await Promise.all(sockets.map((s) => s.waitDone(trace.requestId)));
  };
  for (let i = 0; i < 5; i++) await turn(-i - 1);
  if (process.argv.includes("--settle") && !floor) {
    // A seeded room summarises its backlog in the background after its first
    // turn: wait for that, so the profile holds steady-state turns only.
    const memoryPath = `${api.roomsPath(ws)}/${room.id}/memory`;
    for (;;) {
      const memory = (await api.json(memoryPath, { expect: [200] })).body as {
        summaries: unknown[];
        unsummarised: { messageCount: number } | null;
      };
      if (memory.unsummarised?.messageCount === 0 || (seed === 0 && memory.summaries.length === 0)) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  const targets = await inspectorTargets(inspectorPort);
  console.log(`inspector targets: ${targets.map((t) => t.title ?? "?").join(", ")}`);
  const sessions = await Promise.all(targets.map((t) => cdp(t.webSocketDebuggerUrl)));
  for (const s of sessions) {
    await s.send("Profiler.enable");
    await s.send("Profiler.setSamplingInterval", { interval: 100 });
    await s.send("Profiler.start");
  }
  const started = performance.now();
  for (let i = 0; i < turns; i++) await turn(i);
  const wallMs = performance.now() - started;
  const profiles: Profile[] = [];
  for (const s of sessions) {
    const result = await s.send("Profiler.stop");
    if (result?.profile) profiles.push(result.profile);
    s.close();
  }
  await Promise.all([...sockets, ...otherSockets].map((s) => s.close()));

  // Self time per node, from the samples.
  const byGroup = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let busyUs = 0;
  let idleUs = 0;
  for (const profile of profiles) {
    const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
    for (let i = 0; i < profile.samples.length; i++) {
      const node = nodes.get(profile.samples[i])!;
      const dt = profile.timeDeltas[i + 1] ?? 0;
      const name = node.callFrame.functionName || "(anonymous)";
      if (name === "(idle)" || name === "(program)" || name === "(garbage collector)") {
        if (name === "(idle)") {
          idleUs += dt;
          continue;
        }
      }
      busyUs += dt;
      const g = name.startsWith("(") ? name : group(node.callFrame.url);
      byGroup.set(g, (byGroup.get(g) ?? 0) + dt);
      const key = `${name}  ${group(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`;
      byFunction.set(key, (byFunction.get(key) ?? 0) + dt);
    }
  }
  writeFileSync(out, JSON.stringify(profiles[0] ?? {}));
  const perTurn = (us: number) => (us / 1000 / turns).toFixed(2);
  console.log(
    `\n${turns} turns of ${chunks} chunks, room of ${seed} seeded messages, ${viewers} viewer(s), ${others} sockets in other rooms; wall ${(wallMs / turns).toFixed(1)} ms per turn`
  );
  console.log(`workerd JS busy (sampled, all isolates): ${perTurn(busyUs)} ms per turn; idle ${perTurn(idleUs)} ms\n`);
  console.log("self time by module group, ms per turn:");
  for (const [g, us] of [...byGroup].sort((a, b) => b[1] - a[1]).slice(0, 14))
    console.log(`  ${perTurn(us).padStart(8)}  ${g}`);
  console.log("\ntop functions by self time, ms per turn:");
  for (const [f, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 30))
    console.log(`  ${perTurn(us).padStart(8)}  ${f}`);
  console.log(`\nprofile: ${out}`);
} finally {
  await app.stop();
  await fake.close();
}
