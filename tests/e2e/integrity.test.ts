/**
 * Integrity in the browser: a stored message the UI cannot render shows a
 * notice in its place, and the rest of the room keeps working.
 */
import { describe, expect, it } from "vitest";
import { composer, log, messageRows, newUser, rest, roomUrl, uniqueName, useAppAndBrowser } from "./helpers";

const ctx = useAppAndBrowser();

describe("a message the UI cannot render", () => {
  it('shows "This message cannot be shown" in its place; the room keeps working', async () => {
    const { app, browser } = ctx;
    const room = await rest.createRoom(app.url, { name: uniqueName("Poisoned") });
    await rest.send(app.url, room.id, "A perfectly normal question", "Ann");
    const { context, page } = await newUser(browser, { displayName: "Ann" });
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    // Whatever the server once let through: a timestamp of 1e20, parts that
    // are not a list. They come in the newest page, which the room reads from
    // REST and from its socket's opening frame (`rooms_opened`), whichever is
    // first: both carry them.
    const poison = [
      { id: "poison-date", role: "user", parts: [{ type: "text", text: "bad date" }], metadata: { createdAt: 1e20 } },
      { id: "poison-parts", role: "assistant", parts: "not a list", metadata: { createdAt: Date.now() } }
    ];
    let poisoned = 0;
    await page.route(`**/api/rooms/${room.id}/messages*`, async (route) => {
      const response = await route.fetch();
      const body = await response.json();
      body.messages.push(...poison);
      poisoned++;
      await route.fulfill({ response, json: body });
    });
    await page.routeWebSocket(
      (url) => url.pathname.endsWith(`/sub/chat-room/${room.id}`),
      (socket) => {
        const server = socket.connectToServer();
        socket.onMessage((message) => server.send(message));
        server.onMessage((message) => {
          if (typeof message !== "string" || !message.includes('"rooms_opened"')) return socket.send(message);
          const frame = JSON.parse(message);
          frame.page.messages.push(...poison);
          poisoned++;
          socket.send(JSON.stringify(frame));
        });
      }
    );
    await page.goto(roomUrl(app.url, room.id));
    await log(page)
      .getByText("A perfectly normal question", { exact: true })
      .waitFor()
      .catch((error) => {
        throw new Error(`${error.message}\npage errors: ${errors.join("\n")}`);
      });
    expect(poisoned).toBeGreaterThanOrEqual(1);
    // Each bad message is replaced by the notice, in place; its neighbours render.
    for (const id of ["poison-date", "poison-parts"]) {
      await page.locator(`[data-message-id="${id}"]`).getByText("This message cannot be shown").waitFor();
    }
    expect(await messageRows(page, "assistant").count()).toBeGreaterThanOrEqual(1);
    // The app is still usable.
    await composer(page).fill("still here");
    expect(await composer(page).inputValue()).toBe("still here");
    await context.close();
  });
});

describe("a part of the app that fails to download", () => {
  it("shows answers as plain text while the Markdown chunk fails, then as Markdown once it loads", async () => {
    const { app, browser } = ctx;
    const room = await rest.createRoom(app.url, { name: uniqueName("Blip") });
    await rest.send(app.url, room.id, "**bold** words", "Ann");
    const { context, page } = await newUser(browser, { displayName: "Ann" });
    // The first two downloads of the Markdown chunk fail, as on a network blip.
    let refused = 0;
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The chunk as Vite serves it in dev, or as the build names it.
    await page.route(/\/(components\/Markdown\.tsx|assets\/Markdown-[\w-]+\.js)/, async (route) => {
      if (refused < 2) {
        refused++;
        if (refused === 2) release();
        await route.abort("connectionreset");
      } else {
        await route.continue();
      }
    });
    await page.goto(roomUrl(app.url, room.id));
    // Readable as plain text (the Markdown source), not lost to "cannot be shown".
    await messageRows(page, "assistant").filter({ hasText: "Echo: **bold** words" }).waitFor();
    await released;
    expect(await page.getByText("This message cannot be shown").count()).toBe(0);
    // The retry loads the chunk, and the answer renders as Markdown (no asterisks left).
    await messageRows(page, "assistant")
      .locator(".markdown", { hasText: "Echo: bold words" })
      .waitFor({ timeout: 60_000 });
    expect(refused).toBe(2);
    await context.close();
  });
});
