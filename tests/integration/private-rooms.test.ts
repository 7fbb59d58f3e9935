/**
 * A private room through the running app (vite dev, real HTTP and WebSockets)
 * with three people: the workspace's admin, the room's owner and an outsider.
 * The worker layer walks every route from the route table
 * (tests/worker/private-rooms.test.ts); this checks the same promise at the
 * app's real edge: for the outsider the room answers 404, its socket is
 * refused, and no list, search, unread count or workspace export names it,
 * while its owner and the admin read it.
 */
import { describe, expect, it } from "vitest";
import { restClient, type SignedIn, signIn } from "../support/rest-client";
import { useSharedApp } from "../support/shared-app";
import { openSocket } from "../support/socket";
import { uniqueName, waitFor } from "../support/wait";

const app = useSharedApp();

describe("a private room over the running app", () => {
  it("does not exist for an outsider anywhere, and stays readable to its owner and the admin", async () => {
    const workspacePath = `/api/workspaces/${app.workspace}`;
    const get = (person: SignedIn, path: string) =>
      fetch(`${app.url}${workspacePath}${path}`, { headers: person.headers });

    // The first person to use a new workspace is its admin.
    const admin = await signIn(app.url, "Admin");
    expect(((await (await get(admin, "/me")).json()) as { role: string }).role).toBe("admin");
    const owner = await signIn(app.url, "Olive");
    const outsider = await signIn(app.url, "Otto");
    const asOwner = restClient(app.url, { workspace: app.workspace, as: owner });
    const asOutsider = restClient(app.url, { workspace: app.workspace, as: outsider });
    const asAdmin = restClient(app.url, { workspace: app.workspace, as: admin });

    const room = await asOwner.createRoom({ visibility: "private" });
    const marker = uniqueName("secret");
    expect((await asOwner.send(room.id, `${marker} what is on the agenda?`)).status).toBe(200);

    // The owner finds it by search (so the outsider's empty search below means something).
    await waitFor(
      async () => (await get(owner, `/search?q=${marker}`)).text(),
      (body) => body.includes(room.id)
    );

    // The outsider: 404 on the room and everything under it, refusals with the unknown room's code.
    for (const path of ["", "/messages", "/export", "/members", "/files", "/memory"]) {
      const response = await asOutsider.call(`/${room.id}${path}`);
      expect(response.status, `GET ${path || "/"}`).toBe(404);
    }
    const send = await asOutsider.send(room.id, "let me in");
    expect(send.status).toBe(404);
    // Nor does it appear in the list, search, the unread marks or the workspace export.
    expect(await (await asOutsider.call("")).text()).not.toContain(room.id);
    const search = await get(outsider, `/search?q=${marker}`);
    expect(search.status).toBe(200);
    expect(await search.text()).not.toContain(room.id);
    expect(await (await get(outsider, "/status")).text()).not.toContain(room.id);

    // Its socket is refused like an unknown room's, and the room list socket never names it.
    const roomSocket = await openSocket(asOutsider.roomSocketUrl(room.id), { cookie: outsider.cookie });
    expect((await roomSocket.closed).code).toBe(4404);
    const list = await openSocket(asOutsider.listSocketUrl(), { cookie: outsider.cookie });
    const rooms = await list.next((frame) => frame.type === "rooms");
    expect(JSON.stringify(rooms)).not.toContain(room.id);
    list.close();

    // The owner and the admin read it; the admin's workspace export holds it, the outsider's cannot.
    expect(JSON.stringify((await asOwner.messages(room.id)).messages)).toContain(marker);
    expect(JSON.stringify((await asAdmin.messages(room.id)).messages)).toContain(marker);
    const adminExport = await get(admin, "/export");
    expect(adminExport.status).toBe(200);
    expect(await adminExport.text()).toContain(marker);
    const outsiderExport = await get(outsider, "/export");
    expect(await outsiderExport.text()).not.toContain(marker);
  });
});
