/**
 * The workspace's MCP servers through the real Worker: only an admin adds,
 * lists, reconnects, changes or removes them (a member gets 403 saying
 * who can); what may be added (the rooms' address rules and body schema:
 * this Worker runs without MCP_ALLOW_PRIVATE); a server's secrets never
 * come back out, of the listing nor of a room's export; a room keeps
 * answering with a workspace server that cannot be reached. A room calling
 * a real workspace server's tools is in tests/integration/mcp.test.ts.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { ErrorBody } from "@/shared/errors";
import type { McpServerList, McpServerView } from "@/shared/tools";
import { api, type SignedIn, signIn, uniqueName, workspaceAdmin } from "./helpers";

async function refusal(response: Response): Promise<{ status: number; code: string; message: string }> {
  const body = await response.json<ErrorBody>();
  return { status: response.status, code: body.error.code, message: body.error.message };
}

/** Every row of every table of the workspace's overseer, as text. */
async function overseerRows(ws: string): Promise<Record<string, string>> {
  return runInDurableObject(env.OverseerAgent.get(env.OverseerAgent.idFromName(ws)), (_, state) => {
    const tables = state.storage.sql
      .exec<{ name: string }>(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'"
      )
      .toArray();
    return Object.fromEntries(
      tables.map(({ name }) => [name, JSON.stringify(state.storage.sql.exec(`SELECT * FROM "${name}"`).toArray())])
    );
  });
}

const as = (person: SignedIn, init: { method?: string; json?: unknown } = {}) => ({ ...init, headers: person.headers });

