/**
 * A room for people: talking while the AI answers (and its queue, which
 * the asker may leave), stopping with a name, and an outbox that keeps what you send while the connection is down.
 */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import {
  accountMenuAction,
  composer,
  messageRows,
  messageText,
  newUser,
  PHONE,
  rest,
  roomMenuAction,
  roomUrl,
  sendFromComposer,
  seriousViolations,
  uniqueName,
  useAppAndBrowser
} from "./helpers";

// Its first test needs a workspace with no rooms yet: a server of its own.
const setup = useAppAndBrowser({ ownServer: true });

/** `turns` questions (and their answers) in a room, sent at once over REST. */
async function seed(roomId: string, turns: number) {
  await Promise.all(Array.from({ length: turns }, (_, i) => rest.send(setup.app.url, roomId, `Seeded question ${i}`)));
}

/** Records every text the room's status region speaks. */
async function recordAnnouncements(page: Page) {
  await page.addInitScript(() => {
    const spoken: string[] = [];
    (window as unknown as { spoken: string[] }).spoken = spoken;
    new MutationObserver(() => {
      const region = document.querySelector('[role="status"][aria-label="Room announcements"]');
      const text = region?.textContent?.trim();
      if (text && spoken.at(-1) !== text) spoken.push(text);
    }).observe(document, { childList: true, subtree: true, characterData: true });
  });
  return () => page.evaluate(() => (window as unknown as { spoken: string[] }).spoken);
}

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

// First, while the workspace is still empty.
describe("first paint", () => {
  it("never flashes the wrong empty state, and shows the list without waiting for the socket", async () => {
    const { context, page } = await newUser(setup.browser);
    await context.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { seenHeadings: string[] }).seenHeadings = seen;
      new MutationObserver(() => {
        for (const h of document.querySelectorAll("h1")) {
          const text = h.textContent ?? "";
          if (seen.at(-1) !== text) seen.push(text);
        }
      }).observe(document, { childList: true, subtree: true, characterData: true });
    });
    await page.goto(setup.app.url);
    await page.getByRole("heading", { name: "Create your first room" }).waitFor();
    const seen = await page.evaluate(() => (window as unknown as { seenHeadings: string[] }).seenHeadings);
    expect(seen).not.toContain("Pick a room");
    await context.close();

    // With the workspace socket held back, the list still comes, from the
    // request the page started.
    const room = await rest.createRoom(setup.app.url, { name: uniqueName("First paint") });
    const second = await newUser(setup.browser);
    await second.context.routeWebSocket(
      (url) => /\/agents\/overseer-agent\/[^/]+$/.test(url.pathname),
      () => {}
    );
    const listRequests: number[] = [];
    second.page.on("request", (request) => {
      if (new URL(request.url()).pathname === "/api/rooms") listRequests.push(Date.now());
    });
    await second.page.goto(setup.app.url);
    await second.page.getByRole("navigation", { name: "Rooms" }).getByText(room.name).waitFor();
    expect(listRequests.length).toBeGreaterThanOrEqual(1);
    await second.context.close();
  });
});

