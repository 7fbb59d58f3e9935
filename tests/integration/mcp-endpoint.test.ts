/**
 * Rooms as an MCP server, through the running app: the MCP SDK's client
 * over real HTTP to the dev server's /mcp with a personal API token lists,
 * reads, searches and posts, and gets the provider's answer (the local
 * fake, which echoes the question); a private room stays out of sight, and
 * no token or a revoked one is refused.
 */
import { afterAll, describe, expect, it } from "vitest";
import { connectMcp, type McpSession } from "../support/mcp-client";
import { request, restClient, signIn } from "../support/rest-client";
import { useSharedApp } from "../support/shared-app";
import { uniqueName } from "../support/wait";

const app = useSharedApp();
const sessions: McpSession[] = [];
afterAll(async () => {
  await Promise.all(sessions.map((session) => session.close()));
});

async function setup() {
  const ws = app.workspace;
  const admin = await signIn(app.url, "Ada");
  const me = await request(app.url, `/api/workspaces/${ws}/me`, { headers: admin.headers });
  expect(((await me.json()) as { role: string }).role).toBe("admin");
  const made = await request(app.url, `/api/workspaces/${ws}/tokens`, {
    method: "POST",
    json: { name: "Claude Code" },
    headers: admin.headers
  });
  expect(made.status).toBe(201);
  const token = (await made.json()) as { id: string; token: string };
  return { ws, admin, token, api: restClient(app.url, { workspace: ws, as: admin }) };
}

describe("the MCP endpoint of the running app", () => {
  it("lists, reads, searches and posts with a token, and gets the provider's answer", async () => {
    const { ws, admin, token, api } = await setup();
    const room = await api.createRoom({ name: "Launch" });
    const hidden = await api.createRoom({ name: "Board only", visibility: "private" });
    const marker = uniqueName("launch");
    expect((await api.send(room.id, `${marker} is on Friday`)).status).toBe(200);

    const mcp = await connectMcp(app.url, token.token);
    sessions.push(mcp);
    const rooms = (await mcp.call("list_rooms")).json.rooms.map((r: { id: string }) => r.id);
    expect(rooms).toContain(room.id);
    expect(rooms).not.toContain(hidden.id);

    const page = await mcp.call("read_room", { room: room.id, limit: 1 });
    expect(page.json.messages).toHaveLength(1);
    expect(page.json.messages[0].role).toBe("assistant");
    const before = await mcp.call("read_room", { room: room.id, cursor: page.json.nextCursor });
    expect(before.json.messages[0]).toMatchObject({ text: `${marker} is on Friday`, author: { name: "Ada" } });

    const found = await mcp.call("search", { query: marker });
    expect(
      found.json.results.some((r: { room: string; role: string }) => r.room === room.id && r.role === "user")
    ).toBe(true);

    const question = uniqueName("ask");
    const posted = await mcp.call("post_message", { room: room.id, text: `${question} when is the launch?` });
    expect(posted.isError, posted.text).toBe(false);
    expect(posted.json.status).toBe("completed");
    expect(posted.json.posted.author).toEqual({ id: `token:${token.id}`, name: "Claude Code" });
    // The fake provider got the token's question and its echo is the answer.
    const [sent] = await app.fake.requests(question);
    expect(sent.lastUserText).toContain(question);
    expect(posted.json.answer.text).toContain(question);

    const refused = await mcp.call("read_room", { room: hidden.id });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain("(not_found:room)");

    const revoke = await request(app.url, `/api/workspaces/${ws}/tokens/${token.id}`, {
      method: "DELETE",
      headers: admin.headers
    });
    expect(revoke.status).toBe(204);
    await expect(mcp.call("list_rooms")).rejects.toThrow(/revoked/);
  });

  it("refuses a client without a token", async () => {
    await expect(connectMcp(app.url, null)).rejects.toThrow(/unauthorized:token/);
  });
});
