/**
 * A room for people: talking while the AI answers, stopping with a name,
 * and an outbox that keeps what you send while the connection is down.
 */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import {
  composer,
  messageRows,
  newUser,
  rest,
  roomUrl,
  sendFromComposer,
  textOf,
  uniqueName,
  useAppAndBrowser
} from "./helpers";

const setup = useAppAndBrowser();

const live = (page: Page) => page.getByRole("status", { name: "Connection: Live" });

async function twoPeople(prefix: string) {
  const room = await rest.createRoom(setup.app.url, { name: uniqueName(prefix) });
  const alice = await newUser(setup.browser, { displayName: "Alice" });
  const bob = await newUser(setup.browser, { displayName: "Bob" });
  await alice.page.goto(roomUrl(setup.app.url, room.id));
  await bob.page.goto(roomUrl(setup.app.url, room.id));
  await expect.poll(() => bob.page.getByRole("button", { name: /^2 people here/ }).count()).toBe(1);
  return { room, alice, bob };
}

describe("talking while the AI answers", () => {
  it("lets a second person send while an answer streams, and answers both in order", async () => {
    const { room, alice, bob } = await twoPeople("Talk over");
    await sendFromComposer(alice.page, "Alice asks first [[fake:chunks=40,slow=100]]");
    await messageRows(bob.page, "assistant").last().getByText(/t3 /).waitFor();

    // Bob is not blocked by Alice's answer: his message is posted at once.
    await sendFromComposer(bob.page, "Bob chimes in");
    await messageRows(alice.page, "user").filter({ hasText: "Bob chimes in" }).waitFor();
    const streaming = await messageRows(alice.page, "assistant").last().textContent();
    expect(streaming).not.toContain("t39");

    // Both are answered, Alice's first.
    for (const { page } of [alice, bob]) {
      await messageRows(page, "assistant").filter({ hasText: "Echo: Bob chimes in" }).waitFor({ timeout: 60_000 });
    }
    const stored = (await rest.messages(setup.app.url, room.id)).messages;
    expect(stored).toHaveLength(4);
    const askA = stored.find((m) => m.role === "user" && textOf(m).includes("Alice asks first"));
    const askB = stored.find((m) => m.role === "user" && textOf(m) === "Bob chimes in");
    const answers = stored.filter((m) => m.role === "assistant");
    // One answer each, Alice's (complete) first, then Bob's.
    expect(answers.map((m) => m.metadata?.answers)).toEqual([askA?.id, askB?.id]);
    expect(textOf(answers[0])).toContain("t39");
    expect(textOf(answers[1])).toBe("Echo: Bob chimes in");
    // Each message exactly once, on both screens.
    for (const { page } of [alice, bob]) {
      await expect.poll(() => messageRows(page, "user").filter({ hasText: "Bob chimes in" }).count()).toBe(1);
    }
    await alice.context.close();
    await bob.context.close();
  });

  it("says who stopped an answer, on every screen", async () => {
    const { room, alice, bob } = await twoPeople("Who stopped");
    await sendFromComposer(alice.page, "Long one [[fake:chunks=300,slow=100]]");
    await messageRows(bob.page, "assistant").last().getByText(/t3 /).waitFor();
    await bob.page.getByRole("button", { name: "Stop generating" }).click();
    for (const { page } of [alice, bob]) {
      await messageRows(page, "assistant").last().getByText("Stopped by Bob").waitFor();
    }
    const stored = await rest.messages(setup.app.url, room.id);
    expect(stored.messages.at(-1)?.metadata).toMatchObject({ stopped: true, stoppedBy: "Bob" });
    await alice.context.close();
    await bob.context.close();
  });
});

describe("the outbox", () => {
  it("keeps messages written offline across a reload and sends them in order, once, on reconnect", async () => {
    const room = await rest.createRoom(setup.app.url, { name: uniqueName("Outbox") });
    const { context, page } = await newUser(setup.browser, { displayName: "Olga" });
    // The room's socket is cut until we let it through (as on a train).
    let online = false;
    await context.routeWebSocket(
      (url) => url.pathname.includes("/sub/chat-room/"),
      (ws) => {
        if (online) ws.connectToServer();
        else ws.close({ code: 1011, reason: "offline" });
      }
    );
    await page.goto(roomUrl(setup.app.url, room.id));
    await expect.poll(() => composer(page).isEnabled()).toBe(true);
    await sendFromComposer(page, "first while offline");
    await sendFromComposer(page, "second while offline");
    const tray = page.getByRole("list", { name: "Messages waiting to be sent" });
    await expect.poll(() => tray.getByRole("listitem").count()).toBe(2);

    // A reload keeps the outbox.
    await page.reload();
    await expect.poll(() => tray.getByRole("listitem").count()).toBe(2);
    expect(await tray.getByRole("listitem").first().textContent()).toContain("first while offline");

    online = true;
    await expect.poll(() => live(page).count(), { timeout: 60_000 }).toBe(1);
    await expect.poll(() => tray.count()).toBe(0);
    await messageRows(page, "assistant").filter({ hasText: "Echo: second while offline" }).waitFor({ timeout: 60_000 });
    const stored = await rest.messages(setup.app.url, room.id);
    expect(stored.messages.filter((m) => m.role === "user").map(textOf)).toEqual([
      "first while offline",
      "second while offline"
    ]);
    expect(await messageRows(page, "user").count()).toBe(2);
    await context.close();
  });
});
