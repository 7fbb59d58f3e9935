/**
 * Share-link viewers are anonymous, so their requests are limited per
 * address (RATE_LIMITS.shareViews), and a link known to be gone (revoked,
 * expired, its room deleted) is answered by the Worker from then on without
 * asking the workspace's overseer again.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { OverseerAgent } from "@/server/agents/overseer-agent";
import { RATE_LIMITS } from "@/shared/constants";
import type { ErrorBody } from "@/shared/errors";
import type { ShareLink } from "@/shared/shares";
import { api, createRoom, signIn, uniqueName } from "./helpers";

afterEach(() => {
  vi.restoreAllMocks();
});

async function sharedRoom() {
  const ws = uniqueName();
  const ann = await signIn("Ann");
  const room = await createRoom(ws, { name: "Shared" });
  const response = await api(`/api/workspaces/${ws}/rooms/${room.id}/shares`, {
    method: "POST",
    json: {},
    headers: ann.headers
  });
  expect(response.status).toBe(201);
  const link = await response.json<ShareLink>();
  return { ws, ann, room, link, token: link.path.replace(/^\/share\//, "") };
}

const view = (path: string, address: string) => api(path, { headers: { "cf-connecting-ip": address } });

describe("share-link viewers", () => {
  it("are limited per address with 429 and Retry-After, on every viewer route; other addresses are not", async () => {
    const { token } = await sharedRoom();
    const address = `2001:db8:5a1e:${Math.floor(Math.random() * 0xffff).toString(16)}::7`;
    const paths = [`/api/share/${token}`, `/api/share/${token}/messages`, `/api/share/${token}/files`];
    // All at once, so the refill while they run stays small next to the burst;
    // half of them from another address in the same /64, which is the same client.
    const { burst, perMinute } = RATE_LIMITS.shareViews;
    const started = Date.now();
    const responses = await Promise.all(
      Array.from({ length: burst + 45 }, (_, i) =>
        view(paths[i % paths.length], i % 2 ? address : address.replace(/::7$/, "::8")).then((response) => ({
          path: paths[i % paths.length],
          response
        }))
      )
    );
    const refillAllowance = Math.ceil(((Date.now() - started) / 60_000) * perMinute) + 1;
    const passed = responses.filter(({ response }) => response.status === 200);
    const refused = responses.filter(({ response }) => response.status !== 200);
    expect(passed.length).toBeGreaterThanOrEqual(burst);
    expect(passed.length).toBeLessThanOrEqual(burst + refillAllowance);
    for (const { response } of refused) {
      expect(response.status).toBe(429);
      expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
      expect((await response.json<ErrorBody>()).error.code).toBe("rate_limited:requests");
    }
    expect(new Set(refused.map(({ path }) => path))).toEqual(new Set(paths));
    expect((await view(`/api/share/${token}`, "198.51.100.23")).status).toBe(200);
  });

  it("with a revoked link are answered 404 without asking the overseer again", async () => {
    const { ws, ann, room, link, token } = await sharedRoom();
    expect((await view(`/api/share/${token}`, "198.51.100.31")).status).toBe(200);
    const revoked = await api(`/api/workspaces/${ws}/rooms/${room.id}/shares/${link.id}`, {
      method: "DELETE",
      headers: ann.headers
    });
    expect(revoked.status).toBe(204);
    // The first viewer request after revocation may still ask; none after it do.
    expect((await view(`/api/share/${token}`, "198.51.100.31")).status).toBe(404);
    const asked = vi.spyOn(OverseerAgent.prototype, "openShare");
    for (const path of [`/api/share/${token}`, `/api/share/${token}/messages`, `/api/share/${token}/files`]) {
      const response = await view(path, "198.51.100.32");
      expect(response.status, path).toBe(404);
      expect((await response.json<ErrorBody>()).error.code).toBe("not_found:share");
    }
    expect(asked.mock.calls.filter(([shareId]) => shareId === link.id)).toEqual([]);
  });
});
