/**
 * The room's info panel in the browser: opened from the room header, it
 * shows the room's agent tree live (the room streaming while an answer runs,
 * idle after), each persona under the room, tokens used and the daily budget.
 */
import { describe, expect, it } from "vitest";
import {
  captureScreenshot,
  composer,
  newUser,
  rest,
  roomMenuAction,
  roomUrl,
  uniqueName,
  useAppAndBrowser
} from "./helpers";

const setup = useAppAndBrowser();

/**
 * Setup over REST. The dev server's module runner may reload the Worker the
 * first time a code path (a persona facet) loads, failing the request in
 * flight with a 500: such a setup request is tried again.
 */
async function call(path: string, init: { method: string; json: unknown }) {
  for (let attempt = 1; ; attempt++) {
    const response = await fetch(`${setup.app.url}${path}`, {
      method: init.method,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(init.json)
    });
    if (response.ok) return response.json();
    const text = await response.text();
    if (response.status < 500 || attempt === 3) throw new Error(`${init.method} ${path}: ${response.status} ${text}`);
  }
}

describe("the room info panel", () => {
  it("opens from the header and shows the agent tree live, with usage and the daily budget", async () => {
    const room = await rest.createRoom(setup.app.url, { name: uniqueName("Info") });
    await call(`/api/rooms/${room.id}/personas`, { method: "POST", json: { name: "Ada" } });
    await call(`/api/rooms/${room.id}`, { method: "PATCH", json: { dailyTokenBudget: 1_000_000 } });
    await call(`/api/rooms/${room.id}/messages`, { method: "POST", json: { text: "@Ada hello" } });

    const user = await newUser(setup.browser, { displayName: "Ines" });
    await user.page.goto(roomUrl(setup.app.url, room.id));
    await composer(user.page).waitFor({ timeout: 30_000 });
    await roomMenuAction(user.page, "Room info");
    const dialog = user.page.getByRole("dialog", { name: "Room info" });
    await dialog.waitFor({ timeout: 15_000 });
    const tree = dialog.getByTestId("agent-tree");
    await tree.waitFor({ timeout: 15_000 });

    // The room's node carries the room's id (trees of several rooms can be told apart).
    const roomNode = tree.locator(`[data-agent="${room.id}"]`);
    await expect.poll(() => roomNode.getAttribute("data-agent-status")).toBe("idle");
    // The persona that answered is listed under the room, with what it used.
    const ada = tree.locator(`[data-agent]:not([data-agent="${room.id}"])`).filter({ hasText: "@Ada" });
    await expect.poll(() => ada.count()).toBe(1);
    await expect.poll(() => ada.textContent()).toMatch(/[1-9]\d* messages? · .* tokens today, [1-9]/);
    // Usage today (the persona's answer counts) against the room's budget.
    const budget = dialog.getByTestId("room-budget");
    await expect.poll(() => budget.textContent()).toMatch(/[1-9][\d,]* of 1,000,000 tokens used today/);

    // Live: an answer paced over 3 s (many of the poll's intervals) shows the
    // room streaming, then idle again, without reopening.
    const sending = call(`/api/rooms/${room.id}/messages`, {
      method: "POST",
      json: { text: "[[fake:chunks=60,slow=50]] a long answer please" }
    });
    await expect.poll(() => roomNode.getAttribute("data-agent-status"), { timeout: 30_000 }).toBe("streaming");
    await sending;
    await expect.poll(() => roomNode.getAttribute("data-agent-status"), { timeout: 30_000 }).toBe("idle");
    await captureScreenshot(user.page, "room-info");
    await user.context.close();
  }, 240_000);
});
