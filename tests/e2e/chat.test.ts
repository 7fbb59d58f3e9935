/**
 * One person in a room: create, stream, stop, regenerate, edit and resend,
 * errors with Retry, tools, rename, settings, delete.
 */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { MessageVersions } from "../../src/shared/protocol";
import {
  composer,
  log,
  messageRows,
  messageText,
  newUser,
  rest,
  roomMenuAction,
  roomUrl,
  sendFromComposer,
  uniqueName,
  useAppAndBrowser,
  waitFor
} from "./helpers";

const setup = useAppAndBrowser();

async function openRoom(name: string, displayName = "Ada", systemPrompt?: string): Promise<{ page: Page; id: string }> {
  const room = await rest.createRoom(setup.app.url, { name, ...(systemPrompt ? { systemPrompt } : {}) });
  const { page } = await newUser(setup.browser, { displayName });
  await page.goto(roomUrl(setup.app.url, room.id));
  await expect.poll(() => page.getByRole("status", { name: "Connection: Live" }).count()).toBe(1);
  return { page, id: room.id };
}

const lastAssistant = (page: Page) => messageRows(page, "assistant").last();

describe("a room, one person", () => {
  it("creates a room from the dialog and lands in it", async () => {
    const { page } = await newUser(setup.browser, { displayName: "Ada" });
    await page.goto(setup.app.url);
    const name = uniqueName("Created in UI");
    await page.getByRole("complementary", { name: "Rooms sidebar" }).getByRole("button", { name: "New room" }).click();
    const dialog = page.getByRole("dialog", { name: "New room" });
    await dialog.getByRole("textbox", { name: "Name" }).fill(name);
    await dialog.getByRole("textbox", { name: "System prompt" }).fill("Answer briefly.");
    await dialog.getByRole("button", { name: "Create room" }).click();

    await page.waitForURL(/\/sub\/chat-room\/[\w-]+$/);
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe(name);
    await expect
      .poll(() =>
        page
          .getByRole("navigation", { name: "Rooms" })
          .getByRole("link", { name: new RegExp(name) })
          .count()
      )
      .toBe(1);
    const id = page.url().split("/").pop()!;
    const detail = await rest.getRoom(setup.app.url, id);
    expect(detail.name).toBe(name);
    expect(detail.settings.systemPrompt).toBe("Answer briefly.");
    await page.context().close();
  });

  it("streams the answer token by token, then shows it complete", async () => {
    const { page, id } = await openRoom(uniqueName("Streaming"));
    // The last chunk waits for the gate, so the answer is still streaming while the test looks.
    const gate = uniqueName("streaming");
    await sendFromComposer(page, `Count for me [[fake:chunks=30,slow=100,gate=${gate}]]`);

    const answer = lastAssistant(page);
    // A partial answer is on screen before the end arrives.
    await answer.getByText(/t4 /).waitFor();
    const partial = await answer.textContent();
    expect(partial).toContain("t4");
    expect(partial).not.toContain("t29");
    await expect.poll(() => page.getByRole("button", { name: "Stop generating" }).count()).toBe(1);
    await setup.app.fake.openGate(gate);

    await answer.getByText(/t29/).waitFor();
    await expect.poll(() => page.getByRole("button", { name: "Send message" }).count()).toBe(1);
    const user = messageRows(page, "user").last();
    expect(await user.textContent()).toContain("Ada");

    const stored = await waitFor(
      () => rest.messages(setup.app.url, id),
      (p) => p.messages.length === 2 && messageText(p.messages[1]).includes("t29")
    );
    expect(stored.messages[0].metadata?.author).toMatchObject({ name: "Ada" });
    await page.context().close();
  });

  it("stops a streaming answer: the provider request is cancelled and the partial answer stays, marked stopped", async () => {
    const { page, id } = await openRoom(uniqueName("Stopping"));
    const marker = `stop-${Date.now()}`;
    await sendFromComposer(page, `${marker} [[fake:chunks=300,slow=100]]`);
    const request = await setup.app.fake.waitForRequest(marker);
    await lastAssistant(page).getByText(/t3 /).waitFor();

    await page.getByRole("button", { name: "Stop generating" }).click();
    await setup.app.fake.waitForClientClose(request.id, 15_000);

    await lastAssistant(page).getByText("Stopped").waitFor();
    const shown = await lastAssistant(page).textContent();
    expect(shown).toContain("t3");
    expect(shown).not.toContain("t299");
    await expect.poll(() => page.getByRole("button", { name: "Send message" }).count()).toBe(1);

    // The mark and the partial text survive a reload.
    const stored = await waitFor(
      () => rest.messages(setup.app.url, id),
      (p) => p.messages.at(-1)?.metadata?.stopped === true
    );
    expect(messageText(stored.messages.at(-1)!)).toContain("t3");
    await page.reload();
    await lastAssistant(page).getByText("Stopped").waitFor();
    expect(await lastAssistant(page).textContent()).toContain("t3");
    await page.context().close();
  });

  it("regenerates the last answer, replacing it on the server", async () => {
    // The room's system prompt carries the key its answers are scripted by.
    const key = uniqueName("takes");
    const { page, id } = await openRoom(uniqueName("Regenerate"), "Ada", key);
    await setup.app.fake.script(key, { kind: "text", text: "First take on it." });
    await sendFromComposer(page, "Give me a take");
    await lastAssistant(page).getByText("First take on it.").waitFor();
    await expect.poll(() => page.getByRole("button", { name: "Regenerate answer" }).count()).toBe(1);

    await setup.app.fake.script(key, { kind: "text", text: "Second, better take." });
    await page.getByRole("button", { name: "Regenerate answer" }).click();
    await lastAssistant(page).getByText("Second, better take.").waitFor();
    await expect.poll(() => log(page).getByText("First take on it.").count()).toBe(0);

    const stored = await waitFor(
      () => rest.messages(setup.app.url, id),
      (p) => p.messages.length === 2 && messageText(p.messages[1]) === "Second, better take."
    );
    expect(stored.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    await page.reload();
    await lastAssistant(page).getByText("Second, better take.").waitFor();
    expect(await messageRows(page, "assistant").count()).toBe(1);
    await page.context().close();
  });

  it("edits a question and resends it: the new version replaces the rest on screen, the original is kept", async () => {
    const { page, id } = await openRoom(uniqueName("Edit"));
    await sendFromComposer(page, "Original question");
    await lastAssistant(page).getByText("Echo: Original question").waitFor();
    await expect.poll(() => page.getByRole("button", { name: "Send message" }).count()).toBe(1);
    await sendFromComposer(page, "Follow-up question");
    await lastAssistant(page).getByText("Echo: Follow-up question").waitFor();
    await expect.poll(() => page.getByRole("button", { name: "Send message" }).count()).toBe(1);

    const first = messageRows(page, "user").first();
    await first.hover();
    await first.getByRole("button", { name: "Edit message" }).click();
    const editor = first.getByRole("textbox", { name: "Edit message" });
    await editor.fill("Edited question");
    await first.getByRole("button", { name: "Save & send" }).click();

    await lastAssistant(page).getByText("Echo: Edited question").first().waitFor();
    await expect.poll(() => log(page).getByText("Follow-up question").count()).toBe(0);
    await expect.poll(() => messageRows(page).count()).toBe(2);

    const stored = await waitFor(
      () => rest.messages(setup.app.url, id),
      (p) => p.messages.length === 2 && messageText(p.messages[1]) === "Echo: Edited question"
    );
    expect(stored.messages.map(messageText)).toEqual(["Edited question", "Echo: Edited question"]);
    // Nothing was deleted: the original and its thread are version 1.
    const versions = (await fetch(`${setup.app.url}/api/rooms/${id}/messages/${stored.messages[0].id}/versions`).then(
      (r) => r.json()
    )) as MessageVersions;
    expect(versions.versions.map((v) => v.messages.map(messageText))).toEqual([
      ["Original question", "Echo: Original question", "Follow-up question", "Echo: Follow-up question"],
      ["Edited question", "Echo: Edited question"]
    ]);
    await page.reload();
    await lastAssistant(page).getByText("Echo: Edited question").first().waitFor();
    expect(await messageRows(page).count()).toBe(2);
    expect(await log(page).getByText("Original question").count()).toBe(0);
    await page.context().close();
  });

  it("shows a failed answer in place with the reason, and Retry answers it", async () => {
    const { page, id } = await openRoom(uniqueName("Errors"));
    // Three failures: the first try and both SDK retries fail, the fourth works.
    await sendFromComposer(page, `Flaky please [[fake:fail=3,status=500,id=${Date.now()}]]`);
    // Not an alert: the room's status region speaks it (see people.test.ts).
    const alert = lastAssistant(page).locator("[data-answer-error]");
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/failed/i);

    await alert.getByRole("button", { name: "Retry" }).click();
    await lastAssistant(page).getByText("Echo: Flaky please").waitFor();
    await expect.poll(() => lastAssistant(page).locator("[data-answer-error]").count()).toBe(0);
    const stored = await waitFor(
      () => rest.messages(setup.app.url, id),
      (p) => p.messages.length === 2 && !p.messages[1].metadata?.error
    );
    expect(messageText(stored.messages[1])).toBe("Echo: Flaky please");
    await page.context().close();
  });

  it("shows tool calls as compact parts that expand to input and result", async () => {
    const { page } = await openRoom(uniqueName("Tools"));
    await sendFromComposer(page, "What time is it? [[fake:tool=get_current_time,then=It is later than you think.]]");
    await lastAssistant(page).getByText("It is later than you think.").waitFor();
    const tool = lastAssistant(page).locator("details").filter({ hasText: "get_current_time" });
    await tool.getByText("Done").waitFor();
    expect(await tool.getAttribute("open")).toBeNull();
    await tool.locator("summary").click();
    await tool.getByText("Result").waitFor();
    expect(await tool.textContent()).toContain("UTC");
    await page.context().close();
  });

  it("renders Markdown with highlighted code and a copy button", async () => {
    const { page } = await openRoom(uniqueName("Markdown"));
    // What the page said about its lazy chunks, for the failure message: a
    // highlighter that never loads shows why here.
    const said: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") said.push(`${m.type()}: ${m.text().slice(0, 300)}`);
    });
    page.on("requestfailed", (r) => said.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ""}`));
    page.on("response", (r) => {
      if (r.status() >= 400) said.push(`HTTP ${r.status()}: ${r.url()}`);
    });
    const md = encodeURIComponent("Use **this**:\n\n```ts\nconst answer: number = 42;\n```\n\n- one\n- two").replace(
      /\]/g,
      "%5D"
    );
    await sendFromComposer(page, `[[fake:text=${md}]]`);
    const answer = lastAssistant(page);
    await answer.locator("[data-streamdown='strong'], strong", { hasText: "this" }).first().waitFor();
    await answer.getByRole("listitem").filter({ hasText: "two" }).waitFor();
    await answer.getByText("const").first().waitFor();
    // Shiki arrives lazily (a chunk, then the grammar) and colours the tokens,
    // every one of the line: "42" is a token of its own only when the line was
    // tokenized to its end. On a busy CPU a cold grammar used to run out of
    // Shiki's time for the line and leave it in one colour, for the page's
    // life (src/client/lib/warm-highlighter.ts).
    const highlighted = () =>
      answer
        .locator("pre code span span")
        .evaluateAll(
          (spans) =>
            new Set(spans.map((s) => getComputedStyle(s).color)).size > 1 && spans.some((s) => s.textContent === "42")
        );
    await expect
      .poll(highlighted, { timeout: 45_000 })
      .toBe(true)
      .catch((error: Error) => {
        throw new Error(`${error.message}\ncode not highlighted; the page said: ${JSON.stringify(said, null, 1)}`);
      });
    expect(await answer.locator("button[title*='Copy' i], button[aria-label*='Copy' i]").count()).toBeGreaterThan(0);
    await page.context().close();
  }, 240_000);

  it("renames a room and edits its settings", async () => {
    const { page, id } = await openRoom(uniqueName("Rename me"));
    const newName = uniqueName("Renamed");
    await roomMenuAction(page, "Rename room");
    const dialog = page.getByRole("dialog", { name: "Rename room" });
    await dialog.getByRole("textbox", { name: "Room name" }).fill(newName);
    await dialog.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe(newName);
    await expect.poll(() => page.getByRole("navigation", { name: "Rooms" }).getByText(newName).count()).toBe(1);

    await page.getByRole("button", { name: "Room settings" }).click();
    const settings = page.getByRole("dialog", { name: "Room settings" });
    await settings.getByRole("textbox", { name: "System prompt" }).fill("You are a pirate.");
    await settings.getByRole("textbox", { name: "Model" }).fill("fake-model-2");
    await settings.getByRole("spinbutton", { name: "Temperature" }).fill("0.4");
    await settings.getByRole("button", { name: "Save changes" }).click();
    await expect.poll(() => settings.isVisible()).toBe(false);

    const detail = await rest.getRoom(setup.app.url, id);
    expect(detail.name).toBe(newName);
    expect(detail.settings).toMatchObject({
      systemPrompt: "You are a pirate.",
      model: "fake-model-2",
      temperature: 0.4
    });
    await expect
      .poll(() => page.locator("main header").first().getByText("fake-model-2", { exact: true }).count())
      .toBe(1);
    await page.context().close();
  });

  it("deletes a room after confirmation", async () => {
    const name = uniqueName("Delete me");
    const { page, id } = await openRoom(name);
    await roomMenuAction(page, "Delete room");
    const dialog = page.getByRole("dialog", { name: "Delete room?" });
    expect(await dialog.textContent()).toContain(name);
    await dialog.getByRole("button", { name: "Delete room" }).click();
    await page.waitForURL(`${setup.app.url}/`);
    await expect.poll(() => page.getByRole("navigation", { name: "Rooms" }).getByText(name).count()).toBe(0);
    const response = await fetch(`${setup.app.url}/api/rooms/${id}`);
    expect(response.status).toBe(404);
    await page.context().close();
  });

  it("keeps the composer usable from the keyboard: Enter sends, Shift+Enter adds a line", async () => {
    const { page, id } = await openRoom(uniqueName("Keyboard"));
    const box = composer(page);
    await box.click();
    await page.keyboard.type("line one");
    await page.keyboard.press("Shift+Enter");
    await page.keyboard.type("line two");
    expect(await box.inputValue()).toBe("line one\nline two");
    await page.keyboard.press("Enter");
    await lastAssistant(page)
      .getByText(/Echo: line one/)
      .waitFor();
    expect(await box.inputValue()).toBe("");
    const stored = await waitFor(
      () => rest.messages(setup.app.url, id),
      (p) => p.messages.length === 2
    );
    expect(messageText(stored.messages[0])).toBe("line one\nline two");
    await page.context().close();
  });
});
