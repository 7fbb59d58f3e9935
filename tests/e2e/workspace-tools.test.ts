/**
 * Workspace tools on the People and access page, in the browser: the
 * workspace's admin (the first person to use this file's own app) adds a
 * real MCP server (tests/support/mcp-server.ts; the app runs with
 * MCP_ALLOW_PRIVATE=true to reach it) with the room Tools dialog's own
 * form, sees it ready with its tools and their default policies, and
 * switches one off; axe finds nothing serious on the page. A member reads
 * who may instead, with no form. The routes are in
 * tests/worker/mcp-workspace.test.ts, a room calling the tools in
 * tests/integration/mcp.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { McpServerList } from "@/shared/tools";
import { type McpTestServer, startMcpServer } from "../support/mcp-server";
import { newUser, seriousViolations, uniqueName, useAppAndBrowser } from "./helpers";

const setup = useAppAndBrowser({ vars: { MCP_ALLOW_PRIVATE: "true" } });

let mcpServer: McpTestServer;
beforeAll(async () => {
  mcpServer = await startMcpServer({ weather: uniqueName("weather"), deleted: uniqueName("deleted") });
});
afterAll(async () => {
  await mcpServer?.close();
});

describe("Workspace tools", () => {
  it("lets the admin add a server every room offers and set its tools' policies; a member reads who may", async () => {
    const admin = await newUser(setup.browser, { displayName: "Ada" });
    const page = admin.page;
    await page.goto(`${setup.app.url}/people`);
    await page.getByText("You are an admin of this workspace", { exact: false }).waitFor({ timeout: 60_000 });
    const section = page.getByRole("region", { name: "Workspace tools" });
    await section.getByText("No servers yet.", { exact: false }).waitFor();

    await section.getByLabel("Server name").fill("Shared tools");
    await section.getByLabel("Server address").fill(mcpServer.url);
    await section.getByRole("button", { name: "Add server" }).click();
    const server = section.getByRole("listitem").filter({ hasText: "Shared tools" }).first();
    await server.getByText("Ready", { exact: true }).waitFor({ timeout: 30_000 });
    const weather = section.getByLabel("lookup_weather");
    const deletion = section.getByLabel("delete_everything");
    // Read-only starts allowed, everything else asks first.
    expect(await weather.inputValue()).toBe("allowed");
    expect(await deletion.inputValue()).toBe("ask");
    expect(await seriousViolations(page, "workspace tools")).toEqual([]);

    await weather.selectOption("off");
    const listed = async () => {
      const response = await admin.context.request.get(`${setup.app.url}/api/mcp`);
      return ((await response.json()) as McpServerList).servers[0]?.tools.find((t) => t.name === "lookup_weather");
    };
    await expect.poll(async () => (await listed())?.policy, { timeout: 20_000 }).toBe("off");

    const member = await newUser(setup.browser, { displayName: "Mia" });
    await member.page.goto(`${setup.app.url}/people`);
    await member.page.getByText("You are a member of this workspace", { exact: false }).waitFor({ timeout: 60_000 });
    const theirs = member.page.getByRole("region", { name: "Workspace tools" });
    await theirs.getByText("Only a workspace admin can change the workspace's MCP servers and tools.").waitFor();
    expect(await theirs.getByLabel("Server name").count()).toBe(0);

    await admin.context.close();
    await member.context.close();
  });
});
