import { describe, expect, it, vi } from "vitest";
import { firstPage, OpenedPage, openedPageRegistry, openedPages } from "../../src/client/lib/opened-page";
import type { MessagePage } from "../../src/shared/protocol";

const page = (id: string): MessagePage => ({
  messages: [{ id, role: "user", parts: [{ type: "text", text: id }] }] as MessagePage["messages"],
  nextCursor: null
});

describe("the socket's opening page", () => {
  it("is given to the first read, whether it came before or after the read asked", async () => {
    const early = new OpenedPage();
    early.arrived(page("a"));
    expect(await early.take()).toEqual(page("a"));

    const late = new OpenedPage();
    const taking = late.take();
    late.arrived(page("b"));
    late.arrived(page("c")); // a reconnect's frame changes nothing
    expect(await taking).toEqual(page("b"));
  });

  it("is taken once: a later read goes to REST", async () => {
    const opened = new OpenedPage();
    opened.arrived(page("a"));
    await opened.take();
    expect(await opened.take()).toBeNull();
  });

  it("gives way to REST when the socket closes first or the wait runs out", async () => {
    const closed = new OpenedPage();
    const taking = closed.take();
    closed.failed();
    closed.arrived(page("too late"));
    expect(await taking).toBeNull();

    vi.useFakeTimers();
    try {
      const slow = new OpenedPage();
      const waiting = slow.take(5_000);
      await vi.advanceTimersByTimeAsync(5_000);
      expect(await waiting).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("the opening pages of a tab's rooms", () => {
  it("meet by room, whichever render's socket brought the page, and start afresh once the room is left", async () => {
    const taking = openedPages.take("room-a");
    openedPages.arrived("room-b", page("b"));
    openedPages.arrived("room-a", page("a"));
    expect(await taking).toEqual(page("a"));
    expect(await openedPages.take("room-b")).toEqual(page("b"));

    openedPages.forget("room-a");
    openedPages.arrived("room-a", page("a again"));
    expect(await openedPages.take("room-a")).toEqual(page("a again"));
  });

  it("drops what an earlier visit left: a frame that came after the room was left is not shown later", async () => {
    let clock = 0;
    const registry = openedPageRegistry(() => clock);
    registry.forget("room-a");
    registry.arrived("room-a", page("late frame of the last visit"));
    clock = 10_000;
    const taking = registry.take("room-a");
    registry.arrived("room-a", page("this visit"));
    expect(await taking).toEqual(page("this visit"));
  });
});

describe("the first page to arrive", () => {
  const later = <T>(value: T, ms: number) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));
  const failing = (ms: number) =>
    new Promise<MessagePage>((_, reject) => setTimeout(() => reject(new Error("REST failed")), ms));

  it("is the socket's or REST's, whichever comes first", async () => {
    expect(await firstPage(later(page("socket"), 5), later(page("rest"), 50))).toEqual(page("socket"));
    expect(await firstPage(later(page("socket"), 50), later(page("rest"), 5))).toEqual(page("rest"));
  });

  it("waits for REST when the socket's will not come, and for the socket when REST fails", async () => {
    expect(await firstPage(later(null, 5), later(page("rest"), 50))).toEqual(page("rest"));
    expect(await firstPage(later(page("socket"), 50), failing(5))).toEqual(page("socket"));
  });

  it("fails with REST's error when neither comes", async () => {
    await expect(firstPage(later(null, 5), failing(20))).rejects.toThrow("REST failed");
    await expect(firstPage(later(null, 20), failing(5))).rejects.toThrow("REST failed");
  });
});
