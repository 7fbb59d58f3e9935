/**
 * An answer's trace in the browser: one click from the answer to a
 * waterfall with the queue wait, time to first token, tokens per second and
 * a bar for each span, the tool call included.
 */
import { describe, expect, it } from "vitest";
import {
  captureScreenshot,
  composer,
  messageRows,
  newUser,
  rest,
  roomUrl,
  uniqueName,
  useAppAndBrowser
} from "./helpers";

const setup = useAppAndBrowser();

describe("an answer's trace", () => {
  it("opens as a waterfall from the answer, with a bar per span", async () => {
    const room = await rest.createRoom(setup.app.url, { name: uniqueName("Traced") });
    const user = await newUser(setup.browser, { displayName: "Tracy" });
    await user.page.goto(roomUrl(setup.app.url, room.id));
    await composer(user.page).fill("[[fake:tool=get_current_time,then=It is now.]] what time is it?");
    await composer(user.page).press("Enter");
    const answer = messageRows(user.page, "assistant").last();
    await answer.getByText("It is now.").waitFor({ timeout: 30_000 });

    await answer.hover();
    await answer.getByRole("button", { name: "Show trace" }).click();
    const waterfall = user.page.getByTestId("trace-waterfall");
    await waterfall.waitFor({ timeout: 15_000 });
    const kinds = await waterfall
      .locator("[data-span-kind]")
      .evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.spanKind));
    expect(kinds).toEqual(["request", "queue", "turn", "model", "tool", "model"]);
    const statuses = await waterfall
      .locator("[data-span-status]")
      .evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.spanStatus));
    expect(statuses.every((s) => s === "ok")).toBe(true);
    await expect.poll(() => waterfall.locator('[data-figure="First token"]').textContent()).toMatch(/\d+(\.\d+)? m?s/);
    expect(await waterfall.locator('[data-figure="Queue wait"]').textContent()).toMatch(/\d+(\.\d+)? m?s/);
    expect(await waterfall.getByText("tool get_current_time").count()).toBe(1);
    await captureScreenshot(user.page, "trace-waterfall");
    await user.context.close();
  });
});
