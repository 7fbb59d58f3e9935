/**
 * Mentions of people, in two browsers: Alice picks Bob from the `@` list
 * and sends; Bob's bell counts it live, a desktop notification is shown
 * while his tab is hidden (his context granted the permission; the
 * Notification constructor is observed), and his inbox opens the message.
 * Nobody is asked for the permission on load; Alice's inbox offers it.
 * Then Bob replies to her message, and her inbox says he replied to her.
 */
import type { BrowserContext } from "playwright-core";
import { describe, expect, it } from "vitest";
import {
  composer,
  messageRows,
  newUser,
  rest,
  roomUrl,
  sendFromComposer,
  uniqueName,
  useAppAndBrowser
} from "./helpers";

// Desktop notifications need the full browser (the headless shell refuses them).
const setup = useAppAndBrowser({ fullBrowser: true });

/** Records every desktop notification and permission request; `__hidden` stands for a hidden tab. */
async function observeNotifications(context: BrowserContext) {
  await context.addInitScript(() => {
    const w = window as unknown as {
      __shown: Array<{ title: string; body?: string }>;
      __asked: number;
      __hidden: boolean;
      Notification: typeof Notification;
    };
    w.__shown = [];
    w.__asked = 0;
    w.__hidden = false;
    Object.defineProperty(document, "hidden", { get: () => w.__hidden });
    const Native = w.Notification;
    class Observed extends Native {
      constructor(title: string, options?: NotificationOptions) {
        super(title, options);
        w.__shown.push({ title, body: options?.body });
      }
      static get permission() {
        return Native.permission;
      }
      static requestPermission() {
        w.__asked += 1;
        return Native.requestPermission();
      }
    }
    w.Notification = Observed;
  });
}

describe("a mention of a person", () => {
  it("notifies them in a second browser: the bell's count, a desktop notification while hidden, the inbox", async () => {
    const roomName = uniqueName("Launch");
    const room = await rest.createRoom(setup.app.url, { name: roomName });
    await rest.getRoom(setup.app.url, room.id);
    const aliceName = uniqueName("Alice");
    const bobName = uniqueName("Bob");
    const alice = await newUser(setup.browser, { displayName: aliceName });
    const bob = await newUser(setup.browser, { displayName: bobName, permissions: ["notifications"] });
    await observeNotifications(alice.context);
    await observeNotifications(bob.context);
    await bob.page.goto(roomUrl(setup.app.url, room.id));
    await alice.page.goto(roomUrl(setup.app.url, room.id));
    await bob.page.getByRole("button", { name: "Notifications", exact: true }).waitFor();

    // Alice finds Bob in the @ list (he is in the room) and asks him.
    const box = composer(alice.page);
    await box.click();
    await box.pressSequentially(`@${bobName.slice(0, 5)}`);
    const option = alice.page
      .getByRole("listbox", { name: "Mention someone" })
      .getByRole("option", { name: `@${bobName}` });
    await option.waitFor();
    await box.press("Enter");
    await box.pressSequentially("can you review the launch notes?");
    await expect.poll(() => box.inputValue(), { timeout: 20_000 }).toBe(`@${bobName} can you review the launch notes?`);
    await bob.page.evaluate(() => {
      (window as unknown as { __hidden: boolean }).__hidden = true;
    });
    await box.press("Enter");
    await messageRows(bob.page, "user").filter({ hasText: "can you review the launch notes?" }).waitFor();

    // Bob: the count on the bell, and the desktop notification (his tab is hidden).
    await bob.page.getByRole("button", { name: "Notifications, 1 unread" }).waitFor();
    await expect
      .poll(() => bob.page.evaluate(() => (window as unknown as { __shown: unknown[] }).__shown), { timeout: 20_000 })
      .toEqual([
        { title: `${aliceName} mentioned you in ${roomName}`, body: `@${bobName} can you review the launch notes?` }
      ]);
    // Alice is not notified of her own message, and nobody was asked for the permission on load.
    await alice.page.getByRole("button", { name: "Notifications", exact: true }).waitFor();
    for (const { page } of [alice, bob]) {
      expect(await page.evaluate(() => (window as unknown as { __asked: number }).__asked)).toBe(0);
    }

    // Bob opens his inbox and the notification: the message, and the count goes.
    await bob.page.evaluate(() => {
      (window as unknown as { __hidden: boolean }).__hidden = false;
    });
    await bob.page.getByRole("button", { name: "Notifications, 1 unread" }).click();
    const entry = bob.page
      .getByRole("list", { name: "Notifications" })
      .getByRole("link", { name: new RegExp(`^${aliceName} mentioned you in ${roomName}`) });
    await entry.click();
    await expect.poll(() => new URL(bob.page.url()).searchParams.get("m"), { timeout: 20_000 }).not.toBeNull();
    await bob.page.getByRole("button", { name: "Notifications", exact: true }).waitFor();
    expect(await bob.page.getByRole("button", { name: "Turn on desktop notifications" }).count()).toBe(0);

    // Alice's inbox offers desktop notifications; only pressing asks.
    await alice.page.getByRole("button", { name: "Notifications", exact: true }).click();
    await alice.page.getByText("Nothing yet").waitFor();
    await alice.page.getByRole("button", { name: "Turn on desktop notifications" }).click();
    await expect
      .poll(() => alice.page.evaluate(() => (window as unknown as { __asked: number }).__asked), { timeout: 20_000 })
      .toBe(1);
    await alice.page.keyboard.press("Escape");

    // Bob replies to Alice's question from its actions: she is told, as a reply.
    const asked = messageRows(bob.page, "user").filter({ hasText: "can you review the launch notes?" });
    await asked.hover();
    await asked.getByRole("button", { name: "Reply", exact: true }).click();
    await bob.page.locator("[data-reply-draft]").waitFor();
    await sendFromComposer(bob.page, "On it this afternoon");
    await alice.page.getByRole("button", { name: "Notifications, 1 unread" }).click();
    await alice.page
      .getByRole("list", { name: "Notifications" })
      .getByRole("link", { name: new RegExp(`^${bobName} replied to you in ${roomName}`) })
      .waitFor();
  });
});
