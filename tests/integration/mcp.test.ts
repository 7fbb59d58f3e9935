/**
 * A room's MCP servers through the running app, against a real MCP server:
 * the MCP SDK's server over Streamable HTTP on a loopback port of this
 * process (tests/support/mcp-server.ts; the app runs with MCP_ALLOW_PRIVATE=true to reach it). The
 * room's owner adds it over REST and sets its tools' policies; the fake
 * provider's tool directive makes the model call them. An allowed call runs
 * at once and its result reaches the provider; an "ask first" call waits
 * (the server is not called) until another member approves, and a third
 * member's later decision is refused; both calls are spans of the room's
 * traces; a server that hangs or answers 10 MB gives the model a failed call
 * that says why, and the room keeps answering; removing the server removes
 * its tools. The routes' refusals are in tests/worker/mcp.test.ts.
 *
 * A server of the whole workspace, which an admin adds once, is offered by
 * every room: a member's room calls its allowed tool and the provider reads
 * the result; the admin's policy change and removal reach a room that
 * already holds the list, from its next question on
 * (tests/worker/mcp-workspace.test.ts has that routes' refusals).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ErrorBody } from "@/shared/errors";
import type { McpServerList, McpServerView, ToolApproval, ToolApprovalList } from "@/shared/tools";
import type { TraceDetail, TraceList, TraceSpan } from "@/shared/traces";
import { type RecordedRequest, toolDirective } from "../support/fake-openai";
import { type McpTestServer, startMcpServer } from "../support/mcp-server";
import { type RestClient, request, restClient, type SignedIn, signIn } from "../support/rest-client";
import { useSharedApp } from "../support/shared-app";
import { uniqueName, waitFor } from "../support/wait";

/** A short call deadline, so `hang` is cut off quickly (the default is 30 s). */
const TOOL_TIMEOUT_MS = 4_000;
const app = useSharedApp({ vars: { MCP_ALLOW_PRIVATE: "true", MCP_TOOL_TIMEOUT_MS: String(TOOL_TIMEOUT_MS) } });

const WEATHER = `Sunny, 21 degrees (${uniqueName("forecast")})`;
const DELETED = `Deleted everything (${uniqueName("receipt")})`;

let mcpServer: McpTestServer;
beforeAll(async () => {
  mcpServer = await startMcpServer({ weather: WEATHER, deleted: DELETED });
});
afterAll(async () => {
  await mcpServer?.close();
});

/** The texts of the tool results a provider request carries. */
function toolResults(request: RecordedRequest): string[] {
  const messages = (request.body?.messages ?? []) as Array<{ role: string; content: unknown }>;
  return messages
    .filter((m) => m.role === "tool")
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
}

/** The names of the tools a provider request offers. */
function offeredTools(request: RecordedRequest): string[] {
  const tools = (request.body?.tools ?? []) as Array<{ function?: { name?: string } }>;
  return tools.map((t) => t.function?.name ?? "");
}

async function errorCode(response: Response): Promise<{ status: number; code: string; message: string }> {
  const body = (await response.json()) as ErrorBody;
  return { status: response.status, code: body.error.code, message: body.error.message };
}

interface Room {
  id: string;
  owner: RestClient;
  server: McpServerView;
}

