import { describe, expect, it } from "vitest";
import type { RoomMessage } from "@/client/lib/messages";
import { forgetWarm, mergeNewestPage, rememberRoom, settled, WARM_ROOMS, warmRoom } from "@/client/lib/warm-rooms";

const m = (id: string, text = id): RoomMessage => ({ id, role: "user", parts: [{ type: "text", text }] });
const ids = (list: readonly RoomMessage[]) => list.map((x) => x.id);

describe("warm rooms", () => {
  it("keeps the last few rooms per person, the oldest leaving first", () => {
    forgetWarm();
    for (let i = 0; i <= WARM_ROOMS; i++) rememberRoom("ann", `r${i}`, [m(`m${i}`)]);
    expect(warmRoom("ann", "r0")).toBeNull();
    expect(ids(warmRoom("ann", `r${WARM_ROOMS}`) ?? [])).toEqual([`m${WARM_ROOMS}`]);
    // Another person finds none of Ann's rooms.
    expect(warmRoom("bob", `r${WARM_ROOMS}`)).toBeNull();
    // Opening a room again makes it the newest.
    rememberRoom("ann", "r1", [m("again")]);
    rememberRoom("ann", "r9", [m("x")]);
    expect(warmRoom("ann", "r1")).not.toBeNull();
    expect(warmRoom("ann", "r2")).toBeNull();
  });

  it("forgets one room, or everything on sign-out; an empty room is not kept", () => {
    forgetWarm();
    rememberRoom("ann", "a", [m("1")]);
    rememberRoom("bob", "a", [m("1")]);
    rememberRoom("ann", "b", [m("2")]);
    rememberRoom("ann", "empty", []);
    expect(warmRoom("ann", "empty")).toBeNull();
    forgetWarm("a");
    expect([warmRoom("ann", "a"), warmRoom("bob", "a")]).toEqual([null, null]);
    expect(warmRoom("ann", "b")).not.toBeNull();
    forgetWarm();
    expect(warmRoom("ann", "b")).toBeNull();
  });

  it("is read by React's use() at once: the promise says it is fulfilled", async () => {
    const promise = settled([m("1")]) as Promise<RoomMessage[]> & { status?: string; value?: RoomMessage[] };
    expect(promise.status).toBe("fulfilled");
    expect(ids(promise.value ?? [])).toEqual(["1"]);
    expect(ids(await promise)).toEqual(["1"]);
  });
});

describe("mergeNewestPage", () => {
  it("replaces what the page covers, keeps older messages in front and newer live ones after", () => {
    const held = [m("1"), m("2"), m("3", "old text"), m("live")];
    const page = [m("2"), m("3", "edited"), m("4")];
    const merged = mergeNewestPage(held, page);
    expect(ids(merged)).toEqual(["1", "2", "3", "4", "live"]);
    expect(merged[2].parts).toEqual([{ type: "text", text: "edited" }]);
  });

  it("takes the page alone when more was written meanwhile than it holds", () => {
    expect(ids(mergeNewestPage([m("1"), m("2")], [m("7"), m("8")]))).toEqual(["7", "8"]);
  });

  it("keeps the copy when the page is empty, and drops a message the page no longer has", () => {
    expect(ids(mergeNewestPage([m("1")], []))).toEqual(["1"]);
    expect(ids(mergeNewestPage([m("1"), m("gone"), m("2")], [m("1"), m("2")]))).toEqual(["1", "2"]);
  });
});
