/**
 * Reactions with three people in one room: Ann reacts to Bob's question
 * from the message's actions, Bob and Carol see it at once with who
 * reacted, Carol joins it with one click and Ann takes hers back; a reload
 * still shows them (history carries them). Then a persona thanked by Bob
 * reacts instead of answering, and everyone sees its emoji and no empty answer.
 */
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { toolDirective } from "../support/fake-openai";
import { restClient } from "../support/rest-client";
import { messageRows, peopleIn, rest, sendFromComposer, uniqueName, useAppAndBrowser } from "./helpers";

const setup = useAppAndBrowser();

const person = peopleIn(setup);

const question = (page: Page, text: string) => messageRows(page, "user").filter({ hasText: text });
const chip = (page: Page, text: string, emoji: string) => question(page, text).locator(`[data-reaction="${emoji}"]`);

it("a reaction shows live for everyone, with who reacted, and each person toggles their own", async () => {
  const room = await rest.createRoom(setup.app.url, { name: uniqueName("Reactions") });
  const [ann, bob, carol] = [
    await person("Ann", room.id),
    await person("Bob", room.id),
    await person("Carol", room.id)
  ];
  const text = uniqueName("Lunch at noon?");
  await sendFromComposer(bob, text);
  await question(ann, text).waitFor();

  await question(ann, text).hover();
  await question(ann, text).getByRole("button", { name: "Add reaction" }).click();
  await ann.getByRole("button", { name: "React with 👍" }).click();

  for (const page of [ann, bob, carol]) {
    await chip(page, text, "👍").waitFor();
    await expect.poll(() => chip(page, text, "👍").innerText()).toContain("1");
  }
  expect(await chip(bob, text, "👍").getAttribute("title")).toBe("👍 by Ann");
  expect(await chip(ann, text, "👍").getAttribute("aria-pressed")).toBe("true");
  expect(await chip(carol, text, "👍").getAttribute("aria-pressed")).toBe("false");

  await chip(carol, text, "👍").click();
  await expect.poll(() => chip(bob, text, "👍").getAttribute("title")).toBe("👍 by Ann, Carol");
  await chip(ann, text, "👍").click();
  await expect.poll(() => chip(bob, text, "👍").getAttribute("title")).toBe("👍 by Carol");
  await expect.poll(() => chip(ann, text, "👍").getAttribute("aria-pressed")).toBe("false");

  await bob.reload();
  await expect.poll(() => chip(bob, text, "👍").getAttribute("title")).toBe("👍 by Carol");

  // A persona reacts instead of answering (the fake model calls its `react` tool).
  const added = await restClient(setup.app.url).call(`/${room.id}/personas`, { method: "POST", json: { name: "Ada" } });
  expect(added.status).toBe(201);
  const thanks = uniqueName("@Ada thanks!");
  await sendFromComposer(bob, `${thanks} ${toolDirective("react", { emoji: "🙏" })}`);
  for (const page of [ann, bob, carol]) {
    await expect.poll(() => chip(page, thanks, "🙏").getAttribute("title")).toBe("🙏 by @Ada");
  }
  // The answer was the reaction: no message of Ada's, empty or not, in the room or on a screen.
  const { messages } = await rest.messages(setup.app.url, room.id);
  expect(messages.filter((m) => m.metadata?.persona)).toEqual([]);
  expect(await carol.locator('[data-persona-name="Ada"]').count()).toBe(0);
});
