/**
 * Personas in the browser: managing them in room settings, and two people
 * watching a panel stream live, side by side with the synthesis after.
 */
import { describe, expect, it } from "vitest";
import { toolDirective } from "../support/fake-openai";
import { restClient, signIn } from "../support/rest-client";
import { openSocket } from "../support/socket";
import {
  captureScreenshot,
  composer,
  messageRows,
  newUser,
  rest,
  roomUrl,
  slowLine,
  uniqueName,
  useAppAndBrowser
} from "./helpers";

const setup = useAppAndBrowser();

const personaRow = (page: import("playwright-core").Page, name: string) =>
  messageRows(page, "assistant").filter({ has: page.locator(`[data-persona-name="${name}"]`) });

/** Alice and Bob, each signed in, with the room open and Bob's composer ready. */
async function aliceAndBobIn(roomId: string) {
  const alice = await newUser(setup.browser, { displayName: "Alice" });
  const bob = await newUser(setup.browser, { displayName: "Bob" });
  await alice.page.goto(roomUrl(setup.app.url, roomId));
  await bob.page.goto(roomUrl(setup.app.url, roomId));
  await composer(bob.page).waitFor();
  return { alice, bob };
}

describe("personas in the browser", () => {
  it("are added in room settings, and two people watch a panel answer live", async () => {
    const room = await rest.createRoom(setup.app.url, { name: uniqueName("Panel") });
    const alice = await newUser(setup.browser, { displayName: "Alice" });
    const bob = await newUser(setup.browser, { displayName: "Bob" });
    await alice.page.goto(roomUrl(setup.app.url, room.id));
    await bob.page.goto(roomUrl(setup.app.url, room.id));

    // Alice adds two personas through the settings dialog.
    await alice.page.getByRole("button", { name: "Room settings" }).click();
    for (const name of ["Ada", "Grace"]) {
      await alice.page.getByRole("button", { name: "Add persona" }).click();
      const editor = alice.page.getByRole("group", { name: "Persona editor" });
      await editor.getByLabel("Name").fill(name);
      await editor.getByLabel("System prompt").fill(`You are ${name}.`);
      await editor.getByRole("button", { name: "Add persona" }).click();
      await alice.page.locator(`[data-persona="${name}"]`).waitFor();
    }
    await alice.page.keyboard.press("Escape");
    const detail = await rest.getRoom(setup.app.url, room.id);
    expect(detail.id).toBe(room.id);

    // Alice asks the panel from the composer; Bob watches both answers stream.
    // Every answer's last chunk waits for the gate: both still stream while Bob looks.
    const gate = uniqueName("panel");
    await composer(alice.page).fill(`Which language first? [[fake:chunks=40,slow=100,gate=${gate}]]`);
    await alice.page.getByRole("button", { name: "Ask the panel" }).click();

    const names = ["Ada", "Grace"];
    await Promise.all(names.map((name) => personaRow(bob.page, name).getByText(/t4 /).waitFor()));
    // Both still streaming, side by side, when Bob sees them.
    const partial = await Promise.all(names.map((name) => personaRow(bob.page, name).textContent()));
    for (const text of partial) expect(text).not.toContain("t39");
    await captureScreenshot(alice.page, "panel");
    await setup.app.fake.openGate(gate);
    for (const name of names) {
      await personaRow(bob.page, name).getByText(/t39/).waitFor({ timeout: 30_000 });
      await personaRow(alice.page, name).getByText(/t39/).waitFor({ timeout: 30_000 });
    }
    // Then the assistant's synthesis (the question's directive makes the fake
    // stream it too), asked with both panellists' answers by name.
    const synthesis = messageRows(bob.page, "assistant").filter({ hasText: "panel synthesis" });
    await synthesis.getByText(/t39/).waitFor({ timeout: 30_000 });
    const request = (await setup.app.fake.requests("Which language first?")).find((r) =>
      r.lastUserText?.startsWith("Panel question:")
    );
    expect(request?.lastUserText).toContain("@Ada said:");
    expect(request?.lastUserText).toContain("@Grace said:");
    await alice.context.close();
    await bob.context.close();
  });

  it("a person who only watches sees a persona answer live and can stop it", async () => {
    const room = await rest.createRoom(setup.app.url, { name: uniqueName("Stop") });
    const added = await fetch(`${setup.app.url}/api/rooms/${room.id}/personas`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Ada", systemPrompt: "Long-winded. [[fake:chunks=2000,slow=50]]" })
    });
    expect(added.status).toBe(201);
    const { alice, bob } = await aliceAndBobIn(room.id);
    try {
      await composer(alice.page).fill("@Ada tell me everything");
      await composer(alice.page).press("Enter");
      await personaRow(bob.page, "Ada").getByText(/t4 /).waitFor({ timeout: 30_000 });
      const stop = bob.page.getByRole("button", { name: "Stop generating" });
      await stop.click({ timeout: 15_000 });

      for (const page of [bob.page, alice.page]) {
        await personaRow(page, "Ada").getByText("Stopped by Bob").waitFor({ timeout: 30_000 });
        await page.getByRole("button", { name: "Stop generating" }).waitFor({ state: "detached", timeout: 15_000 });
      }
      // A persona's system prompt names its room (whose name is unique).
      const request = (await setup.app.fake.requests(room.name)).find((r) => r.systemText?.includes("Long-winded."));
      expect(request).toBeDefined();
      await setup.app.fake.waitForClientClose(request!.id, 15_000);
    } finally {
      await Promise.all([alice.context.close(), bob.context.close()]);
    }
  });

  it("a delegated task is a live card: two people watch its steps, a third who joins late sees them too, one stops it", async () => {
    const room = await rest.createRoom(setup.app.url, { name: uniqueName("Task") });
    const { alice, bob } = await aliceAndBobIn(room.id);
    const contexts = [alice.context, bob.context];
    try {
      const writeItDown = uniqueName("Write it all down");
      const handOff = toolDirective("delegate", { task: `${writeItDown} [[fake:chunks=2000,slow=50]]` });
      await composer(alice.page).fill(`Please hand this off ${handOff}`);
      await composer(alice.page).press("Enter");

      const card = (page: import("playwright-core").Page) => page.getByRole("region", { name: "Delegated task" });
      for (const page of [alice.page, bob.page]) {
        await card(page).getByText(writeItDown).waitFor({ timeout: 30_000 });
        await card(page).getByText("Running…").waitFor({ timeout: 30_000 });
      }
      // Bob opens the task's work and sees the sub-agent writing.
      await card(bob.page).getByText("The task's work").click({ timeout: 30_000 });
      await card(bob.page).getByText(/t4 /).waitFor({ timeout: 30_000 });
      await card(bob.page)
        .getByText(/1 step/)
        .waitFor({ timeout: 15_000 });
      await expect.poll(() => card(bob.page).getByText(/t4 /).textContent()).not.toContain("t1999");
      // Carol opens the room while the task runs, on a slow line: her
      // socket's frames (the task's work so far, replayed as she joins)
      // reach her page before the page her transcript starts from.
      const carol = await newUser(setup.browser, { displayName: "Carol" });
      contexts.push(carol.context);
      const line = await slowLine(carol.page, room.id);
      await carol.page.goto(roomUrl(setup.app.url, room.id));
      // The room replays the run as her socket joins. Then Dan comes and goes:
      // once the list of who is here without him shows, every frame held
      // before it (the replay among them) has reached her page.
      await line.held((frame) => frame.includes('"agent-tool-event"'));
      const dan = await openSocket(
        restClient(setup.app.url).roomSocketUrl(room.id),
        (await signIn(setup.app.url, "Dan")).headers
      );
      await line.held((frame) => frame.includes('"rooms_presence"') && frame.includes('"Dan"'));
      dan.close();
      let danCame = false;
      await line.held((frame) => {
        if (!frame.includes('"rooms_presence"')) return false;
        danCame ||= frame.includes('"Dan"');
        return danCame && !frame.includes('"Dan"');
      });
      // The held frames reach Carol's page (presence shows the last of them), and only then the page her transcript starts from.
      line.releaseFrames();
      await carol.page.getByRole("button", { name: /^3 people here: / }).waitFor();
      line.releasePage();
      await card(carol.page).getByText("Running…").waitFor({ timeout: 30_000 });
      await card(carol.page).getByText("The task's work").click({ timeout: 30_000 });
      await card(carol.page).getByText(/t4 /).waitFor({ timeout: 30_000 });
      await card(bob.page).getByRole("button", { name: "Stop task" }).click();

      for (const page of [bob.page, alice.page, carol.page]) {
        await card(page).getByText("Stopped", { exact: true }).waitFor({ timeout: 30_000 });
        await card(page).getByRole("button", { name: "Stop task" }).waitFor({ state: "detached", timeout: 15_000 });
      }
      const task = (await setup.app.fake.requests(writeItDown)).find((r) => r.lastUserText?.startsWith(writeItDown));
      expect(task).toBeDefined();
      await setup.app.fake.waitForClientClose(task!.id, 15_000);
      // The assistant's turn went on with the stopped task's outcome.
      await messageRows(alice.page, "assistant")
        .getByText(/Tool said:/)
        .waitFor({ timeout: 30_000 });
    } finally {
      await Promise.all(contexts.map((context) => context.close()));
    }
  });

  it("offers persona names as you type @, from the keyboard", async () => {
    const room = await rest.createRoom(setup.app.url, { name: uniqueName("Mention") });
    for (const name of ["Ada", "Adam", "Grace"]) {
      const added = await fetch(`${setup.app.url}/api/rooms/${room.id}/personas`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name, systemPrompt: `You are ${name}.` })
      });
      expect(added.status).toBe(201);
    }
    const alice = await newUser(setup.browser, { displayName: "Alice" });
    try {
      await alice.page.goto(roomUrl(setup.app.url, room.id));
      const box = composer(alice.page);
      const list = alice.page.getByRole("listbox", { name: "Mention someone" });
      await box.click();
      await box.pressSequentially("Hey @ad");
      await list.waitFor({ timeout: 15_000 });
      await expect.poll(() => list.getByRole("option").allTextContents()).toEqual(["@Ada", "@Adam"]);
      await expect
        .poll(() => box.getAttribute("aria-activedescendant"))
        .toBe(await list.getByRole("option", { name: "@Ada", exact: true }).getAttribute("id"));
      await box.press("ArrowDown");
      await expect.poll(() => list.getByRole("option", { name: "@Adam" }).getAttribute("aria-selected")).toBe("true");
      await box.press("Enter");
      await list.waitFor({ state: "detached" });
      await expect.poll(() => box.inputValue()).toBe("Hey @Adam ");

      // Escape closes the list for that mention; Enter then sends.
      await box.pressSequentially("and @G");
      await list.waitFor();
      await box.press("Escape");
      await list.waitFor({ state: "detached" });
      await box.press("Enter");
      await personaRow(alice.page, "Adam").waitFor({ timeout: 30_000 });
      await expect.poll(() => box.inputValue()).toBe("");
    } finally {
      await alice.context.close();
    }
  });
});