describe("MCP servers of the whole workspace", () => {
  it("are an admin's: a member gets 403 forbidden:not_admin on every route, and nothing is added", async () => {
    const ws = uniqueName();
    const base = `/api/workspaces/${ws}/mcp`;
    const admin = await workspaceAdmin(ws, "Ada");
    const member = await signIn("Mia");
    // Mia uses the workspace too: she is a member of it, not a stranger.
    expect((await api(`/api/workspaces/${ws}/me`, as(member))).status).toBe(200);
    const added = await api(
      base,
      as(admin, { method: "POST", json: { name: "Docs", url: "https://203.0.113.2/mcp" } })
    );
    expect(added.status).toBe(201);
    const { id } = await added.json<McpServerView>();

    for (const [method, path, json] of [
      ["GET", base, undefined],
      ["POST", base, { name: "Mine", url: "https://mcp.example.com/mcp" }],
      ["DELETE", `${base}/${id}`, undefined],
      ["POST", `${base}/${id}/reconnect`, {}],
      ["PATCH", `${base}/${id}/tools/search`, { policy: "allowed" }]
    ] as const) {
      const r = await refusal(await api(path, as(member, { method, json })));
      expect(r, `${method} ${path}`).toMatchObject({ status: 403, code: "forbidden:not_admin" });
      expect(r.message).toBe("Only a workspace admin can change the workspace's MCP servers and tools.");
    }
    const list = await (await api(base, as(admin))).json<McpServerList>();
    expect(list.servers.map((s) => s.id)).toEqual([id]);
  });

  it("refuses addresses no room may reach, and bad bodies, with the rooms' reasons", async () => {
    const ws = uniqueName();
    const base = `/api/workspaces/${ws}/mcp`;
    const admin = await workspaceAdmin(ws);
    const add = (json: unknown) => api(base, as(admin, { method: "POST", json }));
    for (const url of ["http://mcp.example.com/mcp", "https://localhost/mcp", "https://169.254.169.254/latest"]) {
      expect(await refusal(await add({ name: "Bad", url })), url).toMatchObject({
        status: 400,
        code: "bad_request:mcp_url"
      });
    }
    for (const body of [
      {},
      { name: "", url: "https://mcp.example.com/mcp" },
      { name: "x", url: "https://mcp.example.com/mcp", headers: { "Bad Header": "v" } },
      { name: "x", url: "https://mcp.example.com/mcp", extra: true }
    ]) {
      expect(await refusal(await add(body)), JSON.stringify(body)).toMatchObject({
        status: 400,
        code: "bad_request:body"
      });
    }
    const bad = await api(`${base}/wnope/tools/x`, as(admin, { method: "PATCH", json: { policy: "sometimes" } }));
    expect(await refusal(bad)).toMatchObject({ status: 400, code: "bad_request:body" });
    expect((await (await api(base, as(admin))).json<McpServerList>()).servers).toEqual([]);
  });

  it("keeps headers and the url's query on the server, out of listings and rooms' exports; rooms answer meanwhile; removal is final", async () => {
    const ws = uniqueName();
    const base = `/api/workspaces/${ws}/mcp`;
    const admin = await workspaceAdmin(ws);
    const secret = uniqueName("s3cret");
    const created = await api(
      base,
      as(admin, {
        method: "POST",
        // A documentation address (RFC 5737): a server nobody can reach.
        json: { name: "Tracker", url: `https://203.0.113.1/mcp?key=${secret}`, headers: { "X-Api-Key": secret } }
      })
    );
    expect(created.status).toBe(201);
    const createdText = await created.text();
    expect(createdText).not.toContain(secret);
    const server = JSON.parse(createdText) as McpServerView;
    expect(created.headers.get("location")).toBe(`/api/workspaces/${ws}/mcp/${server.id}`);
    // A workspace server's id is told apart from a room's own ("s…") in a tool's name.
    expect(server.id).toMatch(/^w[0-9a-f]{8}$/);
    expect(server).toMatchObject({
      name: "Tracker",
      url: "https://203.0.113.1/mcp",
      headerNames: ["X-Api-Key"],
      tools: [],
      addedBy: { name: "Admin" }
    });
    expect(["connecting", "failed"]).toContain(server.state);
    const listed = await (await api(base, as(admin))).text();
    expect(listed).not.toContain(secret);
    // Kept in the overseer's own table only: not in the SDK's, which would reconnect it, unguarded, on every wake.
    // (mcp_servers holds the url, with its query.)
    const stored = await overseerRows(ws);
    expect("cf_agents_mcp_servers" in stored).toBe(true);
    expect(
      Object.keys(stored)
        .filter((table) => stored[table]?.includes(secret))
        .sort()
    ).toEqual(["mcp_server_headers", "mcp_servers"]);
    expect((JSON.parse(listed) as McpServerList).servers.map((s) => s.id)).toEqual([server.id]);

    // A room of the workspace asks for the list at its turn: it answers with the server unreachable.
    const room = await (
      await api(`/api/workspaces/${ws}/rooms`, as(admin, { method: "POST", json: { name: "Team" } }))
    ).json<{ id: string }>();
    const sent = await api(
      `/api/workspaces/${ws}/rooms/${room.id}/messages`,
      as(admin, { method: "POST", json: { text: "hi" } })
    );
    expect(sent.status).toBe(200);
    const exported = await (await api(`/api/workspaces/${ws}/rooms/${room.id}/export?format=json`, as(admin))).text();
    expect(exported).not.toContain(secret);
    const workspaceExport = await (await api(`/api/workspaces/${ws}/export`, as(admin))).text();
    expect(workspaceExport).not.toContain(secret);
    // The room's own list is its own servers: the workspace's are listed here.
    expect(
      (await (await api(`/api/workspaces/${ws}/rooms/${room.id}/mcp`, as(admin))).json<McpServerList>()).servers
    ).toEqual([]);

    expect((await api(`${base}/${server.id}`, as(admin, { method: "DELETE" }))).status).toBe(204);
    expect((await (await api(base, as(admin))).json<McpServerList>()).servers).toEqual([]);
    const left = await overseerRows(ws);
    expect(Object.keys(left).filter((table) => left[table]?.includes(secret))).toEqual([]);
    const again = await api(`${base}/${server.id}`, as(admin, { method: "DELETE" }));
    expect(await refusal(again)).toMatchObject({ status: 404, code: "not_found:mcp_server" });
    const reconnect = await api(`${base}/${server.id}/reconnect`, as(admin, { method: "POST", json: {} }));
    expect(await refusal(reconnect)).toMatchObject({ status: 404, code: "not_found:mcp_server" });
    // The room still answers after the server left.
    const after = await api(
      `/api/workspaces/${ws}/rooms/${room.id}/messages`,
      as(admin, { method: "POST", json: { text: "still there?" } })
    );
    expect(after.status).toBe(200);
  });
});
