/**
 * With no model provider configured the server answers with its built-in
 * offline model; the room says so.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { previewOf } from "../support/app-build";
import { type DevServer, startDevServer } from "../support/dev-server";
import { launchBrowser, messageRows, newUser, rest, roomUrl, sendFromComposer } from "./helpers";

let server: DevServer;
let browser: Browser;

beforeAll(async () => {
  // The server inherits this process's environment: make sure no provider
  // settings leak in (empty strings would not do, the AI SDK rejects them).
  const saved = { key: process.env.OPENAI_API_KEY, base: process.env.OPENAI_BASE_URL };
  delete process.env.OPENAI_API_KEY;
  delete process.env.OPENAI_BASE_URL;
  try {
    [server, browser] = await Promise.all([
      startDevServer({ vars: { RATE_LIMIT_SCALE: "0" }, ...previewOf(inject("appBuild")) }),
      launchBrowser("shell")
    ]);
  } finally {
    if (saved.key !== undefined) process.env.OPENAI_API_KEY = saved.key;
    if (saved.base !== undefined) process.env.OPENAI_BASE_URL = saved.base;
  }
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("offline model", () => {
  it("tells people the offline model answers, and marks its answers", async () => {
    const room = await rest.createRoom(server.url, { name: "Offline room" });
    const { context, page } = await newUser(browser, { displayName: "Olga", appUrl: server.url });
    await page.goto(roomUrl(server.url, room.id));
    await page.getByText(/No model provider is configured/).waitFor();
    await page.locator("main header").first().getByText("Offline model", { exact: true }).waitFor();

    await sendFromComposer(page, "Hello offline world");
    const answer = messageRows(page, "assistant").last();
    await answer.getByText("offline model", { exact: true }).waitFor();
    await expect.poll(async () => ((await answer.textContent()) ?? "").length).toBeGreaterThan(40);
    const detail = await rest.getRoom(server.url, room.id);
    expect(detail.offline).toBe(true);
    await context.close();
  });
});
