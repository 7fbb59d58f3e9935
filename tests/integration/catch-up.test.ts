/**
 * Catch me up over the real dev server and the fake provider: what a
 * person has not read (by their read mark, or from the first message their
 * page showed as new) is summed up for them by the room's model, with a
 * link to each message, and nothing is written to the room.
 */
import { describe, expect, it } from "vitest";
import type { CatchUp } from "@/shared/catch-up";
import { restClient, signIn } from "../support/rest-client";
import { useSharedApp } from "../support/shared-app";
import { uniqueName } from "../support/wait";

const app = useSharedApp();

describe("catch me up", () => {
  it("sums up what you have not read, for you alone, with links to the messages", async () => {
    const room = await app.api.createRoom();
    const first = uniqueName("plan");
    const second = uniqueName("budget");
    expect((await app.api.send(room.id, `${first} ship on Friday`)).status).toBe(200);
    const sent = await app.api.send(room.id, `${second} stays at 10k`);
    expect(sent.status).toBe(200);
    const before = (await app.api.messages(room.id)).messages;
    expect(before).toHaveLength(4);

    const bob = await signIn(app.url, uniqueName("Bob"));
    const asBob = restClient(app.url, { workspace: app.workspace, as: bob });
    // Bob never read the room: all four messages are his to catch up on.
    const all = await asBob.call(`/${room.id}/catch-up`, { method: "POST", json: {} });
    expect(all.status).toBe(200);
    const caught = (await all.json()) as CatchUp;
    expect(caught.summary).toMatch(/^Fake summary of/);
    expect(caught.summary).toContain(first);
    expect(caught.messages.map((m) => m.id)).toEqual(before.map((m) => m.id));
    expect(caught.messages[0]).toMatchObject({ author: "API", preview: `${first} ship on Friday` });
    expect(caught.partial).toBe(false);
    const request = await app.fake.waitForRequest(first, (r) => r.summary === true);
    expect(request.lastUserText).toContain(second);

    // From the first message his page showed as new: only what follows it.
    const from = await asBob.call(`/${room.id}/catch-up`, { method: "POST", json: { from: sent.body.userMessage.id } });
    const later = (await from.json()) as CatchUp;
    expect(later.messages.map((m) => m.id)).toEqual(before.slice(2).map((m) => m.id));
    expect(later.summary).not.toContain(first);

    // Nothing was written to the room.
    expect((await app.api.messages(room.id)).messages).toHaveLength(4);

    const bad = await asBob.call(`/${room.id}/catch-up`, { method: "POST", json: { from: 7 } });
    expect(bad.status).toBe(400);
    const unknown = await asBob.call("/nope/catch-up", { method: "POST", json: {} });
    expect(unknown.status).toBe(404);
  });
});
