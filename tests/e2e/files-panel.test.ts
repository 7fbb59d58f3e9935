/**
 * The room's Files panel in the browser: who added each file, when, its
 * size, type and extraction state; a person deletes their own file and not
 * someone else's, and the other person's open panel follows live. A share
 * link's viewer sees the room's files read-only: the panel without any
 * delete, images in messages through the link, and no way to upload.
 */
import type { APIRequestContext, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { RoomFile } from "@/shared/files";
import type { RoomDetail } from "@/shared/protocol";
import { makePdf, PNG_BYTES } from "../support/files";
import { composer, messageRows, newUser, roomMenuAction, roomUrl, uniqueName, useAppAndBrowser } from "./helpers";

const setup = useAppAndBrowser();

async function uploadAs(request: APIRequestContext, roomId: string, name: string, bytes: Uint8Array) {
  const response = await request.post(`${setup.app.url}/api/rooms/${roomId}/files`, {
    multipart: { file: { name, mimeType: "application/octet-stream", buffer: Buffer.from(bytes) } }
  });
  if (response.status() !== 201) throw new Error(`upload failed ${response.status()}: ${await response.text()}`);
  return ((await response.json()) as { file: RoomFile }).file;
}

const panel = (page: Page) => page.getByRole("dialog", { name: "Files" });
const fileRow = (page: Page, file: RoomFile) => panel(page).locator(`li[data-file="${file.id}"]`);

async function openFiles(page: Page) {
  await roomMenuAction(page, "Files");
  await panel(page).getByRole("list", { name: "Files in this room" }).waitFor();
}

describe("the Files panel", () => {
  it("lists who added what, deletes only one's own, and follows other people's changes live", async () => {
    const alice = await newUser(setup.browser, { displayName: "Alice" });
    const bob = await newUser(setup.browser, { displayName: "Bob" });
    const created = await alice.context.request.post(`${setup.app.url}/api/rooms`, {
      data: { name: uniqueName("Files panel") }
    });
    const room = (await created.json()) as RoomDetail;
    const report = await uploadAs(alice.context.request, room.id, "report.pdf", makePdf([["Quarterly report."]]));
    const notes = await uploadAs(bob.context.request, room.id, "notes.md", new TextEncoder().encode("# Bob's notes"));

    await bob.page.goto(roomUrl(setup.app.url, room.id));
    await composer(bob.page).waitFor();
    await openFiles(bob.page);
    const reportRow = fileRow(bob.page, report);
    await reportRow.getByText(/Added by Alice · .* · \d+ KB · application\/pdf/).waitFor();
    await reportRow.getByText("Indexed · 1 passage").waitFor({ timeout: 30_000 });
    expect(await reportRow.getByRole("link", { name: "report.pdf" }).getAttribute("href")).toBe(
      `/api/rooms/${room.id}/files/${report.id}`
    );
    // Alice's file is hers: Bob is offered no delete for it, only for his own.
    expect(await reportRow.getByRole("button", { name: "Delete…" }).count()).toBe(0);
    await fileRow(bob.page, notes).getByText("Added by Bob").waitFor();

    await alice.page.goto(roomUrl(setup.app.url, room.id));
    await composer(alice.page).waitFor();
    await openFiles(alice.page);
    await fileRow(alice.page, notes).waitFor();

    // Bob deletes his notes: gone from his panel, and from Alice's, live.
    await fileRow(bob.page, notes).getByRole("button", { name: "Delete…" }).click();
    await fileRow(bob.page, notes).getByRole("button", { name: "Delete notes.md" }).click();
    await fileRow(bob.page, notes).waitFor({ state: "detached" });
    await fileRow(alice.page, notes).waitFor({ state: "detached" });
    expect((await alice.context.request.get(`${setup.app.url}/api/rooms/${room.id}/files/${notes.id}`)).status()).toBe(
      404
    );

    // Alice adds a file: it shows in Bob's open panel. As the room's owner she may delete anyone's.
    const late = await uploadAs(alice.context.request, room.id, "late.png", PNG_BYTES);
    await fileRow(bob.page, late).getByText("Stored").waitFor();
    await fileRow(alice.page, report).getByRole("button", { name: "Delete…" }).waitFor();
  });

  it("shows a share link's viewer the files read-only: no delete, no upload, images through the link", async () => {
    const alice = await newUser(setup.browser, { displayName: "Alice" });
    const created = await alice.context.request.post(`${setup.app.url}/api/rooms`, {
      data: { name: uniqueName("Shared files") }
    });
    const room = (await created.json()) as RoomDetail;
    const picture = await uploadAs(alice.context.request, room.id, "picture.png", PNG_BYTES);
    const sent = await alice.context.request.post(`${setup.app.url}/api/rooms/${room.id}/messages`, {
      data: { text: "Here is the picture.", files: [picture.id] }
    });
    expect(sent.status()).toBe(200);
    const share = await alice.context.request.post(`${setup.app.url}/api/rooms/${room.id}/shares`, { data: {} });
    const { path } = (await share.json()) as { path: string };
    const token = path.replace(/^\/share\//, "");

    const viewer = await newUser(setup.browser, { signedOut: true });
    await viewer.page.goto(`${setup.app.url}${path}`);
    // The message's image loads through the link, not the member's route (which needs a session).
    const image = messageRows(viewer.page, "user").getByRole("img", { name: "picture.png" });
    await image.waitFor();
    expect(await image.getAttribute("src")).toBe(`/api/share/${token}/files/${picture.id}`);
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(1);

    await viewer.page.getByRole("button", { name: "Files" }).click();
    const row = fileRow(viewer.page, picture);
    await row.getByText(/Added by Alice/).waitFor();
    expect(
      await panel(viewer.page)
        .getByRole("button", { name: /Delete/ })
        .count()
    ).toBe(0);
    const href = await row.getByRole("link", { name: "picture.png" }).getAttribute("href");
    expect(href).toBe(`/api/share/${token}/files/${picture.id}`);
    const bytes = await viewer.context.request.get(`${setup.app.url}${href}`);
    expect(bytes.status()).toBe(200);
    expect(Buffer.from(await bytes.body()).equals(Buffer.from(PNG_BYTES))).toBe(true);

    // No message box, no attach button, and the link has no upload route.
    expect(await viewer.page.getByRole("textbox", { name: /^Message / }).count()).toBe(0);
    expect(await viewer.page.getByRole("button", { name: /Attach/ }).count()).toBe(0);
    const refused = await viewer.context.request.post(`${setup.app.url}/api/share/${token}/files`, {
      multipart: { file: { name: "x.png", mimeType: "image/png", buffer: Buffer.from(PNG_BYTES) } }
    });
    // Refused before any route: a link has no upload (and a form is not the JSON every other write takes).
    expect([404, 415]).toContain(refused.status());
    const asMember = await viewer.context.request.post(`${setup.app.url}/api/rooms/${room.id}/files`, {
      multipart: { file: { name: "x.png", mimeType: "image/png", buffer: Buffer.from(PNG_BYTES) } }
    });
    expect(asMember.status()).toBe(401);
    const listed = await alice.context.request.get(`${setup.app.url}/api/rooms/${room.id}/files`);
    expect(((await listed.json()) as { files: RoomFile[] }).files.map((f) => f.id)).toEqual([picture.id]);
  });
});
