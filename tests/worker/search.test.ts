import { afterEach, describe, expect, it, vi } from "vitest";
import { SEARCH_CONCURRENCY } from "@/server/domain/search/search-ranking";
import { ChatRoom } from "@/server/index";
import { RATE_LIMITS } from "@/shared/constants";
import type { ErrorBody } from "@/shared/errors";
import { api, createRoom, uniqueName } from "./helpers";

const send = async (ws: string, roomId: string, text: string) => {
  const response = await api(`/api/workspaces/${ws}/rooms/${roomId}/messages`, { method: "POST", json: { text } });
  expect(response.status).toBe(200);
  return (await response.json<any>()).userMessage.id as string;
};
const search = (ws: string, query: string) => api(`/api/workspaces/${ws}/search?${query}`);
const marked = (r: { snippet: string; marks: [number, number][] }) => r.marks.map(([s, e]) => r.snippet.slice(s, e));

afterEach(() => {
  vi.restoreAllMocks();
});

describe("search across rooms", () => {
  it("finds messages in every room, best match first, with marked snippets and who wrote them", async () => {
    const ws = uniqueName();
    const ops = await createRoom(ws, { name: "Ops" });
    const lunch = await createRoom(ws, { name: "Lunch" });
    await createRoom(ws, { name: "Empty" });
    const dense = await send(ws, ops.id, "Zebrafish zebrafish incident: the zebrafish pipeline failed");
    const sparse = await send(
      ws,
      lunch.id,
      `Somebody mentioned a zebrafish once, ${"while we talked about sandwiches and soup and bread, ".repeat(6)}`
    );

    const response = await search(ws, "q=zebrafish&limit=10");
    expect(response.status).toBe(200);
    const body = await response.json<any>();
    expect(body.partial).toBe(false);
    expect(body.roomsSearched).toBe(3);
    const userHits = body.results.filter((r: any) => r.role === "user");
    expect(userHits.map((r: any) => r.messageId)).toEqual([dense, sparse]);
    const top = userHits[0];
    expect(top).toMatchObject({ roomId: ops.id, roomName: "Ops", author: "API", role: "user" });
    expect(typeof top.createdAt).toBe("number");
    expect(marked(top)).toEqual(["Zebrafish", "zebrafish", "zebrafish"]);
    expect(top.snippet).not.toContain("<");
    // Scores are what the order is built on.
    const scores = body.results.map((r: any) => r.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  it("searches one room only when asked (find in room), and answers 404 for a room that is not there", async () => {
    const ws = uniqueName();
    const here = await createRoom(ws, { name: "Here" });
    const there = await createRoom(ws, { name: "There" });
    const mine = await send(ws, here.id, "the wombat plan");
    await send(ws, there.id, "another wombat plan");

    const body = await (await search(ws, `q=wombat&room=${here.id}`)).json<any>();
    expect(body.roomsSearched).toBe(1);
    expect(body.results.length).toBeGreaterThan(0);
    expect(new Set(body.results.map((r: any) => r.roomId))).toEqual(new Set([here.id]));
    expect(body.results.map((r: any) => r.messageId)).toContain(mine);

    const missing = await search(ws, "q=wombat&room=no-such-room");
    expect(missing.status).toBe(404);
    expect((await missing.json<any>()).error.code).toBe("not_found:room");
    expect((await search(ws, "q=wombat&room=")).status).toBe(400);
  });

  it("honours the limit and answers an empty list when nothing matches", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    await send(ws, room.id, "quokka one");
    await send(ws, room.id, "quokka two");
    const limited = await (await search(ws, "q=quokka&limit=1")).json<any>();
    expect(limited.results).toHaveLength(1);
    const none = await (await search(ws, "q=nonexistentword")).json<any>();
    expect(none).toMatchObject({ results: [], partial: false });
  });

  it("refuses a missing, empty, punctuation-only or oversized query and a bad limit with 400", async () => {
    const ws = uniqueName();
    for (const query of ["", "q=", "q=%20%20", "q=%3F%21", `q=${"a".repeat(201)}`, "q=x&limit=0", "q=x&limit=abc"]) {
      const response = await search(ws, query);
      expect(response.status, query).toBe(400);
      expect((await response.json<any>()).error.code).toBe("bad_request:query");
    }
  });

  it("also answers at /api/search for the default workspace", async () => {
    const response = await api("/api/search?q=anything");
    expect(response.status).toBe(200);
    expect(await response.json<any>()).toMatchObject({ partial: false });
  });

  it("answers by the deadline with partial: true, naming a room that is too slow", async () => {
    const ws = uniqueName();
    const fast = await createRoom(ws, { name: "Fast" });
    const slow = await createRoom(ws, { name: "Slow" });
    await send(ws, fast.id, "okapi sighting");
    await send(ws, slow.id, "okapi in the slow room");
    // Test-only slowness: this room's search never answers.
    const original = ChatRoom.prototype.searchMessages;
    vi.spyOn(ChatRoom.prototype, "searchMessages").mockImplementation(function (this: ChatRoom, q, limit) {
      if (this.name === slow.id) return new Promise(() => {});
      return original.call(this, q, limit);
    });
    const t0 = Date.now();
    const body = await (await search(ws, "q=okapi")).json<any>();
    expect(Date.now() - t0).toBeLessThan(20_000);
    expect(body.partial).toBe(true);
    expect(body.missingRooms).toEqual([{ roomId: slow.id, roomName: "Slow" }]);
    expect(body.results.length).toBeGreaterThan(0);
    expect(body.results.every((r: any) => r.roomId === fast.id)).toBe(true);
    expect(body.missingCount).toBe(1);

    // "Search the rest": once the slow room answers, asking only the missing rooms completes the search.
    vi.restoreAllMocks();
    const rest = await (await search(ws, `q=okapi&rooms=${slow.id},no-such-room`)).json<any>();
    expect(rest).toMatchObject({ partial: false, roomsSearched: 1, missingCount: 0, missingRooms: [] });
    expect(rest.results.length).toBeGreaterThan(0);
    expect(rest.results.every((r: any) => r.roomId === slow.id)).toBe(true);
  });

  it("throttles each person's searches: a burst, then a steady rate, answered 429 with Retry-After", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    await send(ws, room.id, "tapir tracks");
    // Anonymous callers are told apart by address.
    const from = (address: string) =>
      api(`/api/workspaces/${ws}/search?q=tapir`, { headers: { "cf-connecting-ip": address } });
    const { burst, perMinute } = RATE_LIMITS.restSearch;
    const statuses: number[] = [];
    let limited: Response | undefined;
    const started = Date.now();
    // Until the first refusal: on a slow machine the bucket refills while the burst is spent.
    for (let i = 0; i < burst * 2 && !limited; i++) {
      const response = await from("203.0.113.60");
      statuses.push(response.status);
      if (response.status === 429) limited = response;
    }
    const refills = Math.ceil(((Date.now() - started) / 60_000) * perMinute);
    const answered = statuses.filter((s) => s === 200).length;
    expect(answered).toBeGreaterThanOrEqual(burst);
    expect(answered).toBeLessThanOrEqual(burst + refills);
    expect(limited).toBeDefined();
    expect(Number(limited!.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await limited!.json<ErrorBody>()).error.code).toBe("rate_limited:requests");
    // Someone else searches on.
    expect((await from("203.0.113.61")).status).toBe(200);
  });

  it("refuses a rooms list that is not room ids", async () => {
    const ws = uniqueName();
    for (const rooms of [",", "a b", "x".repeat(65)]) {
      const response = await search(ws, `q=okapi&rooms=${encodeURIComponent(rooms)}`);
      expect(response.status, rooms).toBe(400);
      expect((await response.json<any>()).error.message, rooms).toContain("rooms must");
    }
  });
});

describe("search across many rooms, cut short by the deadline", () => {
  it("asks the most recently active rooms first and never wakes an empty one", async () => {
    const ws = uniqueName();
    // One room more than a wave of asks, plus three: the overseer asks
    // SEARCH_CONCURRENCY rooms at once, and the rest only as answers come in.
    const rooms: string[] = [];
    for (let i = 0; i < SEARCH_CONCURRENCY + 4; i++) {
      const room = await createRoom(ws, { name: `R${i}` });
      await send(ws, room.id, `gecko note ${i}`);
      rooms.push(room.id);
    }
    // Made last, so among the most recent (in the first wave of asks), but it holds no messages.
    const empty = await createRoom(ws, { name: "Empty" });
    const byRecency = [...rooms].reverse();
    // Activity reports reach the registry asynchronously: wait until its order is the sends' order.
    const listed = async () =>
      ((await (await api(`/api/workspaces/${ws}/rooms`)).json<any>()).rooms as any[]).map((r: any) => r.id as string);
    await expect
      .poll(async () => (await listed()).filter((id) => id !== empty.id), { timeout: 30_000 })
      .toEqual(byRecency);
    expect((await listed()).indexOf(empty.id)).toBeLessThan(2);

    // Too slow for all: the first wave answers, every later ask never does.
    const mine = new Set([...rooms, empty.id]);
    const asked: string[] = [];
    const original = ChatRoom.prototype.searchMessages;
    vi.spyOn(ChatRoom.prototype, "searchMessages").mockImplementation(function (this: ChatRoom, q, limit) {
      if (!mine.has(this.name)) return original.call(this, q, limit);
      asked.push(this.name);
      if (asked.length > SEARCH_CONCURRENCY) return new Promise(() => {});
      return original.call(this, q, limit);
    });
    const body = await (await search(ws, "q=gecko&limit=100")).json<any>();

    const answered = byRecency.slice(0, SEARCH_CONCURRENCY);
    expect(body.partial).toBe(true);
    expect(body.roomsSearched).toBe(rooms.length + 1);
    expect(new Set(body.results.map((r: any) => r.roomId))).toEqual(new Set(answered));
    // The missing ones are the oldest, listed most recent first, so "Search the rest" asks in that order too.
    expect(body.missingRooms.map((r: any) => r.roomId)).toEqual(byRecency.slice(SEARCH_CONCURRENCY));
    expect(body.missingCount).toBe(4);
    expect(asked).not.toContain(empty.id);
    expect(new Set(asked.slice(0, SEARCH_CONCURRENCY))).toEqual(new Set(answered));
  }, 120_000);

  it("searches an imported room at once, before its own activity report could have landed", async () => {
    const ws = uniqueName();
    const source = await createRoom(ws, { name: "Source" });
    await send(ws, source.id, "the axolotl file");
    const file = await (await api(`/api/workspaces/${ws}/rooms/${source.id}/export?format=json`)).text();
    const imported = await api(`/api/workspaces/${ws}/rooms/import`, {
      method: "POST",
      body: file,
      headers: { "content-type": "application/json" }
    });
    expect(imported.status).toBe(201);
    const [copy] = (await imported.json<any>()).rooms;
    const body = await (await search(ws, "q=axolotl")).json<any>();
    expect(body.partial).toBe(false);
    expect(body.results.map((r: any) => r.roomId)).toContain(copy.id);
  });
});

describe("history around a message", () => {
  it("returns the page holding a message with cursors both ways, and 404 for an unknown one", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await send(ws, room.id, `message ${i}`));
    // 12 messages: question and answer each. Ask around the 3rd question.
    const base = `/api/workspaces/${ws}/rooms/${room.id}/messages`;
    const page = await (await api(`${base}?around=${ids[2]}&limit=5`)).json<any>();
    expect(page.messages).toHaveLength(5);
    const at = page.messages.findIndex((m: any) => m.id === ids[2]);
    expect(at).toBe(2);
    expect(page.nextCursor).toBe(page.messages[0].id);
    expect(page.newerCursor).toBe(page.messages[4].id);

    const older = await (await api(`${base}?before=${page.nextCursor}&limit=50`)).json<any>();
    const newer = await (await api(`${base}?after=${page.newerCursor}&limit=50`)).json<any>();
    const all = [...older.messages, ...page.messages, ...newer.messages].map((m: any) => m.id);
    const full = await (await api(`${base}?limit=50`)).json<any>();
    expect(all).toEqual(full.messages.map((m: any) => m.id));
    expect(newer.newerCursor).toBeNull();

    const missing = await api(`${base}?around=nope`);
    expect(missing.status).toBe(404);
    expect((await missing.json<any>()).error.code).toBe("not_found:message");
    expect((await api(`${base}?around=${ids[0]}&before=${ids[1]}`)).status).toBe(400);
  });
});
