/**
 * A sign-in to an OAuth MCP server that outlives the room's Durable Object:
 * the room waits for the sign-in, the whole dev server is killed and
 * started again on the same storage (as when the room is evicted while
 * someone is at the provider), and the sign-in still completes. The
 * server's list after the wake shows the same sign-in address (listing
 * does not start a new sign-in, which would void the one under way), and
 * the callback finishes it on the restored connection.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { McpServerList, McpServerView } from "@/shared/tools";
import { type McpOAuthTestServer, startMcpOAuthServer } from "../support/mcp-oauth-server";
import { restClient } from "../support/rest-client";
import { useTestApp } from "../support/test-app";
import { waitFor } from "../support/wait";

const app = useTestApp({ vars: { MCP_ALLOW_PRIVATE: "true" }, restartsServer: true });

let oauthServer: McpOAuthTestServer;
beforeAll(async () => {
  oauthServer = await startMcpOAuthServer({ weather: "Fog", deleted: "Gone" });
});
afterAll(async () => {
  await oauthServer?.close();
});

describe("an OAuth sign-in across a restart", () => {
  // Generous: the test restarts the whole dev server, which takes long on a busy machine.
  it("completes on the room's restored connection, with the sign-in address it showed before", {
    timeout: 240_000
  }, async () => {
    const api = restClient(app.url);
    const room = await api.createRoom({ name: "Signed across a restart" });
    const list = async () => ((await (await api.call(`/${room.id}/mcp`)).json()) as McpServerList).servers;
    const added = await api.call(`/${room.id}/mcp`, { method: "POST", json: { name: "Signed", url: oauthServer.url } });
    expect(added.status).toBe(201);
    const { id } = (await added.json()) as McpServerView;
    const [waiting] = await waitFor(list, (s) => s[0]?.state === "authenticating", 20_000, "waiting for a sign-in");
    expect(waiting.authUrl).toBeTruthy();

    await app.server.restart({ hard: true });

    // Listed after the wake: still waiting, with the same address (no new sign-in started).
    const [after] = await list();
    expect(after).toMatchObject({ id, state: "authenticating", authUrl: waiting.authUrl });

    const approved = await fetch(waiting.authUrl ?? "", { redirect: "manual" });
    expect(approved.status).toBe(302);
    const landed = await fetch(approved.headers.get("location") ?? "", { redirect: "manual" });
    expect(landed.status, await landed.clone().text()).toBe(302);
    const landedOn = new URL(landed.headers.get("location") ?? "", app.url);
    expect(landedOn.pathname).toBe(`/sub/chat-room/${room.id}`);
    expect(landedOn.searchParams.get("mcp_error")).toBeNull();
    expect(oauthServer.tokens).toHaveLength(1);
    const [ready] = await waitFor(list, (s) => s[0]?.state === "ready", 20_000, "ready after the sign-in");
    expect(ready.tools.map((t) => t.name)).toContain("lookup_weather");
  });
});
