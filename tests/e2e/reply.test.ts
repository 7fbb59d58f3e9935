/**
 * Replies with two people in one room: Bob replies to Alice's message from
 * its actions (the quote goes above his composer; Escape and × cancel it),
 * sends, and both see "↩ Alice: …" above his message, Alice live. Her click
 * on the chip scrolls to her message and highlights it, in the live room;
 * a reload still shows the quote (the room stored it).
 */
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { composer, messageRows, peopleIn, rest, sendFromComposer, uniqueName, useAppAndBrowser } from "./helpers";

const setup = useAppAndBrowser();

const person = peopleIn(setup);

const question = (page: Page, text: string) => messageRows(page, "user").filter({ hasText: text });
const draft = (page: Page) => page.locator("[data-reply-draft]");

/** Opens a message's actions (hover) and chooses Reply. */
async function replyTo(page: Page, text: string) {
  await question(page, text).hover();
  await question(page, text).getByRole("button", { name: "Reply", exact: true }).click();
  await draft(page).waitFor();
}

it("Bob replies to Alice's message from its actions; Alice sees the quote live, and it takes her to her message", async () => {
  const room = await rest.createRoom(setup.app.url, { name: uniqueName("Replies") });
  const alice = await person("Alice", room.id);
  const bob = await person("Bob", room.id);
  const original = uniqueName("Shall we ship on Friday?");
  await sendFromComposer(alice, original);
  await question(bob, original).waitFor();
  const originalId = await question(bob, original).getAttribute("data-message-id");
  // The answer sits right under its question: no "Replying to" chip repeats it.
  const answer = messageRows(bob, "assistant").filter({ hasText: `Echo: ${original}` });
  await answer.waitFor();
  expect(await answer.locator(`[data-reply-to="${originalId}"]`).count()).toBe(0);

  // Reply puts the quote above the composer and the caret in it; Escape cancels it.
  await replyTo(bob, original);
  expect(await draft(bob).innerText()).toContain("Replying to Alice");
  expect(await draft(bob).innerText()).toContain(original);
  await expect.poll(() => composer(bob).evaluate((el) => el === document.activeElement)).toBe(true);
  await composer(bob).press("Escape");
  await draft(bob).waitFor({ state: "detached" });
  // × cancels it too.
  await replyTo(bob, original);
  await draft(bob).getByRole("button", { name: "Cancel the reply to Alice" }).click();
  await draft(bob).waitFor({ state: "detached" });

  await replyTo(bob, original);
  const reply = uniqueName("Yes, after the review");
  await sendFromComposer(bob, reply);
  await draft(bob).waitFor({ state: "detached" });

  const chipOn = (page: Page) => question(page, reply).locator(`[data-reply-to="${originalId}"]`);
  for (const page of [bob, alice]) {
    await chipOn(page).waitFor();
    expect(await chipOn(page).innerText()).toContain(`Alice: ${original}`);
  }

  // In the live room, the chip scrolls to the original and highlights it (no page of its own).
  const originalRow = alice.locator(`[data-message-id="${originalId}"]`);
  await chipOn(alice).click();
  await expect.poll(() => originalRow.getAttribute("data-flash")).toBe("");
  await expect.poll(() => originalRow.evaluate((el) => el === document.activeElement)).toBe(true);
  expect(new URL(alice.url()).searchParams.get("m")).toBeNull();

  // The room stored the quote: a reload shows it.
  await alice.reload();
  await chipOn(alice).waitFor();
  expect(await chipOn(alice).innerText()).toContain(`Alice: ${original}`);
});
