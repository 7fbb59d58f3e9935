/**
 * A private aside with three people in one room: Alice asks the assistant
 * privately from the room menu. The assistant read the room to answer her,
 * but Bob and Carol never see the aside (not on screen, not in history,
 * not in the export), and the room's next answer does not read it. Alice
 * shares it: both see her question and its answer appear, marked.
 */
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { messageRows, peopleIn, rest, roomMenuAction, sendFromComposer, uniqueName, useAppAndBrowser } from "./helpers";

const setup = useAppAndBrowser();
const person = peopleIn(setup);

const asidesSheet = (page: Page) => page.getByRole("dialog", { name: "Ask privately" });

it("answers Alice alone until she shares it; Bob and Carol then see it live, and never before", async () => {
  const room = await rest.createRoom(setup.app.url, { name: uniqueName("Asides") });
  const [alice, bob, carol] = [
    await person("Alice", room.id),
    await person("Bob", room.id),
    await person("Carol", room.id)
  ];
  const before = uniqueName("roomtalk");
  await sendFromComposer(bob, `${before} we pick the blue plan`);
  await messageRows(alice, "assistant")
    .filter({ hasText: `Echo: ${before}` })
    .waitFor();

  // Alice asks privately.
  const secret = uniqueName("secret");
  await roomMenuAction(alice, "Ask privately");
  const sheet = asidesSheet(alice);
  await sheet.getByRole("textbox", { name: "Ask the assistant privately" }).fill(`${secret} which plan did Bob pick?`);
  await sheet.getByRole("button", { name: "Ask privately" }).click();
  const item = sheet.getByRole("list", { name: "Your asides" }).getByRole("listitem").first();
  await item.getByText(`Echo: ${secret} which plan did Bob pick?`).waitFor();
  // The assistant read the room to answer it.
  const [asked] = await setup.app.fake.requests(secret);
  expect(JSON.stringify(asked)).toContain(`${before} we pick the blue plan`);

  // The room goes on; nobody else sees the aside, and the room's next answer does not read it.
  const after = uniqueName("next");
  await sendFromComposer(carol, `${after} shall we start?`);
  await messageRows(bob, "assistant")
    .filter({ hasText: `Echo: ${after}` })
    .waitFor();
  expect(await setup.app.fake.requests(secret)).toHaveLength(1);
  for (const page of [bob, carol]) expect(await page.getByText(secret).count()).toBe(0);
  const exported = await fetch(`${setup.app.url}/api/rooms/${room.id}/export`);
  expect(await exported.text()).not.toContain(secret);

  // Shared: both see it, marked, in the room.
  const shareAnswer = alice.waitForResponse((r) => r.request().method() === "POST" && r.url().endsWith("/share"));
  await item.getByRole("button", { name: "Share to room" }).click();
  expect((await shareAnswer).status()).toBe(200);
  await item.getByText(/shared to the room/).waitFor({ timeout: 30_000 });
  for (const page of [bob, carol]) {
    const question = messageRows(page, "user").filter({ hasText: `${secret} which plan did Bob pick?` });
    await question.getByText("Asked privately, then shared to the room with its answer.").waitFor();
    await messageRows(page, "assistant")
      .filter({ hasText: `Echo: ${secret}` })
      .waitFor();
  }
  expect(await item.getByRole("button", { name: "Share to room" }).count()).toBe(0);
});
