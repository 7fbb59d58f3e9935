/**
 * Named API tokens and workspace roles, through the real Worker: each token
 * is its own identity in its own workspace, stored hashed, shown once,
 * never more powerful than its creator; ACCESS_TOKEN stays the bootstrap
 * admin; ADMINS names admins by id; a workspace always keeps an admin.
 */
import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import app from "@/server/index";
import type { ApiTokenList, CreatedApiToken, PeopleList, WorkspaceAccess } from "@/shared/members";
import type { RoomDetail } from "@/shared/protocol";
import { api, BASE, history, type SignedIn, signIn, uniqueName, workspaceAdmin } from "./helpers";

/** Each test's own address, so wrong tokens here throttle no one else. */
const address = () => `203.0.113.${Math.floor(Math.random() * 250) + 1}`;

const bearer = (token: string, ip = address()) => ({ authorization: `Bearer ${token}`, "cf-connecting-ip": ip });

async function makeToken(ws: string, by: SignedIn, body: Record<string, unknown>): Promise<CreatedApiToken> {
  const response = await api(`/api/workspaces/${ws}/tokens`, { method: "POST", json: body, headers: by.headers });
  expect(response.status, await response.clone().text()).toBe(201);
  return response.json<CreatedApiToken>();
}

async function me(ws: string, headers: Record<string, string>): Promise<Response> {
  return api(`/api/workspaces/${ws}/me`, { headers });
}

