/**
 * Private rooms, members and invitations in the browser, with people each in
 * their own browser context: Alice makes her room private and Bob loses it
 * (list and search); she invites him by link, he joins and talks; she
 * removes him and his open room says so while the room leaves his list.
 * axe on every new page in both themes; 44 px targets on a phone.
 *
 * On the shared server Alice may or may not be the workspace's admin (its
 * first person); Bob never is, as Alice comes first, and nothing here needs
 * more than Alice owning her room.
 */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import {
  composer,
  messageRows,
  PHONE,
  roomMenuAction,
  roomUrl,
  sendFromComposer,
  seriousViolations,
  signedInPeople,
  smallTouchTargets,
  uniqueName,
  useAppAndBrowser
} from "./helpers";

const setup = useAppAndBrowser();

/** Each person in a browser context of their own, closed after each test. */
const person = signedInPeople(setup);

/** axe in the light theme and then the dark one, on the page as it is. */
async function axeBothThemes(page: Page, where: string): Promise<string[]> {
  const found: string[] = [];
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    found.push(...(await seriousViolations(page, `${where} (${colorScheme})`)));
  }
  await page.emulateMedia({ colorScheme: "light" });
  return found;
}

const roomLink = (page: Page, roomId: string) => page.locator(`#room-list a[data-room-id="${roomId}"]`);
const membersDialog = (page: Page) => page.getByRole("dialog", { name: "Members" });