/** A room of Olive's with the test server added and ready, its weather allowed and deletions asked first. */
async function roomWithServer(): Promise<Room> {
  const olive: SignedIn = await signIn(app.url, "Olive");
  const owner = restClient(app.url, { workspace: app.workspace, as: olive });
  const room = await owner.createRoom();
  const added = await owner.call(`/${room.id}/mcp`, {
    method: "POST",
    json: { name: "Test tools", url: mcpServer.url }
  });
  expect(added.status).toBe(201);
  const { id } = (await added.json()) as McpServerView;
  const list = async () => ((await (await owner.call(`/${room.id}/mcp`)).json()) as McpServerList).servers;
  const [server] = await waitFor(
    list,
    (servers) => servers[0]?.state === "ready",
    20_000,
    "the test server ready in the room's list"
  );
  expect(server).toMatchObject({ id, name: "Test tools", url: mcpServer.url, error: null });
  expect(server.tools.map((t) => t.name).sort()).toEqual(["delete_everything", "hang", "huge", "lookup_weather"]);
  // Read-only starts allowed, everything else asks first.
  expect(server.tools.find((t) => t.name === "lookup_weather")?.policy).toBe("allowed");
  expect(server.tools.find((t) => t.name === "delete_everything")?.policy).toBe("ask");

  const policy = async (tool: string, value: string) => {
    const response = await owner.call(`/${room.id}/mcp/${id}/tools/${tool}`, {
      method: "PATCH",
      json: { policy: value }
    });
    expect(response.status, tool).toBe(200);
    expect(((await response.json()) as { policy: string }).policy).toBe(value);
  };
  await policy("lookup_weather", "allowed");
  await policy("delete_everything", "ask");
  await policy("hang", "allowed");
  await policy("huge", "allowed");
  const [listed] = await list();
  expect(Object.fromEntries(listed.tools.map((t) => [t.name, t.policy]))).toEqual({
    lookup_weather: "allowed",
    delete_everything: "ask",
    hang: "allowed",
    huge: "allowed"
  });
  return { id: room.id, owner, server: listed };
}

const callName = (room: Room, tool: string) => `tool_${room.server.id}_${tool}`;

const callsOf = (tool: string) => mcpServer.calls.filter((c) => c.tool === tool);

