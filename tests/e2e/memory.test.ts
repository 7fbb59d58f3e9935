/**
 * A room's memory in the browser: pin a message from its actions, find it
 * in the memory panel beside the summary of what left the window, then
 * open "What the AI saw" on the next answer and find the pin, the summary
 * and the recent window, each with its token count.
 */
import { describe, expect, it } from "vitest";
import type { RoomMemory } from "@/shared/memory";
import { restClient } from "../support/rest-client";
import {
  captureScreenshot,
  messageRows,
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

async function memoryOf(base: string, roomId: string): Promise<RoomMemory> {
  return (await (await restClient(base).call(`/${roomId}/memory`)).json()) as RoomMemory;
}

describe("the room's memory", () => {
  it("pin a message, see it in the memory panel, and find it with the summary and the window in what the AI saw", async () => {
    const base = setup.app.url;
    const room = await rest.createRoom(base, { name: uniqueName("Memory") });
    // About 3,000 tokens each (the context budget is 8,000): the third pushes the first exchange out, and it is summarised.
    for (const n of [1, 2, 3]) {
      await rest.send(base, room.id, `[[fake:text=noted]] Decision ${n} stands. ${"Details follow. ".repeat(740)}`);
    }
    const summarised = await waitFor(
      () => memoryOf(base, room.id),
      (m) => m.summaries.length === 1,
      30_000,
      "a summary"
    );
    await rest.send(base, room.id, "Ship date is 12 March.");

    const user = await newUser(setup.browser, { displayName: "Mia" });
    const page = user.page;
    await page.goto(roomUrl(base, room.id));
    const question = messageRows(page, "user").filter({ hasText: "Ship date is 12 March." });
    await question.hover();
    await question.getByRole("button", { name: "Pin to memory" }).click();
    await question.getByRole("button", { name: "Pinned to memory" }).waitFor();

    await roomMenuAction(page, "Memory");
    const panel = page.getByRole("dialog", { name: "Memory" });
    const pins = panel.getByRole("list", { name: "Pins" });
    await expect.poll(() => pins.textContent()).toContain("Ship date is 12 March.");
    expect(await pins.textContent()).toContain("Pinned by Mia");
    // Exactly the message's text, nothing the fake answered.
    expect(await pins.locator("[data-pin] > p").first().textContent()).toBe("Ship date is 12 March.");
    const summaries = panel.getByRole("list", { name: "Summaries" });
    expect(await summaries.textContent()).toContain(summarised.summaries[0].text.slice(0, 40));
    await captureScreenshot(page, "memory-panel");
    await page.keyboard.press("Escape");

    await sendFromComposer(page, "[[fake:text=The ship date is 12 March.]] When do we ship?");
    const answer = messageRows(page, "assistant").filter({ hasText: "The ship date is 12 March." });
    await answer.waitFor({ timeout: 30_000 });
    await answer.hover();
    await answer.getByRole("button", { name: "What the AI saw" }).click();
    const saw = page.getByRole("dialog", { name: "What the AI saw" });
    const part = (name: string) => saw.locator(`[data-part="${name}"]`);
    await part("pins").waitFor();
    const tokensOf = async (name: string) =>
      Number((await part(name).locator("[data-tokens]").textContent())?.replace(/\D/g, ""));

    expect(await part("pins").textContent()).toContain("Ship date is 12 March.");
    expect(await tokensOf("pins")).toBeGreaterThan(0);
    expect(await part("summaries").textContent()).toContain(summarised.summaries[0].text.slice(0, 40));
    expect(await part("summaries").textContent()).toMatch(/Stands in for \d+ messages/);
    expect(await tokensOf("summaries")).toBeGreaterThan(0);
    expect(await part("window").textContent()).toMatch(/\d+ messages/);
    expect(await tokensOf("window")).toBeGreaterThan(0);
    expect(await saw.getByTestId("context-total").textContent()).toMatch(/tokens of a 8,000-token budget/);
    await captureScreenshot(page, "what-the-ai-saw");
    await user.context.close();
  });
});
