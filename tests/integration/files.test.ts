/**
 * Files through the real dev server (the Vite plugin's workerd and local
 * R2) and a real OpenAI-compatible provider (the shared fake): a question
 * about a document attached earlier reaches the provider with the matching
 * passage in its context, numbered; an image a message carries reaches it
 * as image input when the room's model reads images, and as a note naming
 * it when it does not; the answer cites the passage it used.
 */
import { describe, expect, it } from "vitest";
import type { RoomFile } from "@/shared/files";
import { PNG_BYTES } from "../support/files";
import { useSharedApp } from "../support/shared-app";
import { uniqueName, waitFor } from "../support/wait";

const app = useSharedApp();

async function upload(roomId: string, bytes: Uint8Array<ArrayBuffer> | string, name: string): Promise<RoomFile> {
  const form = new FormData();
  form.append("file", new Blob([bytes]), name);
  const response = await app.api.call(`/${roomId}/files`, { method: "POST", body: form });
  if (response.status !== 201) throw new Error(`upload failed ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { file: RoomFile }).file;
}

async function indexed(roomId: string, fileId: string) {
  await waitFor(
    async () => ((await (await app.api.call(`/${roomId}/files`)).json()) as { files: RoomFile[] }).files,
    (files) => files.some((f) => f.id === fileId && f.state === "indexed"),
    30_000,
    "the document indexed"
  );
}

async function send(roomId: string, text: string, files?: string[]) {
  const response = await app.api.call(`/${roomId}/messages`, { method: "POST", json: { text, files } });
  expect(response.status).toBe(200);
  return (await response.json()) as { assistantMessage: { parts: any[] } };
}

describe("files reach the model", () => {
  it("puts the passage a question finds in the provider's context, numbered, and the answer cites it", async () => {
    const room = await app.api.createRoom();
    const marker = uniqueName("q");
    const lines = Array.from({ length: 120 }, (_, i) => `Line ${i + 1} of the gardening almanac, about soil and rain.`);
    lines[80] = "The tortoise named Bartholomew sleeps under the fig tree every winter.";
    const doc = await upload(room.id, lines.join("\n"), "almanac.txt");
    await indexed(room.id, doc.id);
    // A later, unrelated message: the document was attached earlier in the room.
    await send(room.id, `${uniqueName("chat")} hello there`);

    const key = uniqueName("cite");
    await app.fake.script(key, { kind: "text", text: "Bartholomew sleeps under the fig tree [1]." });
    const { assistantMessage } = await send(room.id, `${marker} ${key} Where does Bartholomew the tortoise sleep?`);

    const [request] = await app.fake.requests(marker);
    const system = request.body.messages[0];
    expect(system.role).toBe("system");
    expect(system.content).toContain("From the room's files");
    expect(system.content).toMatch(
      /\[1\] almanac\.txt, lines \d+–\d+:\n[\s\S]*The tortoise named Bartholomew sleeps under the fig tree/
    );
    const source = assistantMessage.parts.find((p) => p.type === "source-document");
    expect(source).toMatchObject({
      title: expect.stringMatching(/^almanac\.txt, lines/),
      providerMetadata: { rooms: { fileId: doc.id, n: 1 } }
    });
  });

  it("sends an attached image as image input when the room's model reads images, else names it", async () => {
    const room = await app.api.createRoom();
    const image = await upload(room.id, PNG_BYTES, "chart.png");
    const without = uniqueName("noimg");
    await send(room.id, `${without} what is in this chart?`, [image.id]);
    const [plain] = await app.fake.requests(without);
    const plainUser = plain.body.messages.at(-1);
    expect(JSON.stringify(plainUser)).not.toContain("image_url");
    expect(JSON.stringify(plainUser)).toContain("[Attached: chart.png (image, ");

    const patched = await app.api.call(`/${room.id}`, { method: "PATCH", json: { imageInput: true } });
    expect(patched.status).toBe(200);
    const withImage = uniqueName("img");
    await send(room.id, `${withImage} and now?`, [image.id]);
    const [request] = await app.fake.requests(withImage);
    const user = request.body.messages.at(-1);
    const imagePart = user.content.find((p: any) => p.type === "image_url");
    expect(imagePart.image_url.url).toBe(`data:image/png;base64,${Buffer.from(PNG_BYTES).toString("base64")}`);
    // Never a url of ours.
    expect(JSON.stringify(request.body)).not.toContain("/files/");
  });
});