describe("private rooms, invitations and removal", () => {
  it("keeps a private room from Bob until he is invited, and takes it away live when he is removed", async () => {
    const found: string[] = [];
    const alice = await person("Alice");
    await alice.page.goto(setup.app.url);
    await alice.page.getByRole("button", { name: "New room" }).first().waitFor();
    const name = uniqueName("Plans");
    const created = await alice.context.request.post(`${setup.app.url}/api/rooms`, { data: { name } });
    expect(created.status()).toBe(201);
    const room = (await created.json()) as { id: string };
    const marker = uniqueName("secretword");
    await alice.page.goto(roomUrl(setup.app.url, room.id));
    // The room's chunk may still be compiling on a first visit to a busy server.
    await composer(alice.page).waitFor({ timeout: 60_000 });
    await sendFromComposer(alice.page, `The plan is ${marker}`);
    await messageRows(alice.page, "assistant").filter({ hasText: marker }).waitFor({ timeout: 30_000 });

    const bob = await person("Bob");
    await bob.page.goto(setup.app.url);
    await roomLink(bob.page, room.id).waitFor();

    // Alice makes it private from the members panel.
    await roomMenuAction(alice.page, "Members");
    const panel = membersDialog(alice.page);
    const lock = panel.getByRole("switch", { name: "Private room" });
    expect(await lock.getAttribute("aria-checked")).toBe("false");
    await lock.click();
    await expect.poll(() => lock.getAttribute("aria-checked")).toBe("true");
    await alice.page.locator("main header h1").getByText("Private room:").waitFor({ state: "attached" });
    await roomLink(alice.page, room.id).locator("[data-private]").waitFor();

    // Bob's list loses it at once, and search does not find it.
    await roomLink(bob.page, room.id).waitFor({ state: "detached" });
    await bob.page.getByRole("searchbox", { name: "Filter rooms and search messages" }).fill(marker);
    await bob.page.getByText("No messages match.").waitFor();
    // The query itself is echoed ("No rooms match “…”"); no result holds it.
    const results = bob.page.getByRole("region", { name: "Messages matching the search" });
    expect(await results.getByText(marker).count()).toBe(0);
    expect(await bob.page.locator("#room-list").getByText(marker).count()).toBe(0);

    // Alice invites Bob by link.
    await panel.getByRole("button", { name: "Create invitation link" }).click();
    const link = await panel.getByRole("textbox", { name: "Invitation link" }).first().inputValue();
    expect(link).toMatch(/\/invite\//);
    found.push(...(await axeBothThemes(alice.page, "members panel")));

    await bob.page.goto(link);
    await bob.page.getByRole("heading", { name: `Join “${name}”` }).waitFor();
    await bob.page.getByText("Alice invited you").waitFor();
    found.push(...(await axeBothThemes(bob.page, "invitation page")));
    await bob.page.getByRole("button", { name: "Join room" }).click();
    await expect.poll(() => new URL(bob.page.url()).pathname).toBe(`/sub/chat-room/${room.id}`);
    await roomLink(bob.page, room.id).waitFor();
    await expect.poll(() => composer(bob.page).isEnabled()).toBe(true);
    await sendFromComposer(bob.page, "Glad to be in");
    await messageRows(alice.page, "user").filter({ hasText: "Glad to be in" }).waitFor();

    // Bob, a plain member, is told who may invite and remove instead of being offered it.
    await roomMenuAction(bob.page, "Members");
    const bobPanel = membersDialog(bob.page);
    await bobPanel.getByText("Only the room's owner or a workspace admin can invite people to this room.").waitFor();
    expect(await bobPanel.getByRole("switch", { name: "Private room" }).isDisabled()).toBe(true);
    expect(await bobPanel.getByRole("button", { name: /^Remove/ }).count()).toBe(0);
    await bob.page.keyboard.press("Escape");

    // Alice removes Bob: his open room says so, and leaves his list.
    await alice.page.keyboard.press("Escape");
    await roomMenuAction(alice.page, "Members");
    await panel.getByRole("button", { name: "Remove: Bob" }).click();
    await panel.getByRole("button", { name: "Remove Bob" }).click();
    await panel.locator("li[data-member-id]").filter({ hasText: "Bob" }).waitFor({ state: "detached" });
    await bob.page.getByRole("heading", { name: "You no longer have access to this room" }).waitFor();
    await roomLink(bob.page, room.id).waitFor({ state: "detached" });
    found.push(...(await axeBothThemes(bob.page, "access lost")));

    // The used link still works until it expires: Bob could come back; a bad one says it no longer works.
    await bob.page.goto(`${setup.app.url}/invite/not-a-real-token`);
    await bob.page.getByRole("heading", { name: "This invitation no longer works" }).waitFor();

    expect(found).toEqual([]);
    // Three people, a model's answer and axe six times over, on a shared dev server.
  }, 300_000);

  it("lets Alice add Bob, who uses the workspace, by name from the members panel: the room appears in his list and he talks", async () => {
    const alice = await person("Alice");
    await alice.page.goto(setup.app.url);
    await alice.page.getByRole("button", { name: "New room" }).first().waitFor();
    const created = await alice.context.request.post(`${setup.app.url}/api/rooms`, {
      data: { name: uniqueName("Added"), visibility: "private" }
    });
    expect(created.status()).toBe(201);
    const room = (await created.json()) as { id: string };
    // A name no other test's person has on the shared server.
    const bobName = uniqueName("Bob");
    const bob = await person(bobName);
    await bob.page.goto(setup.app.url);
    await bob.page.getByRole("button", { name: "New room" }).first().waitFor();
    expect(await roomLink(bob.page, room.id).count()).toBe(0);

    await alice.page.goto(roomUrl(setup.app.url, room.id));
    await composer(alice.page).waitFor({ timeout: 60_000 });
    await roomMenuAction(alice.page, "Members");
    const panel = membersDialog(alice.page);
    await panel.getByRole("searchbox", { name: "Add people from this workspace" }).fill(bobName);
    await panel
      .getByRole("list", { name: "People you can add" })
      .getByRole("button", { name: `Add ${bobName}` })
      .click();
    await panel.locator("li[data-member-id]").filter({ hasText: bobName }).waitFor();
    await panel.getByText(`No one else here is called “${bobName}”.`).waitFor();

    // Bob's list gains the room live; he opens it and talks.
    await roomLink(bob.page, room.id).click();
    await expect.poll(() => composer(bob.page).isEnabled(), { timeout: 60_000 }).toBe(true);
    await sendFromComposer(bob.page, "Thanks for adding me");
    await messageRows(alice.page, "user").filter({ hasText: "Thanks for adding me" }).waitFor({ timeout: 30_000 });
  }, 180_000);

  it("shows Bob, a member, the owner's settings disabled with who can change them, and changes nothing", async () => {
    const alice = await person("Alice");
    await alice.page.goto(setup.app.url);
    await alice.page.getByRole("button", { name: "New room" }).first().waitFor();
    const created = await alice.context.request.post(`${setup.app.url}/api/rooms`, {
      data: { name: uniqueName("Alice's"), systemPrompt: "Answer in haiku." }
    });
    expect(created.status()).toBe(201);
    const room = (await created.json()) as { id: string };

    const bob = await person("Bob");
    await bob.page.goto(roomUrl(setup.app.url, room.id));
    await composer(bob.page).waitFor({ timeout: 60_000 });
    await bob.page.getByRole("button", { name: "Room settings" }).click();
    const settings = bob.page.getByRole("dialog", { name: "Room settings" });
    const prompt = settings.getByRole("textbox", { name: "System prompt" });
    await expect.poll(() => prompt.isDisabled(), { timeout: 20_000 }).toBe(true);
    expect(await prompt.inputValue()).toBe("Answer in haiku.");
    expect(await settings.getByRole("textbox", { name: "Name", exact: true }).isDisabled()).toBe(true);
    await settings.getByText("Only the room's owner or a workspace admin can change this room's settings.").waitFor();
    const remove = settings.getByRole("button", { name: "Delete room" });
    expect(await remove.isDisabled()).toBe(true);
    expect(await remove.getAttribute("title")).toMatch(/can delete this room/);
    expect(await settings.getByRole("button", { name: "Save changes" }).isDisabled()).toBe(true);
    await settings.getByRole("button", { name: "Cancel" }).click();

    // The room menu keeps Rename and Delete, explained and inert.
    await bob.page.getByRole("button", { name: "More room actions" }).click();
    const rename = bob.page.getByRole("button", { name: "Rename room" });
    expect(await rename.getAttribute("aria-disabled")).toBe("true");
    expect(await rename.getAttribute("title")).toMatch(/can rename this room/);
    // Playwright will not click what says it is disabled; a person can.
    await rename.click({ force: true });
    expect(await bob.page.getByRole("dialog", { name: "Rename room" }).count()).toBe(0);

    // Alice, the owner, may change them.
    await alice.page.goto(roomUrl(setup.app.url, room.id));
    await composer(alice.page).waitFor({ timeout: 60_000 });
    await alice.page.getByRole("button", { name: "Room settings" }).click();
    const hers = alice.page.getByRole("dialog", { name: "Room settings" });
    await hers.getByRole("textbox", { name: "System prompt" }).waitFor();
    expect(await hers.getByRole("textbox", { name: "System prompt" }).isDisabled()).toBe(false);
    expect(await hers.getByRole("button", { name: "Delete room" }).isDisabled()).toBe(false);
  });

  it("keeps a link made before the panel's first list of links arrived", async () => {
    const olive = await person("Olive");
    await olive.page.goto(setup.app.url);
    const created = await olive.context.request.post(`${setup.app.url}/api/rooms`, {
      data: { name: uniqueName("Quick link"), visibility: "private" }
    });
    const room = (await created.json()) as { id: string };
    // The panel's first read of the links (made before any link exists)
    // answers only once the link has been made, as on a slow connection.
    let made!: () => void;
    const linkMade = new Promise<void>((resolve) => (made = resolve));
    let held = false;
    let delivered!: () => void;
    const staleDelivered = new Promise<void>((resolve) => (delivered = resolve));
    await olive.page.route(/\/invites$/, async (route) => {
      if (route.request().method() !== "GET" || held) return route.continue();
      held = true;
      const before = await route.fetch();
      await linkMade;
      await route.fulfill({ response: before });
      delivered();
    });
    olive.page.on("requestfinished", (request) => {
      if (request.method() === "POST" && /\/invites$/.test(request.url())) made();
    });
    await olive.page.goto(roomUrl(setup.app.url, room.id));
    await expect.poll(() => composer(olive.page).isEnabled()).toBe(true);
    await roomMenuAction(olive.page, "Members");
    const panel = membersDialog(olive.page);
    await panel.getByRole("button", { name: "Create invitation link" }).click();
    await expect.poll(() => held).toBe(true);
    const link = panel.getByRole("textbox", { name: "Invitation link" });
    await link.first().waitFor();
    expect(await link.first().inputValue()).toContain("/invite/");
    // The stale list, delivered after (and two frames to render it), did not take the link away.
    await staleDelivered;
    for (let i = 0; i < 2; i++) await olive.page.evaluate(() => new Promise(requestAnimationFrame));
    expect(await link.count()).toBe(1);
  });

  it("gives the members panel and the invitation page 44 px targets on a phone", async () => {
    const phone = { viewport: PHONE, hasTouch: true, isMobile: true } as const;
    const owner = await person("Olive", phone);
    await owner.page.goto(setup.app.url);
    const created = await owner.context.request.post(`${setup.app.url}/api/rooms`, {
      data: { name: uniqueName("Phone members"), visibility: "private" }
    });
    const room = (await created.json()) as { id: string };
    await owner.page.goto(roomUrl(setup.app.url, room.id));
    await expect.poll(() => composer(owner.page).isEnabled()).toBe(true);
    await roomMenuAction(owner.page, "Members");
    const panel = membersDialog(owner.page);
    await panel.getByRole("button", { name: "Create invitation link" }).tap();
    const link = await panel.getByRole("textbox", { name: "Invitation link" }).first().inputValue();
    // The panel's own controls (the room behind it has its own test in people.test.ts).
    expect(await smallTouchTargets(owner.page, "dialog[open]")).toEqual([]);

    const guest = await person("Gus", phone);
    await guest.page.goto(link);
    await guest.page.getByRole("button", { name: "Join room" }).waitFor();
    expect(await smallTouchTargets(guest.page)).toEqual([]);
  });
});
