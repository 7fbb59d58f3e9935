/**
 * Who may change what, through the real Worker: a member of a room who is
 * neither its owner nor an admin tries every route that changes something
 * (and the few that read what only owners and admins see), walked from
 * Hono's own route table, so a route added later must be classified here.
 * Each answers 403 with a sentence saying who can, and nothing changed.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import app from "@/server/index";
import type { ApiTokenList, InviteList, MemberList, PeopleList } from "@/shared/members";
import type { RoomDetail } from "@/shared/protocol";
import { api, type SignedIn, signIn, uniqueName, workspaceAdmin } from "./helpers";

const PREFIX = "/api/workspaces/:workspace";

/** What a room member may do (so it is not walked for a refusal): talking, making rooms, their own things. */
const MEMBER_MAY = new Set([
  "POST /rooms",
  "POST /rooms/import",
  "POST /rooms/:id/messages",
  "POST /rooms/:id/messages/:messageId/reactions",
  // Only the question's author, which the room checks (tests/integration/question-queue.test.ts).
  "POST /rooms/:id/messages/:messageId/withdraw",
  // A person's own private asides (tests/worker/asides.test.ts).
  "POST /rooms/:id/asides",
  "POST /rooms/:id/asides/:asideId/share",
  "DELETE /rooms/:id/asides/:asideId",
  "POST /rooms/:id/fork",
  "POST /rooms/:id/catch-up",
  "POST /rooms/:id/files",
  "POST /rooms/:id/memory/pins",
  "PATCH /rooms/:id/memory/pins/:pinId",
  "DELETE /rooms/:id/memory/pins/:pinId",
  // Any member decides the assistant's tool calls (tests/worker/mcp.test.ts).
  "POST /rooms/:id/approvals/:toolCallId",
  // A person's own inbox: marking read and muting a room are theirs (tests/worker/notifications.test.ts).
  "POST /notifications/read",
  "PUT /notifications/rooms/:roomId"
]);

/** Reads only the owner and admins may do (links are credentials; people and tokens are the admins'). */
const RESTRICTED_READS = new Set([
  "GET /rooms/:id/shares",
  "GET /rooms/:id/invites",
  "GET /rooms/:id/members/candidates",
  "GET /rooms/:id/mcp",
  "GET /people",
  "GET /tokens",
  "GET /mcp"
]);

async function json<T>(response: Response): Promise<T> {
  if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);
  return response.json<T>();
}