describe("talking while the AI answers", () => {
  it("lets a second person send while an answer streams, and answers both in order", async () => {
    const { room, alice, bob } = await twoPeople("Talk over");
    // The answer's last chunk waits for the gate: it is still streaming for as long as the test needs.
    const gate = uniqueName("talk-over");
    await sendFromComposer(alice.page, `Alice asks first [[fake:chunks=40,slow=100,gate=${gate}]]`);
    await messageRows(bob.page, "assistant").last().getByText(/t3 /).waitFor();

    // Bob is not blocked by Alice's answer: his message is posted while it streams.
    await sendFromComposer(bob.page, "Bob chimes in");
    await messageRows(alice.page, "user").filter({ hasText: "Bob chimes in" }).waitFor();
    const streaming = await messageRows(alice.page, "assistant").last().textContent();
    expect(streaming).not.toContain("t39");
    await setup.app.fake.openGate(gate);

    // Both are answered, Alice's first.
    for (const { page } of [alice, bob]) {
      await messageRows(page, "assistant").filter({ hasText: "Echo: Bob chimes in" }).waitFor({ timeout: 60_000 });
    }
    const stored = (await rest.messages(setup.app.url, room.id)).messages;
    expect(stored).toHaveLength(4);
    const askA = stored.find((m) => m.role === "user" && messageText(m).includes("Alice asks first"));
    const askB = stored.find((m) => m.role === "user" && messageText(m) === "Bob chimes in");
    const answers = stored.filter((m) => m.role === "assistant");
    // One answer each, Alice's (complete) first, then Bob's.
    expect(answers.map((m) => m.metadata?.answers)).toEqual([askA?.id, askB?.id]);
    expect(messageText(answers[0])).toContain("t39");
    expect(messageText(answers[1])).toBe("Echo: Bob chimes in");
    // Each message exactly once, on both screens.
    for (const { page } of [alice, bob]) {
      await expect.poll(() => messageRows(page, "user").filter({ hasText: "Bob chimes in" }).count()).toBe(1);
    }
    await alice.context.close();
    await bob.context.close();
  });

  it("shows the AI's queue to everyone, and Bob withdraws his waiting question", async () => {
    const room = await rest.createRoom(setup.app.url, { name: uniqueName("Queue") });
    const people = await Promise.all(
      ["Alice", "Bob", "Carol"].map((displayName) => newUser(setup.browser, { displayName }))
    );
    try {
      const [alice, bob, carol] = people.map((p) => p.page);
      for (const page of [alice, bob, carol]) {
        await page.goto(roomUrl(setup.app.url, room.id));
        await expect.poll(() => live(page).count()).toBe(1);
      }
      const gate = uniqueName("queue");
      await sendFromComposer(alice, `Alice asks first [[fake:chunks=40,slow=100,gate=${gate}]]`);
      await messageRows(carol, "assistant").last().getByText(/t3 /).waitFor();
      await sendFromComposer(bob, "Bob asks second");
      await messageRows(carol, "user").filter({ hasText: "Bob asks second" }).waitFor();
      await sendFromComposer(carol, "Carol asks third");

      const queue = (page: Page) => page.getByRole("region", { name: "The AI's queue" });
      await expect.poll(() => queue(alice).textContent()).toContain("Next: Bob's question, then Carol's");
      await expect.poll(() => queue(bob).textContent()).toContain("Next: your question, then Carol's");
      await expect.poll(() => queue(carol).textContent()).toContain("Next: Bob's question, then yours");
      // Only your own questions can be withdrawn.
      expect(
        await queue(alice)
          .getByRole("button", { name: /^Withdraw/ })
          .count()
      ).toBe(0);
      expect(
        await queue(carol)
          .getByRole("button", { name: /^Withdraw/ })
          .count()
      ).toBe(1);

      await queue(bob)
        .getByRole("button", { name: /^Withdraw your question "Bob asks second/ })
        .click();
      for (const page of [alice, bob, carol]) {
        await messageRows(page, "user")
          .filter({ hasText: "Bob asks second" })
          .getByText(/^Withdrawn/)
          .waitFor();
      }
      await expect.poll(() => queue(alice).textContent()).toContain("Next: Carol's question");
      expect(await queue(alice).textContent()).not.toContain("Bob");

      await setup.app.fake.openGate(gate);
      await messageRows(bob, "assistant").filter({ hasText: "Echo: Carol asks third" }).waitFor({ timeout: 60_000 });
      await expect.poll(() => queue(alice).count()).toBe(0);
      const stored = (await rest.messages(setup.app.url, room.id)).messages;
      const bobs = stored.find((m) => m.role === "user" && messageText(m) === "Bob asks second");
      expect(bobs?.metadata).toMatchObject({ withdrawn: true });
      // Alice's and Carol's questions have an answer each; Bob's none.
      expect(stored.filter((m) => m.role === "assistant")).toHaveLength(2);
      expect(stored.some((m) => m.role === "assistant" && m.metadata?.answers === bobs?.id)).toBe(false);
    } finally {
      await Promise.all(people.map((p) => p.context.close().catch(() => {})));
    }
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
    expect(stored.messages.at(-1)?.metadata).toMatchObject({ stopped: true, stoppedBy: { name: "Bob" } });
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
    expect(stored.messages.filter((m) => m.role === "user").map(messageText)).toEqual([
      "first while offline",
      "second while offline"
    ]);
    expect(await messageRows(page, "user").count()).toBe(2);
    await context.close();
  });
});

describe("phones", () => {
  const phone = { viewport: PHONE, hasTouch: true, isMobile: true } as const;

  it("makes Enter a new line on a touch composer and sends with the button", async () => {
    const room = await rest.createRoom(setup.app.url, { name: uniqueName("Phone enter") });
    const { context, page } = await newUser(setup.browser, { displayName: "Pat", ...phone });
    await page.goto(roomUrl(setup.app.url, room.id));
    await expect.poll(() => live(page).count()).toBe(1);
    const box = composer(page);
    expect(await box.getAttribute("enterkeyhint")).toBe("enter");
    await box.fill("line one");
    await box.press("Enter");
    await box.pressSequentially("line two");
    expect(await box.inputValue()).toBe("line one\nline two");
    expect(await messageRows(page, "user").count()).toBe(0);
    await page.getByRole("button", { name: "Send message" }).tap();
    await messageRows(page, "assistant").filter({ hasText: "Echo: line one" }).waitFor({ timeout: 60_000 });
    await context.close();
  });

  it("makes the page behind the drawer inert, traps focus in it and focuses its heading", async () => {
    const room = await rest.createRoom(setup.app.url, { name: uniqueName("Phone drawer") });
    const { context, page } = await newUser(setup.browser, { displayName: "Pat", ...phone });
    await page.goto(roomUrl(setup.app.url, room.id));
    await expect.poll(() => live(page).count()).toBe(1);
    await page.getByRole("button", { name: "Open sidebar" }).tap();
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("sidebar-heading");
    expect(await page.evaluate(() => (document.getElementById("main") as HTMLElement).inert)).toBe(true);
    for (let i = 0; i < 25; i++) {
      await page.keyboard.press(i % 5 === 4 ? "Shift+Tab" : "Tab");
      const inside = await page.evaluate(() => !!document.activeElement?.closest("#sidebar"));
      expect(inside, `focus left the drawer after ${i + 1} presses`).toBe(true);
    }
    await page.keyboard.press("Escape");
    await expect.poll(() => page.evaluate(() => (document.getElementById("main") as HTMLElement).inert)).toBe(false);
    await context.close();
  });

  it("keeps the room's name readable in the header and moves the other actions behind More", async () => {
    const name = uniqueName("Phone header");
    const room = await rest.createRoom(setup.app.url, { name });
    const { context, page } = await newUser(setup.browser, { displayName: "Pat", ...phone });
    await page.goto(roomUrl(setup.app.url, room.id));
    await expect.poll(() => live(page).count()).toBe(1);
    const header = page.locator("main header");
    const title = header.getByRole("heading", { level: 1 });
    // Seven icon buttons used to squeeze the title to nothing on a phone.
    expect((await title.boundingBox())?.width ?? 0).toBeGreaterThan(120);
    await expect.poll(() => header.getByRole("button", { name: "Share room" }).isVisible()).toBe(false);
    await header.getByRole("button", { name: "More room actions" }).tap();
    await header.getByRole("button", { name: "Share room" }).tap();
    await page.getByRole("dialog", { name: "Share room" }).waitFor();
    await context.close();
  });

  it("gives every control at least 44 by 44 pixels on a touch screen", async () => {
    const room = await rest.createRoom(setup.app.url, { name: uniqueName("Phone targets") });
    await rest.send(setup.app.url, room.id, "Something to act on", "Pat");
    const { context, page } = await newUser(setup.browser, { displayName: "Pat", ...phone });
    await page.goto(roomUrl(setup.app.url, room.id));
    await messageRows(page, "assistant").filter({ hasText: "Echo: Something to act on" }).waitFor();
    const tooSmall = () =>
      page.evaluate(() =>
        [
          ...document.querySelectorAll<HTMLElement>(
            "button, a[href], input:not([type=hidden]), textarea, select, [role=button]"
          )
        ]
          .filter((el) => {
            // Off-screen until focused (the skip link), inert, or inside rendered Markdown.
            if (el.closest("[inert], .sr-only") || el.closest(".markdown, [data-markdown]")) return false;
            const style = getComputedStyle(el);
            if (style.visibility === "hidden" || style.opacity === "0") return false;
            const rect = el.getBoundingClientRect();
            return rect.width > 0 && rect.height > 0;
          })
          .map((el) => {
            const rect = el.getBoundingClientRect();
            return {
              name: el.getAttribute("aria-label") ?? el.textContent?.trim().slice(0, 30),
              w: Math.round(rect.width),
              h: Math.round(rect.height)
            };
          })
          .filter((r) => r.w < 44 || r.h < 44)
      );
    expect(await tooSmall()).toEqual([]);
    await page.getByRole("button", { name: "Open sidebar" }).tap();
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("sidebar-heading");
    expect(await tooSmall()).toEqual([]);
    await context.close();
  });
});

describe("screen readers", () => {
  it("speaks answering, the answer, others' messages and stops in one status region; the log is not live", async () => {
    const { alice, bob } = await twoPeople("Announce");
    const spoken = await recordAnnouncements(alice.page);
    await alice.page.reload();
    await expect.poll(() => live(alice.page).count()).toBe(1);
    expect(await alice.page.getByRole("log").getAttribute("aria-live")).toBe("off");
    expect(await alice.page.locator("[aria-live=polite]").count()).toBe(1);

    // Paced, so the answer is still being written when "answering" is due (a
    // near-instant answer may be announced finished before it is ever spoken as under way).
    await sendFromComposer(bob.page, "Hello from Bob [[fake:slow=150]]");
    await expect.poll(spoken).toContainEqual(expect.stringContaining("New message from Bob: Hello from Bob"));
    // Said on its own, or with Bob's message when both arrive at once.
    await expect.poll(spoken).toContainEqual(expect.stringContaining("The assistant is answering…"));
    await expect.poll(spoken).toContainEqual(expect.stringContaining("Answer: Echo: Hello from Bob"));

    // A heading per message.
    // (Rows are virtual: compare the two counts at one moment, once the rows are in.)
    await expect
      .poll(async () => {
        const [headings, rows] = await Promise.all([
          alice.page.getByRole("log").getByRole("heading", { level: 2 }).count(),
          messageRows(alice.page).count()
        ]);
        return rows > 0 && headings === rows;
      })
      .toBe(true);

    // Stop: announced with who, and focus goes to the composer, not <body>.
    await sendFromComposer(alice.page, "Go on and on [[fake:chunks=300,slow=100]]");
    await messageRows(alice.page, "assistant").last().getByText(/t3 /).waitFor();
    await alice.page.getByRole("button", { name: "Stop generating" }).click();
    await expect.poll(spoken).toContain("Answer stopped by Alice.");
    await expect.poll(() => alice.page.evaluate(() => document.activeElement?.tagName)).toBe("TEXTAREA");
    await alice.context.close();
    await bob.context.close();
  });

  it("keeps focus off <body> after loading earlier messages and after deleting the room", async () => {
    const room = await rest.createRoom(setup.app.url, { name: uniqueName("Focus") });
    await seed(room.id, 40);
    const { context, page } = await newUser(setup.browser, { displayName: "Fay" });
    await page.goto(roomUrl(setup.app.url, room.id));
    await expect.poll(() => live(page).count()).toBe(1);
    const loadEarlier = page.getByRole("button", { name: /Load earlier messages/ });
    const start = page.getByText(/This is the start of/);
    let pressed = 0;
    for (let i = 0; i < 8; i++) {
      // Either the room's start is shown or the button to load more is (the
      // transcript is virtual: the button can leave with a re-render).
      await expect.poll(async () => (await start.count()) + (await loadEarlier.count())).toBeGreaterThan(0);
      if ((await start.count()) > 0) break;
      const focused = await loadEarlier.focus({ timeout: 5_000 }).then(
        () => true,
        () => false
      );
      if (!focused) continue; // it went between the look and the focus: look again
      await page.keyboard.press("Enter");
      pressed++;
      await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).not.toBe("BODY");
    }
    expect(pressed, "40 messages need at least one more page").toBeGreaterThan(0);
    await start.waitFor();
    // The button goes with the last page; focus moves to the log as it does.
    await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).not.toBe("BODY");

    await roomMenuAction(page, "Delete room");
    await page
      .getByRole("dialog")
      .getByRole("button", { name: /Delete/ })
      .last()
      .click();
    await page.waitForURL(`${setup.app.url}/`);
    await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe("H1");
    await context.close();
  });
});

