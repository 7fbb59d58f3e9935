/**
 * Seeding large histories. Live turns are far too slow for 10,000 or
 * 100,000 messages, and the chat protocol no longer lets a client add
 * earlier messages (the chat-request guard keeps only the last, new one),
 * so large rooms need the bench-only route (bench/app/worker.ts):
 *
 *   POST /api/workspaces/<ws>/rooms/<id>/__bench/seed {"count": n}   (n ≤ 10,000 a call)
 *
 * served only by the benchmarks' Worker (bench/vite.bench.config.ts). Against
 * any other server the route answers 404 not_found:route and the sizes that
 * need it are skipped.
 */
import type { Api } from "./client.ts";

const SEED_PER_CALL = 10_000;

export type SeedOutcome = { ok: true } | { ok: false; reason: string };

export async function seedViaRoute(
  api: Api,
  workspace: string,
  roomId: string,
  count: number,
  onProgress?: (done: number) => void
): Promise<SeedOutcome> {
  let done = 0;
  while (done < count) {
    const n = Math.min(SEED_PER_CALL, count - done);
    const { status, body } = await api.json(`${api.roomsPath(workspace)}/${roomId}/__bench/seed`, {
      method: "POST",
      body: { count: n }
    });
    if (status === 404 && body?.error?.code === "not_found:route") {
      return {
        ok: false,
        reason: "the server has no bench seeding route (is the server running bench/vite.bench.config.ts?)"
      };
    }
    if (status !== 200) throw new Error(`seeding failed: ${status} ${JSON.stringify(body).slice(0, 300)}`);
    done += n;
    onProgress?.(done);
  }
  return { ok: true };
}