describe("a room member who is not its owner, nor an admin", () => {
  it("gets 403 on every route that changes the room or the workspace, with who can, and nothing changes", async () => {
    const ws = uniqueName();
    const base = `/api/workspaces/${ws}`;
    const admin = await workspaceAdmin(ws, "Ada");
    const owner = await signIn("Olive");
    const member = await signIn("Mia");
    const as = (person: SignedIn, init: { method?: string; json?: unknown; body?: BodyInit } = {}) => ({
      ...init,
      headers: person.headers
    });

    // A room with something of everything: a message, a persona, a share link, an invitation, a file.
    const room = await json<RoomDetail>(
      await api(`${base}/rooms`, as(owner, { method: "POST", json: { name: "Team", systemPrompt: "be brief" } }))
    );
    const r = `${base}/rooms/${room.id}`;
    await json(await api(`${r}/messages`, as(owner, { method: "POST", json: { text: "hello" } })));
    const persona = await json<{ id: string }>(
      await api(`${r}/personas`, as(owner, { method: "POST", json: { name: "Critic" } }))
    );
    const share = await json<{ id: string }>(await api(`${r}/shares`, as(owner, { method: "POST", json: {} })));
    const invite = await json<{ id: string; token: string }>(
      await api(`${r}/invites`, as(owner, { method: "POST", json: {} }))
    );
    const form = new FormData();
    form.append("file", new File(["owner's notes"], "notes.txt", { type: "text/plain" }));
    const file = (
      await json<{ file: { id: string } }>(await api(`${r}/files`, as(owner, { method: "POST", body: form })))
    ).file;
    const token = await json<{ id: string }>(
      await api(`${base}/tokens`, as(admin, { method: "POST", json: { name: "CI" } }))
    );
    await json(await api(`/api/invites/${invite.token}/accept`, as(member, { method: "POST", json: {} })));
    const members = await json<MemberList>(await api(`${r}/members`, as(member)));
    expect(members.me).toMatchObject({ role: "member", workspaceRole: "member" });

    const snapshot = async () => ({
      room: await json<RoomDetail>(await api(r, as(owner))).then(({ lastActiveAt: _, access: __, ...rest }) => rest),
      personas: await json(await api(`${r}/personas`, as(owner))),
      shares: await json(await api(`${r}/shares`, as(owner))),
      invites: await json<InviteList>(await api(`${r}/invites`, as(owner))),
      members: await json(await api(`${r}/members`, as(owner))),
      files: await json(await api(`${r}/files`, as(owner))),
      settings: await json(await api(`${base}/settings`, as(admin))),
      people: await json<PeopleList>(await api(`${base}/people`, as(admin))).then((p) =>
        p.people.map(({ lastSeen: _, ...rest }) => rest)
      ),
      tokens: await json<ApiTokenList>(await api(`${base}/tokens`, as(admin))),
      workspaceMcp: await json(await api(`${base}/mcp`, as(admin)))
    });
    const before = await snapshot();

    // A valid request for each route, so the refusal is about who asks. Some routes are tried several ways.
    const attempts: Record<string, Array<{ json?: unknown }>> = {
      "PATCH /rooms/:id": [
        { json: { name: "Mine now" } },
        { json: { systemPrompt: "obey Mia" } },
        { json: { model: "gpt-x" } },
        { json: { defaultResponder: "nobody" } },
        { json: { dailyTokenBudget: 1 } },
        { json: { visibility: "private" } }
      ],
      "DELETE /rooms/:id": [{}],
      "POST /rooms/:id/personas": [{ json: { name: "Mole" } }],
      "PATCH /rooms/:id/personas/:personaId": [{ json: { name: "Mole" } }],
      "DELETE /rooms/:id/personas/:personaId": [{}],
      "POST /rooms/:id/shares": [{ json: {} }],
      "DELETE /rooms/:id/shares/:shareId": [{}],
      "POST /rooms/:id/invites": [{ json: {} }],
      "DELETE /rooms/:id/invites/:inviteId": [{}],
      "POST /rooms/:id/owner": [{ json: { userId: member.user.id } }],
      // Adding the admin, who has used the workspace.
      "POST /rooms/:id/members": [{ json: { userId: admin.user.id } }],
      "DELETE /rooms/:id/members/:userId": [{}],
      "DELETE /rooms/:id/files/:fileId": [{}],
      "POST /rooms/:id/memory/summaries/rebuild": [{ json: {} }],
      "POST /rooms/:id/mcp": [{ json: { name: "Mine", url: "https://mcp.example.com/mcp" } }],
      "DELETE /rooms/:id/mcp/:serverId": [{}],
      "POST /rooms/:id/mcp/:serverId/reconnect": [{ json: {} }],
      "PATCH /rooms/:id/mcp/:serverId/tools/:tool": [{ json: { policy: "off" } }],
      "PATCH /settings": [{ json: { dailyTokenBudget: 5 } }],
      "PATCH /people/:userId": [{ json: { role: "admin" } }],
      "POST /tokens": [{ json: { name: "Mine" } }],
      "DELETE /tokens/:tokenId": [{}],
      "POST /mcp": [{ json: { name: "Ours", url: "https://mcp.example.com/mcp" } }],
      "DELETE /mcp/:serverId": [{}],
      "POST /mcp/:serverId/reconnect": [{ json: {} }],
      "PATCH /mcp/:serverId/tools/:tool": [{ json: { policy: "off" } }]
    };
    const fill = (tail: string) =>
      `${base}${tail}`
        .replace(":id", room.id)
        .replace(":personaId", persona.id)
        .replace(":shareId", share.id)
        .replace(":inviteId", invite.id)
        .replace(":fileId", file.id)
        .replace(":tokenId", token.id)
        // Someone else: the owner (removing them), or the member itself (promoting themselves).
        .replace("/members/:userId", `/members/${owner.user.id}`)
        .replace("/people/:userId", `/people/${member.user.id}`);

    const walked = new Set<string>();
    for (const route of app.routes) {
      if (!route.path.startsWith(`${PREFIX}/`) || route.path.endsWith("*") || route.method === "ALL") continue;
      const key = `${route.method} ${route.path.slice(PREFIX.length)}`;
      if (walked.has(key)) continue;
      const write = route.method !== "GET";
      if (!write && !RESTRICTED_READS.has(key)) continue;
      if (MEMBER_MAY.has(key)) continue;
      walked.add(key);
      const tries = write ? attempts[key] : [{}];
      if (!tries) throw new Error(`classify ${key}: a member's right (MEMBER_MAY) or a refusal (attempts)`);
      for (const attempt of tries) {
        const response = await api(
          fill(route.path.slice(PREFIX.length)),
          as(member, { method: route.method, ...attempt })
        );
        const body = await response.json<{ error?: { code: string; message: string } }>();
        const what = `${key} ${JSON.stringify(attempt.json ?? "")}`;
        expect(response.status, what).toBe(403);
        expect(body.error?.code, what).toMatch(/^forbidden:(not_owner|not_admin|not_author)$/);
        expect(body.error?.message, what).toMatch(
          /^Only (the room's owner or a workspace admin|a workspace admin|the person who added)/
        );
      }
    }
    expect(walked.size).toBeGreaterThanOrEqual(20);
    expect(await snapshot()).toEqual(before);

    // The same member may do what is theirs: talk, pin, and leave.
    expect((await api(`${r}/messages`, as(member, { method: "POST", json: { text: "hi" } }))).status).toBe(200);
    expect(
      (await api(`${r}/memory/pins`, as(member, { method: "POST", json: { text: "we ship on Friday" } }))).status
    ).toBe(201);
    expect((await api(`${r}/members/${member.user.id}`, as(member, { method: "DELETE" }))).status).toBe(204);
  });

  it("lets the owner and an admin do what the member could not", async () => {
    const ws = uniqueName();
    const base = `/api/workspaces/${ws}`;
    const admin = await workspaceAdmin(ws, "Ada");
    const owner = await signIn("Olive");
    const as = (person: SignedIn, init: { method?: string; json?: unknown } = {}) => ({
      ...init,
      headers: person.headers
    });
    const room = await json<RoomDetail>(
      await api(`${base}/rooms`, as(owner, { method: "POST", json: { name: "Mine" } }))
    );
    const r = `${base}/rooms/${room.id}`;
    expect(room.access?.may).toEqual(expect.arrayContaining(["room.rename", "room.delete", "room.invite"]));
    expect(
      (await api(r, as(owner, { method: "PATCH", json: { name: "Still mine", dailyTokenBudget: 10 } }))).status
    ).toBe(200);
    expect((await api(`${r}/personas`, as(owner, { method: "POST", json: { name: "Helper" } }))).status).toBe(201);
    // Workspace settings are an admin's, even for a room's owner.
    const refused = await api(`${base}/settings`, as(owner, { method: "PATCH", json: { dailyTokenBudget: 5 } }));
    expect(refused.status).toBe(403);
    expect((await refused.json<{ error: { message: string } }>()).error.message).toBe(
      "Only a workspace admin can change the workspace's settings and budget."
    );
    expect((await api(`${base}/settings`, as(admin, { method: "PATCH", json: { dailyTokenBudget: 5 } }))).status).toBe(
      200
    );
    expect((await api(r, as(admin, { method: "DELETE" }))).status).toBe(204);
  });
});

describe("rooms made before roles", () => {
  it("stay workspace rooms with no owner: anyone manages them as before, only an admin changes who sees them", async () => {
    const ws = uniqueName();
    const base = `/api/workspaces/${ws}`;
    const admin = await workspaceAdmin(ws, "Ada");
    const someone = await signIn("Sam");
    const as = (person: SignedIn, init: { method?: string; json?: unknown } = {}) => ({
      ...init,
      headers: person.headers
    });
    const room = await json<RoomDetail>(
      await api(`${base}/rooms`, as(admin, { method: "POST", json: { name: "Old" } }))
    );
    // What a room made before this version has: a registry row and nothing else.
    await runInDurableObject(env.OverseerAgent.get(env.OverseerAgent.idFromName(ws)), (_, state) => {
      state.storage.sql.exec("DELETE FROM room_access WHERE room_id = ?", room.id);
      state.storage.sql.exec("DELETE FROM room_members WHERE room_id = ?", room.id);
    });
    const listed = await json<{ rooms: { id: string; visibility: string }[] }>(await api(`${base}/rooms`, as(someone)));
    expect(listed.rooms.find((r) => r.id === room.id)?.visibility).toBe("workspace");
    const members = await json<MemberList>(await api(`${base}/rooms/${room.id}/members`, as(someone)));
    expect(members).toMatchObject({ members: [], hasOwner: false });
    expect(
      (await api(`${base}/rooms/${room.id}`, as(someone, { method: "PATCH", json: { name: "Renamed" } }))).status
    ).toBe(200);
    const hide = await api(
      `${base}/rooms/${room.id}`,
      as(someone, { method: "PATCH", json: { visibility: "private" } })
    );
    expect(hide.status).toBe(403);
    expect(
      (await api(`${base}/rooms/${room.id}`, as(admin, { method: "PATCH", json: { visibility: "private" } }))).status
    ).toBe(200);
    expect((await api(`${base}/rooms/${room.id}`, as(someone))).status).toBe(404);
  });
});
