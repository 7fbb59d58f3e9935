/**
 * axe-core on the pages and states the people test does not visit, in both
 * themes: the sign-in page, a page that does not exist, a room with
 * personas and an earlier version open, its menu, find in room and room
 * info, a room opened at a linked message, a fork, and a share link's
 * viewer. No serious or critical finding anywhere.
 */
import type { Page } from "playwright-core";
import { afterEach, describe, expect, it } from "vitest";
import {
  composer,
  log,
  messageRows,
  newUser,
  rest,
  roomMenuAction,
  roomUrl,
  sendFromComposer,
  seriousViolations,
  uniqueName,
  useAppAndBrowser
} from "./helpers";

const setup = useAppAndBrowser();

const contexts: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((c) => c.close().catch(() => {})));
});

async function call(path: string, init: { method: string; json?: unknown }): Promise<{ id: string; path: string }> {
  const response = await fetch(`${setup.app.url}${path}`, {
    method: init.method,
    headers: { "content-type": "application/json" },
    body: init.json === undefined ? undefined : JSON.stringify(init.json)
  });
  if (!response.ok) throw new Error(`${init.method} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** A room with two personas. */
async function personaRoom(theme: string) {
  const room = await rest.createRoom(setup.app.url, { name: uniqueName(`Axe rooms ${theme}`) });
  for (const name of ["Ada", "Grace"]) await call(`/api/rooms/${room.id}/personas`, { method: "POST", json: { name } });
  return room;
}

describe("axe on every page", () => {
  it.each(["light", "dark"] as const)("finds no serious or critical violation in the %s theme", async (colorScheme) => {
    const found: string[] = [];
    const check = async (page: Page, where: string) => found.push(...(await seriousViolations(page, where)));

    const stranger = await newUser(setup.browser, { signedOut: true, colorScheme });
    contexts.push(stranger.context);
    await stranger.page.goto(setup.app.url);
    await stranger.page.getByRole("heading", { name: "Welcome to Rooms" }).waitFor();
    await check(stranger.page, "sign-in");
    await stranger.page.getByRole("button", { name: "Sign in" }).click();
    await stranger.page.getByText("Enter the name others will see on your messages.").waitFor();
    await check(stranger.page, "sign-in, name missing");

    const room = await personaRoom(colorScheme);
    const { context, page } = await newUser(setup.browser, { displayName: "Axel", colorScheme });
    contexts.push(context);
    await page.goto(`${setup.app.url}/no/such/page`);
    await page.getByRole("heading").first().waitFor();
    await check(page, "not found");

    await page.goto(roomUrl(setup.app.url, room.id));
    await sendFromComposer(page, "@Ada and @Grace, a **bold** question with `code`");
    await messageRows(page, "assistant")
      .filter({ has: page.locator('[data-persona-name="Grace"]') })
      .waitFor({ timeout: 30_000 });
    // An edit, so the question has an earlier version to open.
    const question = messageRows(page, "user").first();
    await question.hover();
    await question.getByRole("button", { name: "Edit message" }).click();
    await question.getByRole("textbox", { name: "Edit message" }).fill("@Ada a second try");
    await check(page, "room, editing");
    await question.getByRole("button", { name: "Save & send" }).click();
    const edited = messageRows(page, "user").filter({ hasText: "a second try" });
    await edited.locator("[data-version-position]").getByText("2/2").waitFor({ timeout: 30_000 });
    // The row may re-render under the streaming answer between the click and
    // the versions' arrival; a click that did not take is made once more.
    const earlier = edited.getByRole("region", { name: "Version 1 of 2" });
    for (let attempt = 1; ; attempt++) {
      await edited.getByRole("button", { name: "Previous version" }).click();
      const shown = await earlier.waitFor({ timeout: 15_000 }).then(
        () => true,
        () => false
      );
      if (shown) break;
      if (attempt === 2) throw new Error("the earlier version never opened after two clicks");
    }
    await check(page, "room with personas and an earlier version");

    await page.locator("main header").getByRole("button", { name: "More room actions" }).click();
    await page.locator("main header").getByRole("button", { name: "Room info" }).waitFor();
    await check(page, "room menu");
    await page.keyboard.press("Escape");
    await roomMenuAction(page, "Room info");
    await page.getByRole("dialog", { name: "Room info" }).getByTestId("agent-tree").waitFor();
    await check(page, "room info");
    await page.keyboard.press("Escape");
    await page.getByRole("button", { name: "Share room" }).click();
    await page.getByRole("dialog", { name: "Share room" }).getByText("No links yet.").waitFor();
    await check(page, "share dialog");
    await page.keyboard.press("Escape");
    await roomMenuAction(page, "Find in room");
    await page.getByRole("searchbox", { name: "Find in this room" }).fill("question");
    await page.locator("[data-find-current]").waitFor({ timeout: 30_000 });
    await check(page, "find in room, at a match");
    await page.keyboard.press("Escape");

    // A fork: its banner, and the personas' colours in it.
    const firstId = await log(page).locator("[data-message-id]").first().getAttribute("data-message-id");
    const fork = await call(`/api/rooms/${room.id}/fork`, { method: "POST", json: { messageId: firstId } });
    await page.goto(roomUrl(setup.app.url, fork.id));
    await page.getByText("Forked from").waitFor();
    await composer(page).waitFor();
    await check(page, "fork");

    // A share link's viewer.
    const share = await call(`/api/rooms/${room.id}/shares`, { method: "POST", json: {} });
    const viewer = await newUser(setup.browser, { signedOut: true, colorScheme });
    contexts.push(viewer.context);
    await viewer.page.goto(`${setup.app.url}${share.path}`);
    await messageRows(viewer.page, "assistant").first().waitFor();
    await viewer.page.getByRole("link", { name: "Sign in to take part" }).waitFor();
    await check(viewer.page, "share viewer");

    expect(found).toEqual([]);
  });
});
