/**
 * The framework-floor Worker (bench/floor: a bare parent Agent with bare
 * AIChatAgent facets) under `vite dev`, or its build under `vite preview`,
 * pointed at a fake provider; and its URLs.
 */
import path from "node:path";
import { buildForPreview, previewOf } from "../../tests/support/app-build.ts";
import { type DevServer, ROOT, startDevServer } from "../../tests/support/dev-server.ts";
import type { FakeOpenAI } from "../../tests/support/fake-openai.ts";

const CONFIG = path.join(ROOT, "bench/floor/vite.config.ts");

/** `vite build` of the floor Worker into `outDir`, for `startFloorServer(fake, { buildDir: outDir })`. */
export function buildFloor(outDir: string): Promise<void> {
  return buildForPreview(CONFIG, outDir);
}

/** `inspectorPort`: workerd's V8 inspector on that port (bench/profile-turn.ts --floor). */
export function startFloorServer(
  fake: FakeOpenAI,
  opts: { buildDir?: string; inspectorPort?: number } = {}
): Promise<DevServer> {
  return startDevServer({
    ...(opts.buildDir ? previewOf(opts.buildDir, CONFIG) : { command: "dev", configFile: CONFIG }),
    vars: {
      OPENAI_BASE_URL: fake.url,
      OPENAI_API_KEY: "bench",
      OPENAI_MODEL: "fake-model",
      ...(opts.inspectorPort ? { ROOMS_INSPECTOR_PORT: String(opts.inspectorPort) } : {})
    },
    startTimeoutMs: 120_000
  });
}

function roomPath(workspace: string, room: string): string {
  return `/agents/floor-parent/${workspace}/sub/floor-chat/${room}`;
}

export function floorRoomSocketUrl(baseUrl: string, workspace: string, room: string): string {
  return `${baseUrl.replace(/^http/, "ws")}${roomPath(workspace, room)}`;
}

/** What a floor room stored (AIChatAgent's own GET …/get-messages). */
export async function floorStoredMessages(baseUrl: string, workspace: string, room: string): Promise<any[]> {
  const response = await fetch(`${baseUrl}${roomPath(workspace, room)}/get-messages`);
  if (!response.ok) throw new Error(`floor get-messages: ${response.status} ${await response.text()}`);
  return (await response.json()) as any[];
}

/** gadgets-chat's design in the same Worker: the parent's own socket, the room named in the query. */
export function relayRoomSocketUrl(baseUrl: string, workspace: string, room: string): string {
  return `${baseUrl.replace(/^http/, "ws")}/agents/relay-parent/${workspace}?room=${encodeURIComponent(room)}`;
}

export async function relayStoredMessages(baseUrl: string, workspace: string, room: string): Promise<any[]> {
  const response = await fetch(`${baseUrl}/agents/relay-parent/${workspace}?room=${encodeURIComponent(room)}`);
  if (!response.ok) throw new Error(`relay messages: ${response.status} ${await response.text()}`);
  return (await response.json()) as any[];
}