describe("accessibility (axe-core)", () => {
  it.each(["light", "dark"] as const)("finds no serious or critical violation in the %s theme", async (colorScheme) => {
    const room = await rest.createRoom(setup.app.url, { name: uniqueName(`Axe ${colorScheme}`) });
    await rest.send(setup.app.url, room.id, "A question with `code` and **bold**", "Axel");
    const found: string[] = [];

    const desktop = await newUser(setup.browser, { displayName: "Axel", colorScheme });
    const page = desktop.page;
    await page.goto(setup.app.url);
    await page.getByRole("navigation", { name: "Rooms" }).getByText(room.name).waitFor();
    found.push(...(await seriousViolations(page, "home")));

    await page.goto(roomUrl(setup.app.url, room.id));
    await expect.poll(() => live(page).count()).toBe(1);
    await messageRows(page, "assistant").filter({ hasText: "Echo:" }).waitFor();
    await sendFromComposer(page, "Stop me [[fake:chunks=300,slow=100]]");
    await messageRows(page, "assistant").last().getByText(/t3 /).waitFor();
    await page.getByRole("button", { name: "Stop generating" }).click();
    await messageRows(page, "assistant").last().getByText("Stopped by Axel").waitFor();
    found.push(...(await seriousViolations(page, "room")));

    const dialogs: [string, () => Promise<void>][] = [
      ["new room", () => page.getByRole("button", { name: "New room" }).first().click()],
      ["settings", () => page.getByRole("button", { name: "Room settings" }).click()],
      ["delete", () => roomMenuAction(page, "Delete room")],
      ["shortcuts", () => accountMenuAction(page, "Keyboard shortcuts")],
      ["display name", () => page.getByRole("button", { name: /Change display name/ }).click()]
    ];
    for (const [name, open] of dialogs) {
      await open();
      await page.getByRole("dialog").waitFor();
      found.push(...(await seriousViolations(page, `${name} dialog`)));
      await page.keyboard.press("Escape");
      await expect.poll(() => page.getByRole("dialog").count()).toBe(0);
    }
    await desktop.context.close();

    const phone = await newUser(setup.browser, {
      displayName: "Axel",
      colorScheme,
      viewport: PHONE,
      hasTouch: true,
      isMobile: true
    });
    await phone.page.goto(roomUrl(setup.app.url, room.id));
    await expect.poll(() => live(phone.page).count()).toBe(1);
    found.push(...(await seriousViolations(phone.page, "phone room")));
    await phone.page.getByRole("button", { name: "Open sidebar" }).tap();
    await expect.poll(() => phone.page.evaluate(() => document.activeElement?.id)).toBe("sidebar-heading");
    found.push(...(await seriousViolations(phone.page, "phone drawer")));
    await phone.context.close();

    expect(found).toEqual([]);
  });
});

