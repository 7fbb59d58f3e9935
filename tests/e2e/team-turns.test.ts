/**
 * Three people in one room, for what a team does besides asking the AI:
 * - auto mode, chosen in the room's settings: the assistant answers a
 *   question to the room and stays out of small talk, on every screen (the
 *   fake provider's decision: a question gets an answer, tests/support/fake-openai.ts);
 * - catch me up: Carol comes back to a room Alice and Bob filled, asks for a
 *   summary of what she missed, sees it with links to the messages, and
 *   only she sees it.
 */
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { messageRows, peopleIn, rest, sendFromComposer, uniqueName, useAppAndBrowser } from "./helpers";

const setup = useAppAndBrowser();
const person = peopleIn(setup);

/** Sends as the person signed in on `page` (their session), over REST. */
async function sendAs(page: Page, roomId: string, text: string) {
  const response = await page
    .context()
    .request.post(`${setup.app.url}/api/rooms/${roomId}/messages`, { data: { text } });
  expect(response.status()).toBe(200);
}

it("auto mode: the assistant answers Bob's question and stays out of Carol's small talk, for all three", async () => {
  const room = await rest.createRoom(setup.app.url, { name: uniqueName("Auto") });
  const [alice, bob, carol] = [
    await person("Alice", room.id),
    await person("Bob", room.id),
    await person("Carol", room.id)
  ];
  // Alice chooses auto in the room's settings.
  await alice.getByRole("button", { name: "Room settings" }).click();
  const saved = alice.waitForResponse((r) => r.request().method() === "PATCH" && r.url().endsWith(`/rooms/${room.id}`));
  await alice.getByLabel("When a message mentions nobody, who answers?").selectOption("auto");
  expect((await saved).status()).toBe(200);
  await alice.keyboard.press("Escape");

  const smallTalk = uniqueName("lunch");
  await sendFromComposer(carol, `${smallTalk} sounds good, see you at noon`);
  // The decision was asked for, and it was to stay quiet: no answer was asked for.
  await setup.app.fake.waitForRequest(smallTalk, (r) => r.decision === true);
  const question = uniqueName("capital");
  await sendFromComposer(bob, `${question} what is the capital of France?`);
  for (const page of [alice, bob, carol]) {
    await messageRows(page, "assistant")
      .filter({ hasText: `Echo: ${question} what is the capital of France?` })
      .waitFor();
    await messageRows(page, "user").filter({ hasText: smallTalk }).waitFor();
    // Bob's question was answered after Carol's small talk, which never was.
    expect(await messageRows(page, "assistant").filter({ hasText: smallTalk }).count()).toBe(0);
  }
  // Only the decision was asked about the small talk: no answer to it (Bob's question carried it as context).
  const answersToSmallTalk = (await setup.app.fake.requests(smallTalk)).filter(
    (r) => !r.decision && r.lastUserText?.includes(smallTalk)
  );
  expect(answersToSmallTalk).toEqual([]);
});

it("catch me up: Carol gets a summary of what she missed, for her alone, with links to the messages", async () => {
  // People talking among themselves: nobody answers here, so only their messages are new.
  const room = await rest.humansOnlyRoom(setup.app.url, uniqueName("Catch up"));
  await rest.send(setup.app.url, room.id, "Read before");
  const carol = await person("Carol", room.id);
  await messageRows(carol, "user").filter({ hasText: "Read before" }).waitFor();
  // Her read mark has reached the server: her room list counts nothing unread there.
  const carolsRow = carol.getByRole("navigation", { name: "Rooms" }).locator(`a[data-room-id="${room.id}"]`);
  await expect.poll(() => carolsRow.getAttribute("data-unread")).toBe("0");
  await carol.goto(setup.app.url);
  const alice = await person("Alice", room.id);
  const bob = await person("Bob", room.id);

  const first = uniqueName("venue");
  const said = 24;
  for (let i = 0; i < said; i += 2) {
    await sendAs(alice, room.id, i === 0 ? `${first} we book the lake hall` : `Alice ${i}: ${"and more ".repeat(10)}`);
    await sendAs(bob, room.id, `Bob ${i + 1}: ${"agreed, and more ".repeat(8)}`);
  }

  await expect.poll(() => carolsRow.getAttribute("data-unread")).toBe(String(said));
  await carolsRow.click();
  await carol.getByRole("button", { name: "Catch me up" }).click();
  const panel = carol.getByRole("region", { name: "Catch-up, only you see this" });
  await expect.poll(() => panel.textContent(), { timeout: 30_000 }).toContain(`Fake summary of ${said} lines`);
  expect(await panel.textContent()).toContain(first);
  const covered = panel.getByRole("list", { name: "Messages it covers" }).getByRole("link");
  expect(await covered.count()).toBe(said);
  expect(await covered.first().textContent()).toContain(`Alice: ${first} we book the lake hall`);
  // The summary was asked of the room's model, and written nowhere: Alice and Bob see no trace of it.
  await setup.app.fake.waitForRequest(first, (r) => r.summary === true);
  for (const page of [alice, bob]) {
    expect(await page.getByRole("region", { name: "Catch-up, only you see this" }).count()).toBe(0);
    expect(await page.getByText("Fake summary of").count()).toBe(0);
  }
  const stored = (await rest.messages(setup.app.url, room.id)).messages;
  expect(stored.length).toBe(said + 1);

  // A link takes Carol to the message it names, on screen.
  const named = stored.find((m) => JSON.stringify(m.parts).includes(first));
  await covered.first().click();
  await carol.waitForURL((url) => url.searchParams.get("m") === named?.id);
  const target = carol.locator(`[data-message-id="${named?.id}"]`);
  await target.waitFor();
  await expect
    .poll(() =>
      target.evaluate((el) => el.getBoundingClientRect().top >= 0 && el.getBoundingClientRect().top < innerHeight)
    )
    .toBe(true);
});
