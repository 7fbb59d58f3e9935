/**
 * Rooms are shared: several people, one live conversation. Also deep links,
 * resuming a stream after a reload, and rooms disappearing under you.
 */
import { describe, expect, it } from "vitest";
import {
  composer,
  log,
  messageRows,
  messageText,
  newUser,
  rest,
  roomUrl,
  sendFromComposer,
  uniqueName,
  useAppAndBrowser,
  waitFor
} from "./helpers";

// Its last test restarts the server under everyone: a server of its own.
const setup = useAppAndBrowser({ ownServer: true, restartsServer: true });

describe("shared rooms", () => {
  it("two people see each other's messages, presence, typing and the same stream live", async () => {
    const room = await rest.createRoom(setup.app.url, { name: uniqueName("Shared") });
    const alice = await newUser(setup.browser, { displayName: "Alice" });
    const bob = await newUser(setup.browser, { displayName: "Bob" });
    await alice.page.goto(roomUrl(setup.app.url, room.id));
    await bob.page.goto(roomUrl(setup.app.url, room.id));

    // Presence: both names, on both sides.
    // (Each name arrives with its own hello frame, so wait for both.)
    for (const { page } of [alice, bob]) {
      await expect
        .poll(() => page.getByRole("button", { name: /^2 people here: / }).getAttribute("aria-label"))
        .toMatch(/^(?=.*Alice)(?=.*Bob)/);
    }

    // Typing indicator.
    await composer(bob.page).fill("I am writing someth");
    await alice.page.getByText("Bob is typing…").waitFor();
    await composer(bob.page).fill("");
    await expect.poll(() => alice.page.getByText("Bob is typing…").count()).toBe(0);

    // Alice asks; Bob watches the same answer stream in.
    await sendFromComposer(alice.page, "Count slowly for us [[fake:chunks=30,slow=150]]");
    const bobsView = messageRows(bob.page, "assistant").last();
    await messageRows(bob.page, "user").filter({ hasText: "Count slowly for us" }).getByText("Alice").waitFor();
    await bobsView.getByText(/t5 /).waitFor();
    const partial = await bobsView.textContent();
    expect(partial).not.toContain("t29");
    await expect.poll(() => bob.page.getByRole("button", { name: "Stop generating" }).count()).toBe(1);
    await bobsView.getByText(/t29/).waitFor();
    await messageRows(alice.page, "assistant").last().getByText(/t29/).waitFor();

    // Bob answers back; Alice sees it with his name.
    await expect.poll(() => bob.page.getByRole("button", { name: "Send message" }).count()).toBe(1);
    await sendFromComposer(bob.page, "Nice counting");
    await messageRows(alice.page, "user").filter({ hasText: "Nice counting" }).getByText("Bob").waitFor();
    await messageRows(alice.page, "assistant").last().getByText("Echo: Nice counting").waitFor();

    // Bob leaves: Alice is alone again.
    await bob.context.close();
    await expect.poll(() => alice.page.getByRole("button", { name: /^1 person here: Alice/ }).count()).toBe(1);
    await alice.context.close();
  });

  it("lets anyone in the room stop an answer someone else asked for", async () => {
    const room = await rest.createRoom(setup.app.url, { name: uniqueName("Shared stop") });
    const alice = await newUser(setup.browser, { displayName: "Alice" });
    const bob = await newUser(setup.browser, { displayName: "Bob" });
    await alice.page.goto(roomUrl(setup.app.url, room.id));
    await bob.page.goto(roomUrl(setup.app.url, room.id));
    await expect.poll(() => bob.page.getByRole("button", { name: /^2 people here/ }).count()).toBe(1);

    const marker = `shared-stop-${Date.now()}`;
    await sendFromComposer(alice.page, `${marker} [[fake:chunks=300,slow=100]]`);
    const request = await setup.app.fake.waitForRequest(marker);
    await messageRows(bob.page, "assistant").last().getByText(/t3 /).waitFor();
    await bob.page.getByRole("button", { name: "Stop generating" }).click();
    await setup.app.fake.waitForClientClose(request.id, 15_000);

    for (const { page } of [alice, bob]) {
      await messageRows(page, "assistant").last().getByText("Stopped").waitFor();
      await expect.poll(() => page.getByRole("button", { name: "Send message" }).count()).toBe(1);
    }
    await alice.context.close();
    await bob.context.close();
  });

  it("opens a deep link in a fresh setup.browser with the room's history", async () => {
    const name = uniqueName("Deep link");
    const room = await rest.createRoom(setup.app.url, { name });
    // A REST send without a session is the API identity's, whatever author it claims.
    await rest.send(setup.app.url, room.id, "History question", "Carol");
    const { context, page } = await newUser(setup.browser);
    await page.goto(roomUrl(setup.app.url, room.id));
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe(name);
    await messageRows(page, "user").getByText("History question").waitFor();
    await messageRows(page, "user").getByText("API", { exact: true }).first().waitFor();
    expect(await messageRows(page, "user").getByText("Carol").count()).toBe(0);
    await messageRows(page, "assistant").getByText("Echo: History question").waitFor();
    expect(await page.title()).toContain(name);
    // The room is selected in the sidebar.
    await expect
      .poll(() =>
        page
          .getByRole("navigation", { name: "Rooms" })
          .locator(`a[aria-current="page"][data-room-id="${room.id}"]`)
          .count()
      )
      .toBe(1);
    // Back and forward work: the URL is the state.
    await page.getByRole("link", { name: "Rooms" }).first().isVisible();
    await page.goto(setup.app.url);
    await page.goBack();
    await messageRows(page, "assistant").getByText("Echo: History question").waitFor();
    await context.close();
  });

  it("resumes a streaming answer after a reload and finishes it", async () => {
    const room = await rest.createRoom(setup.app.url, { name: uniqueName("Resume") });
    const { context, page } = await newUser(setup.browser, { displayName: "Dana" });
    await page.goto(roomUrl(setup.app.url, room.id));
    await expect.poll(() => page.getByRole("status", { name: "Connection: Live" }).count()).toBe(1);
    // Paced at 15 s in all, so a reload on a busy machine is back well before the end.
    await sendFromComposer(page, "Long one please [[fake:chunks=50,slow=300]]");
    await messageRows(page, "assistant").last().getByText(/t4 /).waitFor();

    await page.reload();
    const answer = messageRows(page, "assistant").last();
    // Back on the page mid-stream: earlier tokens are there, later ones keep coming.
    await answer.getByText(/t10 /).waitFor();
    expect(await answer.textContent()).not.toContain("t49");
    await answer.getByText(/t49/).waitFor({ timeout: 40_000 });
    expect(await messageRows(page, "assistant").count()).toBe(1);
    // Every token exactly once, in order: nothing lost or replayed twice.
    const text = (await answer.locator(".markdown").allTextContents()).join(" ");
    expect(text.match(/t\d+/g)).toEqual(Array.from({ length: 50 }, (_, i) => `t${i}`));

    const stored = await waitFor(
      () => rest.messages(setup.app.url, room.id),
      (p) => p.messages.length === 2 && messageText(p.messages[1]).includes("t49")
    );
    expect(stored.messages.length).toBe(2);
    await context.close();
  });

  it("drops a room deleted elsewhere from open lists, and tells people inside it", async () => {
    const name = uniqueName("Doomed");
    const room = await rest.createRoom(setup.app.url, { name });
    const watcher = await newUser(setup.browser);
    const inside = await newUser(setup.browser, { displayName: "Eve" });
    await watcher.page.goto(setup.app.url);
    await inside.page.goto(roomUrl(setup.app.url, room.id));
    const list = watcher.page.getByRole("navigation", { name: "Rooms" });
    await list.getByText(name).waitFor();
    await expect.poll(() => inside.page.getByRole("status", { name: "Connection: Live" }).count()).toBe(1);

    await rest.deleteRoom(setup.app.url, room.id);

    await expect.poll(() => list.getByText(name).count()).toBe(0);
    await inside.page.getByRole("heading", { name: "This room was deleted" }).waitFor();
    await inside.page.getByRole("link", { name: "Back to rooms" }).click();
    await inside.page.waitForURL(`${setup.app.url}/`);
    await watcher.context.close();
    await inside.context.close();
  });

  it("shows Room not found for an unknown room, with a way back", async () => {
    const { context, page } = await newUser(setup.browser);
    await page.goto(roomUrl(setup.app.url, "NoSuchRoom000000"));
    await page.getByRole("heading", { name: "Room not found" }).waitFor();
    await page.getByRole("link", { name: "Back to rooms" }).click();
    await page.waitForURL(`${setup.app.url}/`);
    await context.close();
  });

  it("shows new rooms and activity in everyone's list as it happens", async () => {
    const { context, page } = await newUser(setup.browser);
    await page.goto(setup.app.url);
    const list = page.getByRole("navigation", { name: "Rooms" });
    await list.waitFor();
    const name = uniqueName("Fresh");
    const room = await rest.createRoom(setup.app.url, { name });
    const row = list.locator(`a[data-room-id="${room.id}"]`);
    await row.getByText(name).waitFor();
    await rest.send(setup.app.url, room.id, "ping from the API");
    await row.getByText("Echo: ping from the API").waitFor();
    await expect.poll(() => row.getByText("2 unread messages", { exact: true }).count()).toBe(1);
    // Most recently active first.
    await expect.poll(() => list.locator("a[data-room-id]").first().getAttribute("data-room-id")).toBe(room.id);
    // The filter narrows the list.
    await page.getByRole("searchbox", { name: "Filter rooms" }).fill(name);
    await expect.poll(() => list.locator("a[data-room-id]").count()).toBe(1);
    await page.getByRole("searchbox", { name: "Filter rooms" }).fill("zz-no-such-room-zz");
    await list.getByText(/No rooms match/).waitFor();
    expect(await log(page).count()).toBe(0);
    await context.close();
  });

  // Last: it restarts the server under everyone.
  it("keeps the composer editable while reconnecting, and sends what waited once the server is back", async () => {
    const room = await rest.createRoom(setup.app.url, { name: uniqueName("Flaky network") });
    const { context, page } = await newUser(setup.browser, { displayName: "Finn" });
    // Vite's dev client reloads the page when its server comes back; a real
    // deployment has no such socket. Keep it quiet so we watch the app itself.
    await context.routeWebSocket(
      (url) => url.pathname === "/" && url.searchParams.has("token"),
      () => {}
    );
    const pageLog: string[] = [];
    page.on("console", (m) => pageLog.push(`${m.type()}: ${m.text()}`));
    page.on("pageerror", (e) => pageLog.push(`pageerror: ${e.message}`));
    await page.goto(roomUrl(setup.app.url, room.id));
    await expect.poll(() => page.getByRole("status", { name: "Connection: Live" }).count()).toBe(1);
    // One answer before the restart, so every lazily loaded chunk is in the
    // page (a restarted Vite re-optimises dependencies, which a page loading
    // a chunk afterwards would pick up twice; a real deployment does not).
    await sendFromComposer(page, "before the restart");
    // Rendered as Markdown, not the plain-text fallback shown while that chunk loads.
    await messageRows(page, "assistant").filter({ hasText: "Echo: before the restart" }).locator(".markdown").waitFor();

    const restarting = setup.app.server!.restart();
    await page
      .getByText(/Reconnecting/)
      .first()
      .waitFor({ timeout: 20_000 });
    expect(await composer(page).isEnabled()).toBe(true);
    await sendFromComposer(page, "sent while the server was down");
    await sendFromComposer(page, "and a second one");
    // Queued in this browser's storage, so it outlives the page too.
    const queued = await page.evaluate((id) => localStorage.getItem(`rooms.outbox.v1.${id}`), room.id);
    expect(JSON.parse(queued ?? "[]").map((item: { text: string }) => item.text)).toEqual([
      "sent while the server was down",
      "and a second one"
    ]);
    await restarting;

    await expect
      .poll(() => page.getByRole("status", { name: "Connection: Live" }).count(), { timeout: 60_000 })
      .toBe(1);
    // The first answer after a cold restart also waits for workerd to rebuild.
    await messageRows(page, "assistant")
      .filter({ hasText: "Echo: and a second one" })
      .waitFor({ timeout: 90_000 })
      .catch(async (error) => {
        const tray = await page
          .getByRole("list", { name: "Messages waiting to be sent" })
          .textContent()
          .catch(() => "");
        const onServer = await rest.messages(setup.app.url, room.id).catch(() => null);
        console.error(
          "outbox:",
          tray,
          "server:",
          JSON.stringify(onServer?.messages.map((m) => [m.role, messageText(m)]))
        );
        const shown = await messageRows(page).allTextContents();
        console.error("page shows:", JSON.stringify(shown), "console:", JSON.stringify(pageLog));
        throw error;
      });
    const stored = await waitFor(
      () => rest.messages(setup.app.url, room.id),
      (p) => p.messages.length >= 6
    );
    expect(stored.messages.filter((m) => m.role === "user").map(messageText)).toEqual([
      "before the restart",
      "sent while the server was down",
      "and a second one"
    ]);
    await context.close();
  }, 300_000);
});