describe("presence of the room", () => {
  it("copies a room's link from the header and the room list, and the link opens the room for someone else", async () => {
    const room = await rest.createRoom(setup.app.url, { name: uniqueName("Invite") });
    const alice = await newUser(setup.browser, { displayName: "Alice" });
    await alice.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: setup.app.url });
    await alice.page.goto(roomUrl(setup.app.url, room.id));
    await expect.poll(() => live(alice.page).count()).toBe(1);
    const clipboard = () => alice.page.evaluate(() => navigator.clipboard.readText());

    await alice.page
      .locator("main")
      .getByRole("button", { name: `Copy link to ${room.name}` })
      .click();
    await alice.page.locator("main").getByRole("button", { name: "Link copied" }).waitFor();
    const link = await clipboard();
    expect(link).toBe(roomUrl(setup.app.url, room.id));

    await alice.page.evaluate(() => navigator.clipboard.writeText(""));
    const row = alice.page
      .getByRole("navigation", { name: "Rooms" })
      .getByRole("listitem")
      .filter({ hasText: room.name });
    await row.hover();
    await row.getByRole("button", { name: `Copy link to ${room.name}` }).click();
    await expect.poll(clipboard).toBe(link);
    // Copying did not follow the row's link.
    expect(alice.page.url()).toBe(roomUrl(setup.app.url, room.id));

    const bob = await newUser(setup.browser, { displayName: "Bob" });
    await bob.page.goto(link);
    await expect.poll(() => bob.page.getByRole("heading", { level: 1 }).textContent()).toBe(room.name);
    await expect.poll(() => alice.page.getByRole("button", { name: /^2 people here/ }).count()).toBe(1);
    await alice.context.close();
    await bob.context.close();
  });
});

