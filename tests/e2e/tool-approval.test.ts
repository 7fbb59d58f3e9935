/**
 * An "ask first" tool call approved from another person's browser, against
 * a real MCP server (tests/support/mcp-server.ts) on a loopback port of this
 * process; the app is this file's own, run with MCP_ALLOW_PRIVATE=true to
 * reach it. Olive adds the server to her room and sets `delete_everything`
 * to ask first over REST with her browser's session, as the Tools dialog
 * would. Her question makes the model call it: both her page and Bob's show
 * the approval card while the server has not been called. Bob approves in
 * his browser; the server is called once, Olive's page says Bob decided, and
 * the answer's follow-up reaches both pages. axe finds nothing serious with
 * the card shown. The REST side (a later decision refused, traces) is in
 * tests/integration/mcp.test.ts.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { McpServerList } from "@/shared/tools";
import { toolDirective } from "../support/fake-openai";
import { type McpTestServer, startMcpServer } from "../support/mcp-server";
import {
  composer,
  messageRows,
  newUser,
  roomUrl,
  sendFromComposer,
  seriousViolations,
  uniqueName,
  useAppAndBrowser
} from "./helpers";

const setup = useAppAndBrowser({ vars: { MCP_ALLOW_PRIVATE: "true" } });

const DELETED = `Deleted everything (${uniqueName("receipt")})`;

let mcpServer: McpTestServer;
beforeAll(async () => {
  mcpServer = await startMcpServer({ weather: `Sunny (${uniqueName("forecast")})`, deleted: DELETED });
});
afterAll(async () => {
  await mcpServer?.close();
});

const callsOf = (tool: string) => mcpServer.calls.filter((c) => c.tool === tool);

/** The approval card of the call to `tool` in a page's transcript. */
const approvalCard = (page: Page, tool: string) => page.getByRole("region", { name: `Approval: ${tool}` });

describe("approving a tool call", () => {
  it("shows the ask-first call in both browsers, runs it once when Bob approves, and says he decided", async () => {
    const olive = await newUser(setup.browser, { displayName: "Olive" });
    const api = (path: string) => `${setup.app.url}/api/rooms${path}`;
    const created = await olive.context.request.post(api(""), { data: { name: uniqueName("Approvals") } });
    expect(created.status()).toBe(201);
    const room = (await created.json()) as { id: string };

    // Olive adds the server and sets its deletions to ask first, with her session, as the Tools dialog does.
    const added = await olive.context.request.post(api(`/${room.id}/mcp`), {
      data: { name: "Test tools", url: mcpServer.url }
    });
    expect(added.status(), await added.text()).toBe(201);
    const servers = async () =>
      ((await (await olive.context.request.get(api(`/${room.id}/mcp`))).json()) as McpServerList).servers;
    await expect.poll(async () => (await servers())[0]?.state, { timeout: 30_000 }).toBe("ready");
    const [server] = await servers();
    expect(server.tools.map((t) => t.name)).toContain("delete_everything");
    const policy = await olive.context.request.patch(api(`/${room.id}/mcp/${server.id}/tools/delete_everything`), {
      data: { policy: "ask" }
    });
    expect(policy.status(), await policy.text()).toBe(200);
    expect((await servers())[0].tools.find((t) => t.name === "delete_everything")?.policy).toBe("ask");
    // The name the model calls it by: the room's tool names carry the server's id.
    const callName = `tool_${server.id}_delete_everything`;

    // Both open the room, each in a browser of their own.
    const bob = await newUser(setup.browser, { displayName: "Bob" });
    await Promise.all(
      [olive.page, bob.page].map(async (page) => {
        await page.goto(roomUrl(setup.app.url, room.id));
        // The room's chunk may still be compiling on a first visit to a fresh server.
        await composer(page).waitFor({ timeout: 60_000 });
      })
    );

    const followUp = uniqueName("wiped");
    const marker = uniqueName("wipe");
    await sendFromComposer(olive.page, `${toolDirective(callName, { confirm: true }, followUp)} ${marker} wipe it`);

    // The call waits in both browsers, and nothing has reached the server.
    for (const page of [olive.page, bob.page]) {
      const card = approvalCard(page, "delete_everything");
      await card.waitFor();
      await card.getByText("Waiting for approval").waitFor();
      await card.getByRole("button", { name: "Approve delete_everything" }).waitFor();
      expect(await card.locator("pre").textContent()).toContain('"confirm": true');
    }
    expect(callsOf("delete_everything")).toEqual([]);
    // The card names the server once the approvals list is read; axe then sees it whole.
    await approvalCard(bob.page, "delete_everything").getByText("Test tools").waitFor();
    expect(await seriousViolations(bob.page, "approval card (Bob)")).toEqual([]);
    expect(await seriousViolations(olive.page, "approval card (Olive)")).toEqual([]);
    expect(callsOf("delete_everything")).toEqual([]);

    // Bob approves in his browser.
    await approvalCard(bob.page, "delete_everything")
      .getByRole("button", { name: "Approve delete_everything" })
      .click();

    // The call reaches the server once, and the answer goes on in both browsers.
    await expect.poll(() => callsOf("delete_everything").length).toBe(1);
    expect(callsOf("delete_everything")[0].args).toEqual({ confirm: true });
    for (const page of [olive.page, bob.page]) {
      await messageRows(page, "assistant").getByText(followUp).waitFor();
    }
    // Olive's page says who decided, and offers her no decision of her own.
    const answer = messageRows(olive.page, "assistant");
    await answer.getByText("Approved by Bob.").waitFor();
    expect(await answer.getByRole("button", { name: /^(Approve|Deny) / }).count()).toBe(0);
    expect(callsOf("delete_everything")).toHaveLength(1);

    await olive.context.close();
    await bob.context.close();
  });
});
