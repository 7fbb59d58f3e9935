/**
 * A room's MCP servers and approvals through the real Worker: what may be
 * added (https only, no private addresses: this Worker runs without
 * MCP_ALLOW_PRIVATE), that a server's secrets never come back out (REST,
 * export), that a server that cannot be reached is shown as failed, and
 * the approval routes' refusals. Connections to a real MCP server and
 * approvals of real calls are in tests/integration/mcp.test.ts.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { ErrorBody } from "@/shared/errors";
import type { McpServerList, McpServerView, ToolApprovalList } from "@/shared/tools";
import { api, createRoom, signIn, uniqueName } from "./helpers";

const mcp = (ws: string, roomId: string) => `/api/workspaces/${ws}/rooms/${roomId}/mcp`;

async function refusal(response: Response): Promise<{ status: number; code: string; message: string }> {
  const body = await response.json<ErrorBody>();
  return { status: response.status, code: body.error.code, message: body.error.message };
}

// The first request of a fresh workerd loads the app (and the MCP client with it).
beforeAll(async () => {
  expect((await createRoom(uniqueName())).id).toEqual(expect.any(String));
});

describe("adding an MCP server to a room", () => {
  it("refuses addresses the room may not reach, and bad bodies, with a reason", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const add = (json: unknown) => api(mcp(ws, room.id), { method: "POST", json });
    // Every form of a private address is in tests/unit/mcp-url.test.ts; these go through the Worker.
    for (const url of [
      "http://mcp.example.com/mcp",
      "https://localhost:8787/mcp",
      "https://169.254.169.254/latest/meta-data",
      "https://[::ffff:127.0.0.1]/mcp",
      "https://user:pass@mcp.example.com/mcp"
    ]) {
      const r = await refusal(await add({ name: "Bad", url }));
      expect(r, url).toMatchObject({ status: 400, code: "bad_request:mcp_url" });
    }
    expect((await refusal(await add({ name: "Loop", url: "https://127.0.0.1/mcp" }))).message).toContain(
      "MCP_ALLOW_PRIVATE"
    );
    for (const body of [
      {},
      { name: "x", url: "https://mcp.example.com/mcp", headers: { "Bad Header": "v" } },
      { name: "x", url: "https://mcp.example.com/mcp", headers: { "X-Key": "a\r\nInjected: 1" } },
      { name: "x", url: "https://mcp.example.com/mcp", extra: true }
    ]) {
      expect(await refusal(await add(body)), JSON.stringify(body)).toMatchObject({
        status: 400,
        code: "bad_request:body"
      });
    }
    const list = await (await api(mcp(ws, room.id))).json<McpServerList>();
    expect(list.servers).toEqual([]);
  });

  it("keeps its headers and the url's query on the server: never in a listing or an export; the room answers meanwhile", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const secret = uniqueName("s3cret");
    const created = await api(mcp(ws, room.id), {
      method: "POST",
      // A documentation address (RFC 5737): a server nobody can reach.
      json: {
        name: "Tracker",
        url: `https://203.0.113.1/mcp?key=${secret}`,
        headers: { Authorization: `Bearer ${secret}` }
      }
    });
    expect(created.status).toBe(201);
    const createdText = await created.text();
    expect(createdText).not.toContain(secret);
    const server = JSON.parse(createdText) as McpServerView;
    expect(server).toMatchObject({
      name: "Tracker",
      url: "https://203.0.113.1/mcp",
      headerNames: ["Authorization"],
      tools: [],
      addedBy: { name: expect.any(String) }
    });
    // Nothing answers there: still connecting, or failed; never ready.
    expect(["connecting", "failed"]).toContain(server.state);

    const listed = await (await api(mcp(ws, room.id))).text();
    expect(listed).not.toContain(secret);
    expect((JSON.parse(listed) as McpServerList).servers.map((s) => s.id)).toEqual([server.id]);
    const exported = await (await api(`/api/workspaces/${ws}/rooms/${room.id}/export?format=json`)).text();
    expect(exported).not.toContain(secret);

    // The room still answers with a failed server in it.
    const sent = await api(`/api/workspaces/${ws}/rooms/${room.id}/messages`, { method: "POST", json: { text: "hi" } });
    expect(sent.status).toBe(200);

    const noTool = await api(`${mcp(ws, room.id)}/${server.id}/tools/create_issue`, {
      method: "PATCH",
      json: { policy: "allowed" }
    });
    expect(await refusal(noTool)).toMatchObject({ status: 404, code: "not_found:mcp_tool" });

    expect((await api(`${mcp(ws, room.id)}/${server.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await (await api(mcp(ws, room.id))).json<McpServerList>()).servers).toEqual([]);
    const again = await api(`${mcp(ws, room.id)}/${server.id}`, { method: "DELETE" });
    expect(await refusal(again)).toMatchObject({ status: 404, code: "not_found:mcp_server" });
  });

  it("answers 404 for an unknown room or one in another workspace", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    expect((await api(mcp(ws, "nope"))).status).toBe(404);
    expect((await api(mcp(uniqueName(), room.id))).status).toBe(404);
    expect((await api(`/api/workspaces/${uniqueName()}/rooms/${room.id}/approvals`)).status).toBe(404);
  });
});

describe("approvals", () => {
  it("lists none in a quiet room, and refuses a decision on a call that does not wait", async () => {
    const ws = uniqueName();
    const owner = await signIn("Olive");
    const room = await (
      await api(`/api/workspaces/${ws}/rooms`, { method: "POST", json: { name: "Quiet" }, headers: owner.headers })
    ).json<{ id: string }>();
    const base = `/api/workspaces/${ws}/rooms/${room.id}/approvals`;
    const list = await api(base, { headers: owner.headers });
    expect(list.status).toBe(200);
    expect(await list.json<ToolApprovalList>()).toEqual({ approvals: [] });
    const unknown = await api(`${base}/call_nope`, {
      method: "POST",
      json: { approved: true },
      headers: owner.headers
    });
    expect(await refusal(unknown)).toMatchObject({ status: 404, code: "not_found:approval" });
    const bad = await api(`${base}/call_nope`, { method: "POST", json: { approved: "yes" }, headers: owner.headers });
    expect(await refusal(bad)).toMatchObject({ status: 400, code: "bad_request:body" });
  });
});