/** The Worker with other variables (the agents keep the test config's). */
async function callWith(vars: Record<string, string>, path: string, init: RequestInit = {}) {
  const ctx = createExecutionContext();
  const response = await app.fetch(new Request(`${BASE}${path}`, init), { ...env, ...vars }, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

describe("named API tokens", () => {
  it("are shown once, stored hashed, and each acts as its own identity", async () => {
    const ws = uniqueName();
    const admin = await workspaceAdmin(ws);
    const ci = await makeToken(ws, admin, { name: "CI bot" });
    const other = await makeToken(ws, admin, { name: "Importer" });
    expect(ci.token).toMatch(new RegExp(`^rt\\.${ws}\\.[A-Za-z0-9_-]{12}\\.[A-Za-z0-9_-]{32}$`));
    expect(ci).toMatchObject({ name: "CI bot", role: "member", identityId: `token:${ci.id}`, lastUsedAt: null });

    // Listed without the secret; the overseer holds only a hash.
    const listed = await (await api(`/api/workspaces/${ws}/tokens`, { headers: admin.headers })).json<ApiTokenList>();
    expect(listed.tokens.map((t) => t.name).sort()).toEqual(["CI bot", "Importer"]);
    expect(JSON.stringify(listed)).not.toContain(ci.token.split(".")[3]);
    const stored = await runInDurableObject(env.OverseerAgent.get(env.OverseerAgent.idFromName(ws)), (_, state) =>
      state.storage.sql.exec("SELECT * FROM api_tokens").toArray()
    );
    expect(stored).toHaveLength(2);
    expect(JSON.stringify(stored)).not.toContain(ci.token.split(".")[3]);
    expect(JSON.stringify(stored)).toMatch(/[0-9a-f]{64}/);

    const whoami = await (await me(ws, bearer(ci.token))).json<WorkspaceAccess>();
    expect(whoami).toMatchObject({ user: { id: `token:${ci.id}`, name: "CI bot", kind: "api" }, role: "member" });

    // Two scripts are two authors: neither's messages are the other's.
    const room = await (
      await api(`/api/workspaces/${ws}/rooms`, { method: "POST", json: { name: "Scripts" }, headers: bearer(ci.token) })
    ).json<RoomDetail>();
    for (const token of [ci.token, other.token]) {
      const sent = await api(`/api/workspaces/${ws}/rooms/${room.id}/messages`, {
        method: "POST",
        json: { text: "from a script" },
        headers: bearer(token)
      });
      expect(sent.status).toBe(200);
    }
    const authors = (await history(ws, room.id)).filter((m) => m.role === "user").map((m) => m.metadata.author);
    expect(authors).toEqual([
      { id: `token:${ci.id}`, name: "CI bot" },
      { id: `token:${other.id}`, name: "Importer" }
    ]);
    // The token made the room: it owns it.
    expect(room.access?.role).toBe("owner");
    const used = await (await api(`/api/workspaces/${ws}/tokens`, { headers: admin.headers })).json<ApiTokenList>();
    expect(used.tokens.find((t) => t.id === ci.id)?.lastUsedAt).toEqual(expect.any(Number));
  });

  it("act in their own workspace only, with their role, never more than their creator has now", async () => {
    const ws = uniqueName();
    const admin = await workspaceAdmin(ws);
    const member = await signIn("Mia");
    await me(ws, member.headers);
    const token = await makeToken(ws, admin, { name: "Ops", role: "admin" });
    const settings = (t: string, budget: number) =>
      api(`/api/workspaces/${ws}/settings`, {
        method: "PATCH",
        json: { dailyTokenBudget: budget },
        headers: bearer(t)
      });
    expect((await settings(token.token, 7)).status).toBe(200);

    const elsewhere = await me(uniqueName(), bearer(token.token));
    expect(elsewhere.status).toBe(403);
    expect((await elsewhere.json<{ error: { code: string } }>()).error.code).toBe("forbidden:token_workspace");

    // A member may not make tokens at all.
    const refused = await api(`/api/workspaces/${ws}/tokens`, {
      method: "POST",
      json: { name: "x" },
      headers: member.headers
    });
    expect(refused.status).toBe(403);

    // Its creator demoted, an admin token is a member's.
    const second = await signIn("Sol");
    await me(ws, second.headers);
    const promote = (who: SignedIn, role: string, by: SignedIn) =>
      api(`/api/workspaces/${ws}/people/${who.user.id}`, { method: "PATCH", json: { role }, headers: by.headers });
    expect((await promote(second, "admin", admin)).status).toBe(200);
    const solToken = await makeToken(ws, second, { name: "Sol's", role: "admin" });
    expect((await (await me(ws, bearer(solToken.token))).json<WorkspaceAccess>()).role).toBe("admin");
    expect((await promote(second, "member", admin)).status).toBe(200);
    expect((await (await me(ws, bearer(solToken.token))).json<WorkspaceAccess>()).role).toBe("member");
    expect((await settings(solToken.token, 9)).status).toBe(403);
  });

  it("stop working the moment they are revoked; wrong ones are 401", async () => {
    const ws = uniqueName();
    const admin = await workspaceAdmin(ws);
    const token = await makeToken(ws, admin, { name: "Short-lived" });
    const ip = address();
    expect((await me(ws, bearer(token.token, ip))).status).toBe(200);
    const revoked = await api(`/api/workspaces/${ws}/tokens/${token.id}`, { method: "DELETE", headers: admin.headers });
    expect(revoked.status).toBe(204);
    const after = await me(ws, bearer(token.token, ip));
    expect(after.status).toBe(401);
    expect((await after.json<{ error: { code: string } }>()).error.code).toBe("unauthorized:token");
    const [prefix, w, id] = token.token.split(".");
    const wrong = await me(ws, bearer(`${prefix}.${w}.${id}.${"x".repeat(32)}`, address()));
    expect(wrong.status).toBe(401);
    expect(
      (await api(`/api/workspaces/${ws}/tokens/${token.id}`, { method: "DELETE", headers: admin.headers })).status
    ).toBe(404);
  });
});

describe("workspace roles", () => {
  it("the first person is the admin, later ones are members, and the last admin stays", async () => {
    const ws = uniqueName();
    const admin = await workspaceAdmin(ws, "First");
    const later = await signIn("Later");
    expect((await (await me(ws, later.headers)).json<WorkspaceAccess>()).role).toBe("member");
    const people = await (await api(`/api/workspaces/${ws}/people`, { headers: admin.headers })).json<PeopleList>();
    expect(people.people.map((p) => [p.name, p.role])).toEqual([
      ["First", "admin"],
      ["Later", "member"]
    ]);
    const demoteSelf = await api(`/api/workspaces/${ws}/people/${admin.user.id}`, {
      method: "PATCH",
      json: { role: "member" },
      headers: admin.headers
    });
    expect(demoteSelf.status).toBe(409);
    expect((await demoteSelf.json<{ error: { code: string } }>()).error.code).toBe("conflict:last_admin");
    // The shared anonymous identity is never anyone's admin.
    expect((await (await me(ws, {})).json<WorkspaceAccess>()).role).toBe("member");
  });

  it("ACCESS_TOKEN is the bootstrap admin; ADMINS makes admins by identity id, whom no one demotes here", async () => {
    const ws = uniqueName();
    const secret = "bootstrap secret for roles";
    const boot = await callWith({ ACCESS_TOKEN: secret }, `/api/workspaces/${ws}/me`, {
      headers: { authorization: `Bearer ${secret}` }
    });
    expect(await boot.json()).toMatchObject({ user: { id: "api" }, role: "admin" });

    const first = await workspaceAdmin(ws, "First");
    const listed = await signIn("Listed");
    const asListed = await callWith({ ADMINS: `someone@example.com, ${listed.user.id}` }, `/api/workspaces/${ws}/me`, {
      headers: listed.headers
    });
    expect((await asListed.json<WorkspaceAccess>()).role).toBe("admin");
    const people = await (await api(`/api/workspaces/${ws}/people`, { headers: first.headers })).json<PeopleList>();
    expect(people.people.find((p) => p.id === listed.user.id)).toMatchObject({ role: "admin", configuredAdmin: true });
    const demote = await api(`/api/workspaces/${ws}/people/${listed.user.id}`, {
      method: "PATCH",
      json: { role: "member" },
      headers: first.headers
    });
    expect(demote.status).toBe(400);
    expect((await demote.json<{ error: { message: string } }>()).error.message).toMatch(
      /by the server's configuration/
    );
  });
});
