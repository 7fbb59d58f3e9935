/**
 * Another site cannot make a signed-in browser change anything over REST:
 * a state-changing request (POST, PUT, PATCH, DELETE) whose `Origin` names
 * a foreign site is refused with 403 before anyone is identified, whatever
 * it carries. Reads, requests from the app's own origin, and scripts that
 * send no Origin at all (curl, bearer tokens) are not affected.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import app from "@/server/index";
import type { ErrorBody } from "@/shared/errors";
import { api, BASE, createRoom, signIn, uniqueName } from "./helpers";

const FOREIGN = "https://evil.example";

/** The app with another environment (ALLOWED_ORIGINS, ACCESS_TOKEN), from an address of its own. */
async function call(path: string, init: RequestInit & { json?: unknown }, withEnv: object) {
  const { json, ...rest } = init;
  const headers = new Headers(rest.headers);
  headers.set("cf-connecting-ip", "192.0.2.77");
  if (json !== undefined) headers.set("content-type", "application/json");
  const ctx = createExecutionContext();
  const request = new Request(`${BASE}${path}`, {
    ...rest,
    headers,
    body: json === undefined ? rest.body : JSON.stringify(json)
  });
  const response = await app.fetch(request, withEnv, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

describe("state-changing REST calls from another origin", () => {
  it("are refused with 403 forbidden:origin on every method, with a session or without", async () => {
    const ws = uniqueName();
    const ann = await signIn("Ann");
    const room = await createRoom(ws);
    const calls: [string, string, object?][] = [
      ["POST", `/api/workspaces/${ws}/rooms`, { name: "From elsewhere" }],
      ["POST", `/api/workspaces/${ws}/rooms/${room.id}/messages`, { text: "from elsewhere" }],
      ["PATCH", `/api/workspaces/${ws}/rooms/${room.id}`, { name: "Renamed from elsewhere" }],
      ["PATCH", `/api/workspaces/${ws}/settings`, { dailyTokenBudget: 1 }],
      ["PUT", `/api/workspaces/${ws}/notifications/rooms/${room.id}`, { level: "all" }],
      ["DELETE", `/api/workspaces/${ws}/rooms/${room.id}`],
      ["POST", "/api/session", { name: "Mallory" }],
      ["PATCH", "/api/session", { name: "Mallory" }],
      ["DELETE", "/api/session"]
    ];
    for (const [method, path, json] of calls) {
      for (const origin of [FOREIGN, "null", "http://rooms.test.evil.example"]) {
        const response = await api(path, { method, json, headers: { ...ann.headers, origin } });
        expect(response.status, `${method} ${path} from ${origin}`).toBe(403);
        expect((await response.json<ErrorBody>()).error.code).toBe("forbidden:origin");
      }
    }
    // Nothing changed: the room is there, unrenamed and empty, and Ann is still Ann.
    const detail = await api(`/api/workspaces/${ws}/rooms/${room.id}`, { headers: ann.headers });
    expect(await detail.json()).toMatchObject({ id: room.id, name: "Room", messageCount: 0 });
    expect((await (await api("/api/session", { headers: ann.headers })).json<any>()).user.name).toBe("Ann");
  });

  it("are let through from the app's own origin, an allowed one, and without an Origin (scripts, bearer tokens)", async () => {
    const ws = uniqueName();
    const ann = await signIn("Ann");
    const allowing = { ...env, ALLOWED_ORIGINS: "https://trusted.example" };
    for (const origin of [BASE, "https://trusted.example", undefined]) {
      const response = await call(
        `/api/workspaces/${ws}/rooms`,
        { method: "POST", json: { name: "Here" }, headers: { ...ann.headers, ...(origin ? { origin } : {}) } },
        allowing
      );
      expect(response.status, String(origin)).toBe(201);
    }
    // A script with the access token and no Origin, on a guarded server.
    const guarded = { ...env, ACCESS_TOKEN: "correct horse battery staple" };
    const bearer = { authorization: "Bearer correct horse battery staple" };
    expect(
      (
        await call(
          `/api/workspaces/${ws}/rooms`,
          { method: "POST", json: { name: "Script" }, headers: bearer },
          guarded
        )
      ).status
    ).toBe(201);
    const foreign = await call(
      `/api/workspaces/${ws}/rooms`,
      { method: "POST", json: { name: "Script" }, headers: { ...bearer, origin: FOREIGN } },
      guarded
    );
    expect(foreign.status).toBe(403);
    // Reads are not state-changing (and another site cannot read the answer: no CORS).
    expect((await api(`/api/workspaces/${ws}/rooms`, { headers: { ...ann.headers, origin: FOREIGN } })).status).toBe(
      200
    );
  });
});
