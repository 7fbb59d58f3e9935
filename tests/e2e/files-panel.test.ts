/**
 * A room's Files panel in the browser, with two people: it lists every file
 * with who added it, when and its size; each person may delete their own
 * files (with a second click to confirm) and not someone else's, while the
 * room's owner may delete any. axe finds nothing serious in the panel.
 */
import type { BrowserContext } from "playwright-core";
import { describe, expect, it } from "vitest";
import {
  composer,
  roomMenuAction,
  roomUrl,
  seriousViolations,
  signedInPeople,
  uniqueName,
  useAppAndBrowser
} from "./helpers";

const setup = useAppAndBrowser();

/** Each person in a browser context of their own, closed after each test. */
const person = signedInPeople(setup);

/** Uploads a text file as the person whose browser context this is (their session cookie). */
async function upload(context: BrowserContext, roomId: string, name: string, text: string): Promise<string> {
  const response = await context.request.post(`${setup.app.url}/api/rooms/${roomId}/files`, {
    multipart: { file: { name, mimeType: "text/plain", buffer: Buffer.from(text) } },
    // A fresh connection: a kept-alive one the dev server closes as this POST
    // goes out is reset (ECONNRESET), and a POST is not retried.
    headers: { connection: "close" }
  });
  expect(response.status(), await response.text()).toBe(201);
  return ((await response.json()) as { file: { id: string } }).file.id;
}

describe("the Files panel", () => {
  it("lists who added what, lets each person delete their own, and the owner any", async () => {
    const alice = await person("Alice");
    await alice.page.goto(setup.app.url);
    await alice.page.getByRole("button", { name: "New room" }).first().waitFor();
    const created = await alice.context.request.post(`${setup.app.url}/api/rooms`, {
      data: { name: uniqueName("Files panel") }
    });
    expect(created.status()).toBe(201);
    const room = (await created.json()) as { id: string };
    const bob = await person("Bob");
    await bob.page.goto(setup.app.url);
    await upload(alice.context, room.id, "alice-plan.txt", "The plan, by Alice.");
    await upload(bob.context, room.id, "bob-notes.txt", "Notes, by Bob. ".repeat(100));

    await bob.page.goto(roomUrl(setup.app.url, room.id));
    await composer(bob.page).waitFor({ timeout: 60_000 });
    await roomMenuAction(bob.page, "Files");
    const panel = bob.page.getByRole("dialog", { name: "Files" });
    const list = panel.getByRole("list", { name: "Files in this room" });
    const row = (name: string) => list.getByRole("listitem").filter({ hasText: name });
    await row("bob-notes.txt").waitFor();
    await row("alice-plan.txt").waitFor();
    expect(await row("bob-notes.txt").textContent()).toMatch(/Added by Bob · .* · 1 KB/);
    expect(await row("alice-plan.txt").textContent()).toMatch(/Added by Alice/);
    // Bob may delete his own file, not Alice's.
    expect(await row("alice-plan.txt").getByRole("button", { name: "Delete…" }).count()).toBe(0);
    expect(await seriousViolations(bob.page, "files panel")).toEqual([]);

    await row("bob-notes.txt").getByRole("button", { name: "Delete…" }).click();
    await row("bob-notes.txt").getByRole("button", { name: "Delete bob-notes.txt" }).click();
    await expect.poll(() => row("bob-notes.txt").count()).toBe(0);
    const left = await bob.context.request.get(`${setup.app.url}/api/rooms/${room.id}/files`);
    expect(((await left.json()) as { files: Array<{ name: string }> }).files.map((f) => f.name)).toEqual([
      "alice-plan.txt"
    ]);

    // Alice, the owner, may delete anyone's; she keeps hers for now.
    await upload(bob.context, room.id, "bob-second.txt", "Again, by Bob.");
    await alice.page.goto(roomUrl(setup.app.url, room.id));
    await composer(alice.page).waitFor({ timeout: 60_000 });
    await roomMenuAction(alice.page, "Files");
    const hers = alice.page.getByRole("dialog", { name: "Files" }).getByRole("list", { name: "Files in this room" });
    const herRow = (name: string) => hers.getByRole("listitem").filter({ hasText: name });
    await herRow("bob-second.txt").waitFor();
    await expect.poll(() => herRow("bob-second.txt").getByRole("button", { name: "Delete…" }).count()).toBe(1);
    expect(await herRow("alice-plan.txt").getByRole("button", { name: "Delete…" }).count()).toBe(1);
  });
});
