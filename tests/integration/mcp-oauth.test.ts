/**
 * An MCP server that asks for OAuth, in a room, through the running app:
 * the test tools behind a bearer check with their own authorization server
 * (tests/support/mcp-oauth-server.ts, on loopback; the app runs with
 * MCP_ALLOW_PRIVATE=true). Added to a room, the server waits for a sign-in
 * and its view carries the provider's sign-in address; following it as a
 * browser would (the provider approves at once and redirects to the room's
 * callback, which carries no session) makes the server ready, the browser
 * lands back on the room's page, and the model calls its tool. The access
 * token is in neither the room's server list nor its export; a callback
 * with a state the room never issued is refused and leaves the server
 * waiting. A workspace's server cannot sign in (OAuth is per room for now):
 * it fails with an error that says so.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { McpServerList, McpServerView } from "@/shared/tools";
import { type RecordedRequest, toolDirective } from "../support/fake-openai";
import { type McpOAuthTestServer, startMcpOAuthServer } from "../support/mcp-oauth-server";
import { request, restClient, signIn } from "../support/rest-client";
import { useSharedApp } from "../support/shared-app";
import { uniqueName, waitFor } from "../support/wait";

const app = useSharedApp({ vars: { MCP_ALLOW_PRIVATE: "true" } });

const WEATHER = `Drizzle, 9 degrees (${uniqueName("forecast")})`;
const DELETED = `Deleted (${uniqueName("receipt")})`;

let oauthServer: McpOAuthTestServer;
beforeAll(async () => {
  oauthServer = await startMcpOAuthServer({ weather: WEATHER, deleted: DELETED });
});
afterAll(async () => {
  await oauthServer?.close();
});

function toolResults(request: RecordedRequest): string[] {
  const messages = (request.body?.messages ?? []) as Array<{ role: string; content: unknown }>;
  return messages
    .filter((m) => m.role === "tool")
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
}

describe("an MCP server that asks for OAuth, in a room", () => {
  it("waits for a sign-in, becomes ready after the provider's redirect to the room, and keeps the token server-side", async () => {
    const olive = await signIn(app.url, "Olive");
    const owner = restClient(app.url, { workspace: app.workspace, as: olive });
    const room = await owner.createRoom();
    const list = async () => ((await (await owner.call(`/${room.id}/mcp`)).json()) as McpServerList).servers;

    const added = await owner.call(`/${room.id}/mcp`, {
      method: "POST",
      json: { name: "Signed tools", url: oauthServer.url }
    });
    expect(added.status).toBe(201);
    const { id } = (await added.json()) as McpServerView;

    // 1. It needs a sign-in: the view says so, with the provider's sign-in page.
    const [waiting] = await waitFor(
      list,
      (servers) => servers[0]?.state === "authenticating",
      20_000,
      "the server waiting for a sign-in"
    );
    expect(waiting).toMatchObject({ id, name: "Signed tools", error: null, tools: [] });
    const authUrl = new URL(waiting.authUrl ?? "");
    expect(authUrl.origin).toBe(new URL(oauthServer.url).origin);
    expect(authUrl.pathname).toBe("/authorize");
    const callback = new URL(authUrl.searchParams.get("redirect_uri") ?? "");
    expect(callback.origin).toBe(new URL(app.url).origin);
    expect(callback.pathname).toBe(`/agents/overseer-agent/${app.workspace}/sub/chat-room/${room.id}/mcp-callback`);

    // 2. A callback with a state the room never issued is refused, and the server still waits.
    const forged = new URL(callback);
    forged.searchParams.set("code", "made-up");
    forged.searchParams.set("state", `not-a-real-nonce.${id}`);
    const refused = await fetch(forged, { redirect: "manual" });
    expect(refused.status, await refused.clone().text()).toBe(302);
    const refusedTo = new URL(refused.headers.get("location") ?? "", app.url);
    expect(refusedTo.pathname).toBe(`/sub/chat-room/${room.id}`);
    expect(refusedTo.searchParams.get("mcp_error")).toBeTruthy();
    const unknownServer = new URL(callback);
    unknownServer.searchParams.set("code", "made-up");
    unknownServer.searchParams.set("state", "nonce.sNoSuchServer");
    expect((await fetch(unknownServer, { redirect: "manual" })).status).toBe(404);
    expect((await list())[0]).toMatchObject({ state: "authenticating", authUrl: waiting.authUrl });
    expect(oauthServer.tokens).toEqual([]);

    // 3. The sign-in, as a browser follows it: the provider approves and redirects to the room's
    // callback, which the browser requests without its session (a cross-site redirect).
    const approved = await fetch(authUrl, { redirect: "manual" });
    expect(approved.status).toBe(302);
    const back = new URL(approved.headers.get("location") ?? "");
    expect(back.origin + back.pathname).toBe(callback.toString());
    const landed = await fetch(back, { redirect: "manual" });
    expect(landed.status).toBe(302);
    const landedOn = new URL(landed.headers.get("location") ?? "", app.url);
    expect(landedOn.pathname).toBe(`/sub/chat-room/${room.id}`);
    expect(landedOn.searchParams.get("mcp_error")).toBeNull();
    expect(oauthServer.tokens).toHaveLength(1);

    const [ready] = await waitFor(
      list,
      (servers) => servers[0]?.state === "ready",
      20_000,
      "the server ready after the sign-in"
    );
    expect(ready.authUrl).toBeNull();
    expect(ready.tools.map((t) => t.name)).toContain("lookup_weather");

    // 4. The model calls its tool; the server (behind the bearer check) answers.
    const city = uniqueName("Tromso");
    const done = uniqueName("signed-weather-done");
    const asked = await owner.send(
      room.id,
      `${toolDirective(`tool_${id}_lookup_weather`, { city }, done)} weather in ${city}?`
    );
    expect(asked.status).toBe(200);
    expect(oauthServer.calls).toEqual([{ tool: "lookup_weather", args: { city } }]);
    const [, second] = await app.fake.requests(city);
    expect(toolResults(second).join("\n")).toContain(`${WEATHER} in ${city}`);

    // 5. The token stays in the room: not in its server list, not in its export.
    const [token] = oauthServer.tokens;
    const listed = await (await owner.call(`/${room.id}/mcp`)).text();
    expect(listed).not.toContain(token);
    const exported = await owner.call(`/${room.id}/export?format=json`);
    expect(exported.status).toBe(200);
    expect(await exported.text()).not.toContain(token);
  });
});

describe("an MCP server that asks for OAuth, for the whole workspace", () => {
  it("fails with an error that says to add it to a room instead", async () => {
    // A workspace of its own: the first person to use it is its admin.
    const ws = uniqueName("ws");
    const ada = await signIn(app.url, "Ada");
    const admin = (path = "", init: Parameters<typeof request>[2] = {}) =>
      request(app.url, `/api/workspaces/${ws}/mcp${path}`, { ...init, headers: ada.headers });
    expect((await request(app.url, `/api/workspaces/${ws}/me`, { headers: ada.headers })).status).toBe(200);
    const added = await admin("", { method: "POST", json: { name: "Signed tools", url: oauthServer.url } });
    expect(added.status).toBe(201);
    const [server] = await waitFor(
      async () => ((await (await admin()).json()) as McpServerList).servers,
      (servers) => servers[0]?.state === "failed",
      20_000,
      "the workspace's OAuth server failed"
    );
    expect(server.authUrl).toBeNull();
    expect(server.error).toContain("add it to a room instead");
  });
});