describe("coming back", () => {
  it("brings in what was written while the room's socket was down, with nothing else said after", async () => {
    // People talking among themselves: no answer follows to carry the room's transcript.
    const room = await rest.humansOnlyRoom(setup.app.url, uniqueName("Away"));
    await rest.send(setup.app.url, room.id, "Before the tunnel");
    const { context, page } = await newUser(setup.browser, { displayName: "Tess" });
    let online = true;
    const sockets: { close(options?: { code?: number; reason?: string }): Promise<void> }[] = [];
    await context.routeWebSocket(
      (url) => url.pathname.includes("/sub/chat-room/"),
      (ws) => {
        if (!online) return void ws.close({ code: 1011, reason: "offline" });
        ws.connectToServer();
        sockets.push(ws);
      }
    );
    await page.goto(roomUrl(setup.app.url, room.id));
    await messageRows(page, "user").filter({ hasText: "Before the tunnel" }).waitFor();

    // The train enters a tunnel: the socket drops and cannot come back.
    online = false;
    await Promise.all(sockets.splice(0).map((ws) => ws.close({ code: 1011, reason: "tunnel" })));
    await rest.send(setup.app.url, room.id, "Said in the tunnel");
    expect(await messageRows(page, "user").filter({ hasText: "Said in the tunnel" }).count()).toBe(0);

    // Out of the tunnel: the socket joins again, and its opening page brings the message in.
    online = true;
    await messageRows(page, "user").filter({ hasText: "Said in the tunnel" }).waitFor({ timeout: 30_000 });
    expect(
      (await messageRows(page, "user").allTextContents()).filter((text) => text.includes("Said in the tunnel"))
    ).toHaveLength(1);
    await context.close();
  });
});