describe("a real MCP server in a room", () => {
  it("runs an allowed tool at once, waits for a person on an ask-first one, traces both, and drops the tools on removal", async () => {
    const room = await roomWithServer();
    const { owner } = room;

    // 1. An allowed tool runs without anyone approving, and the provider reads its result.
    const city = uniqueName("Oslo");
    const weatherDone = uniqueName("weather-done");
    const weatherCallsBefore = callsOf("lookup_weather").length;
    const asked = await owner.send(
      room.id,
      `${toolDirective(callName(room, "lookup_weather"), { city }, weatherDone)} weather in ${city}?`
    );
    expect(asked.status).toBe(200);
    expect(callsOf("lookup_weather").slice(weatherCallsBefore)).toEqual([{ tool: "lookup_weather", args: { city } }]);
    const [first, second] = await app.fake.requests(city);
    expect(offeredTools(first)).toContain(callName(room, "lookup_weather"));
    expect(offeredTools(first)).toContain(callName(room, "delete_everything"));
    expect(toolResults(first)).toEqual([]);
    expect(toolResults(second).join("\n")).toContain(`${WEATHER} in ${city}`);
    expect(JSON.stringify(asked.body.assistantMessage?.parts)).toContain(weatherDone);

    // 2. An ask-first tool waits: the server is not called until someone approves.
    const marker = uniqueName("wipe");
    const wipeDone = uniqueName("wipe-done");
    const sending = owner.send(
      room.id,
      `${toolDirective(callName(room, "delete_everything"), { confirm: true }, wipeDone)} ${marker} wipe it`
    );
    const approvals = async () =>
      ((await (await owner.call(`/${room.id}/approvals`)).json()) as ToolApprovalList).approvals;
    const [waiting] = await waitFor(approvals, (list) => list.length === 1, 20_000, "one call waiting");
    expect(waiting).toMatchObject({
      tool: "delete_everything",
      server: "Test tools",
      input: { confirm: true },
      askedBy: { name: "Olive" },
      decision: null
    });
    // The answer stopped at the call: the question's turn ends without the tool having run.
    expect((await sending).status).toBe(200);
    expect(callsOf("delete_everything")).toEqual([]);
    const beforeApproval = await app.fake.requests(marker);
    expect(beforeApproval).toHaveLength(1);
    // Only the earlier weather result is in the conversation so far.
    expect(toolResults(beforeApproval[0])).toEqual([expect.stringContaining(WEATHER)]);

    // Bob, another member, approves; the call runs at the server and the provider reads its result.
    const bob = restClient(app.url, { workspace: app.workspace, as: await signIn(app.url, "Bob") });
    const approved = await bob.call(`/${room.id}/approvals/${waiting.toolCallId}`, {
      method: "POST",
      json: { approved: true }
    });
    expect(approved.status).toBe(200);
    expect(((await approved.json()) as ToolApproval).decision).toMatchObject({ approved: true, by: { name: "Bob" } });
    await waitFor(
      async () => callsOf("delete_everything").length,
      (n) => n === 1,
      20_000,
      "delete_everything called once at the server"
    );
    expect(callsOf("delete_everything")[0].args).toEqual({ confirm: true });
    const withResult = await app.fake.waitForRequest(marker, (r) => toolResults(r).length > 1, 20_000);
    expect(toolResults(withResult)).toEqual([expect.stringContaining(WEATHER), expect.stringContaining(DELETED)]);
    await waitFor(
      async () => (await owner.messages(room.id)).messages,
      (messages) => messages.some((m) => m.role === "assistant" && JSON.stringify(m.parts).includes(wipeDone)),
      20_000,
      "the approved answer finished in the room"
    );

    // Carol comes too late: the first decision stands.
    const carol = restClient(app.url, { workspace: app.workspace, as: await signIn(app.url, "Carol") });
    const late = await carol.call(`/${room.id}/approvals/${waiting.toolCallId}`, {
      method: "POST",
      json: { approved: false }
    });
    const refused = await errorCode(late);
    expect(refused).toMatchObject({ status: 409, code: "conflict:approval_decided" });
    expect(refused.message).toContain("Bob");
    expect(callsOf("delete_everything")).toHaveLength(1);
    expect(await approvals()).toEqual([]);

    // 3. The room's traces hold a tool span for each call.
    const toolSpans = await waitFor(
      async () => {
        const { traces } = (await (await owner.call(`/${room.id}/traces`)).json()) as TraceList;
        const spans: TraceSpan[] = [];
        for (const t of traces) {
          const detail = await owner.call(`/${room.id}/traces/${t.traceId}`);
          if (detail.ok) spans.push(...((await detail.json()) as TraceDetail).spans);
        }
        return spans.filter((s) => s.kind === "tool");
      },
      (spans) =>
        [callName(room, "lookup_weather"), callName(room, "delete_everything")].every((name) =>
          spans.some((s) => s.name === `tool ${name}` && s.endedAt !== null)
        ),
      20_000,
      "tool spans of both calls"
    );
    for (const tool of ["lookup_weather", "delete_everything"]) {
      expect(toolSpans.find((s) => s.name === `tool ${callName(room, tool)}`)?.status, tool).toBe("ok");
    }

    // 4. Removing the server removes its tools from the room and from the next question.
    expect((await owner.call(`/${room.id}/mcp/${room.server.id}`, { method: "DELETE" })).status).toBe(204);
    expect(((await (await owner.call(`/${room.id}/mcp`)).json()) as McpServerList).servers).toEqual([]);
    const after = uniqueName("after");
    expect((await owner.send(room.id, `${after} anything else?`)).status).toBe(200);
    const [afterRequest] = await app.fake.requests(after);
    expect(offeredTools(afterRequest).filter((name) => name.startsWith(`tool_${room.server.id}_`))).toEqual([]);
  });

  it("cuts off a call that hangs and one that answers 10 MB with an error that says why, and keeps answering", async () => {
    const room = await roomWithServer();
    const { owner } = room;

    const hung = uniqueName("hang");
    const started = Date.now();
    const hangAnswer = await owner.send(room.id, `${toolDirective(callName(room, "hang"))} ${hung}`);
    expect(hangAnswer.status).toBe(200);
    expect(callsOf("hang").length).toBeGreaterThan(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(TOOL_TIMEOUT_MS);
    const [, hangResult] = await app.fake.requests(hung);
    expect(toolResults(hangResult).join("\n")).toContain(`did not answer within ${TOOL_TIMEOUT_MS} ms`);

    const big = uniqueName("huge");
    const hugeAnswer = await owner.send(room.id, `${toolDirective(callName(room, "huge"))} ${big}`);
    expect(hugeAnswer.status).toBe(200);
    expect(callsOf("huge").length).toBeGreaterThan(0);
    const [, hugeResult] = await app.fake.requests(big);
    expect(toolResults(hugeResult).join("\n")).toMatch(/larger than \d+ bytes; it was cut off/);
    // The result the model read is the error, not the 10 MB.
    expect(JSON.stringify(hugeResult.body).length).toBeLessThan(64 * 1024);

    // The room still answers.
    const next = uniqueName("next");
    const answered = await owner.send(room.id, `${next} still there?`);
    expect(answered.status).toBe(200);
    const [nextRequest] = await app.fake.requests(next);
    expect(nextRequest.lastUserText).toContain(next);
  });
});

describe("a real MCP server of the whole workspace", () => {
  it("is offered by a member's room, its allowed tool runs there, and the admin's changes reach the room", async () => {
    // A workspace of its own: the first person to use it is its admin.
    const ws = uniqueName("ws");
    const ada = await signIn(app.url, "Ada");
    const admin = (path = "", init: Parameters<typeof request>[2] = {}) =>
      request(app.url, `/api/workspaces/${ws}/mcp${path}`, { ...init, headers: ada.headers });
    expect(
      (
        (await (await request(app.url, `/api/workspaces/${ws}/me`, { headers: ada.headers })).json()) as {
          role: string;
        }
      ).role
    ).toBe("admin");
    const added = await admin("", { method: "POST", json: { name: "Shared tools", url: mcpServer.url } });
    expect(added.status).toBe(201);
    const { id } = (await added.json()) as McpServerView;
    const [server] = await waitFor(
      async () => ((await (await admin()).json()) as McpServerList).servers,
      (servers) => servers[0]?.state === "ready",
      20_000,
      "the workspace's server ready in its list"
    );
    expect(server.tools.find((t) => t.name === "lookup_weather")?.policy).toBe("allowed");
    expect(server.tools.find((t) => t.name === "delete_everything")?.policy).toBe("ask");

    // Mia, a member, makes a room: it offers the workspace's tools with their policies.
    const mia = restClient(app.url, { workspace: ws, as: await signIn(app.url, "Mia") });
    const room = await mia.createRoom();
    const weather = `tool_${id}_lookup_weather`;
    const city = uniqueName("Bergen");
    const done = uniqueName("shared-weather-done");
    const callsBefore = callsOf("lookup_weather").length;
    const asked = await mia.send(room.id, `${toolDirective(weather, { city }, done)} weather in ${city}?`);
    expect(asked.status).toBe(200);
    expect(callsOf("lookup_weather").slice(callsBefore)).toEqual([{ tool: "lookup_weather", args: { city } }]);
    const [first, second] = await app.fake.requests(city);
    expect(offeredTools(first)).toContain(weather);
    expect(offeredTools(first)).toContain(`tool_${id}_delete_everything`);
    expect(toolResults(second).join("\n")).toContain(`${WEATHER} in ${city}`);
    expect(JSON.stringify(asked.body.assistantMessage?.parts)).toContain(done);

    // The admin switches the tool off: the room, which holds the list, stops offering it at once.
    const off = await admin(`/${id}/tools/lookup_weather`, { method: "PATCH", json: { policy: "off" } });
    expect(off.status).toBe(200);
    const quiet = uniqueName("quiet");
    expect((await mia.send(room.id, `${quiet} anything?`)).status).toBe(200);
    const [quietRequest] = await app.fake.requests(quiet);
    expect(offeredTools(quietRequest)).not.toContain(weather);
    expect(offeredTools(quietRequest)).toContain(`tool_${id}_delete_everything`);

    // Removing the server removes its tools from the room's next question.
    expect((await admin(`/${id}`, { method: "DELETE" })).status).toBe(204);
    const after = uniqueName("after-workspace");
    expect((await mia.send(room.id, `${after} anything else?`)).status).toBe(200);
    const [afterRequest] = await app.fake.requests(after);
    expect(offeredTools(afterRequest).filter((name) => name.startsWith(`tool_${id}_`))).toEqual([]);
  });
});
