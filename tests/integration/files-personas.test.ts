/**
 * Personas and the room's files, through the dev server and the shared fake
 * provider: a persona's request carries the passages the question finds, as
 * the assistant's does, and a persona allowed `search_files` calls it and
 * gets the room's passages back.
 */
import { describe, expect, it } from "vitest";
import type { RoomFile } from "@/shared/files";
import type { Persona } from "@/shared/personas";
import { toolDirective } from "../support/fake-openai";
import { useSharedApp } from "../support/shared-app";
import { uniqueName, waitFor } from "../support/wait";

const app = useSharedApp();

const FACT = "The lighthouse on Gull Island was painted red and white in 1921.";

async function roomWithDocument() {
  const room = await app.api.createRoom();
  const form = new FormData();
  const lines = Array.from({ length: 60 }, (_, i) => `Line ${i + 1} of the coastal survey, about tides and sand.`);
  lines[40] = FACT;
  form.append("file", new Blob([lines.join("\n")]), "survey.txt");
  const uploaded = await app.api.call(`/${room.id}/files`, { method: "POST", body: form });
  expect(uploaded.status).toBe(201);
  const { file } = (await uploaded.json()) as { file: RoomFile };
  await waitFor(
    async () => ((await (await app.api.call(`/${room.id}/files`)).json()) as { files: RoomFile[] }).files,
    (files) => files.some((f) => f.id === file.id && f.state === "indexed"),
    30_000,
    "the survey indexed"
  );
  const made = await app.api.call(`/${room.id}/personas`, {
    method: "POST",
    json: { name: "Keeper", systemPrompt: "You are Keeper.", tools: ["search_files"] }
  });
  expect(made.status).toBe(201);
  return { room, file, persona: (await made.json()) as Persona };
}

describe("personas and the room's files", () => {
  it("get the passages a question finds in their context, like the assistant", async () => {
    const { room } = await roomWithDocument();
    const marker = uniqueName("q");
    const sent = await app.api.send(room.id, `@Keeper ${marker} what colours was the Gull Island lighthouse painted?`);
    expect(sent.status).toBe(200);
    const [request] = await app.fake.requests(marker);
    expect(request.systemText).toContain("You are Keeper.");
    expect(request.systemText).toContain("From the room's files");
    expect(request.systemText).toMatch(/\[1\] survey\.txt, lines? \d+(–\d+)?:\n[\s\S]*painted red and white in 1921/);
  });

  it("may search the room's files with search_files", async () => {
    const { room, file } = await roomWithDocument();
    const marker = uniqueName("tool");
    const call = toolDirective("search_files", { query: "lighthouse painted" }, "Found it.");
    const sent = await app.api.send(room.id, `@Keeper ${marker} ${call}`);
    expect(sent.status).toBe(200);
    const requests = await app.fake.requests(marker);
    // The persona's first request offers the tool; its second carries the tool's result.
    expect(requests[0]?.body.tools?.map((t: { function: { name: string } }) => t.function.name)).toContain(
      "search_files"
    );
    const result = requests
      .flatMap((r) => r.body.messages as Array<{ role: string; content: unknown }>)
      .find((m) => m.role === "tool");
    expect(result).toBeDefined();
    const passages = JSON.parse(String(result?.content)).passages as Array<{
      source: string;
      fileId: string;
      text: string;
    }>;
    expect(passages[0]).toMatchObject({ fileId: file.id, source: expect.stringMatching(/^survey\.txt, line/) });
    expect(passages[0]?.text).toContain(FACT);
  });
});
