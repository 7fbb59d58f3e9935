/**
 * The Tools dialog's and the approval card's pure rules (src/client/lib/
 * mcp-view.ts): a server's state in words, what the add-server form checks
 * before sending and the body it sends (a token header only when both halves
 * are given), and an "ask first" call read back from its stored tool part.
 */
import { describe, expect, it } from "vitest";
import {
  addServerBody,
  anySettling,
  decisionLine,
  EMPTY_SERVER_DRAFT,
  hasErrors,
  mcpCallParts,
  partApproval,
  prettyArguments,
  serverStateLabel,
  toolCountLabel,
  urlHost,
  validateServerDraft
} from "../../src/client/lib/mcp-view";
import { AddMcpServerBody } from "../../src/shared/tools";

describe("MCP servers in the Tools dialog", () => {
  it("says each connection state in words, and waits only while one is on its way", () => {
    expect(serverStateLabel("ready")).toEqual({ label: "Ready", tone: "ok" });
    expect(serverStateLabel("failed")).toEqual({ label: "Failed", tone: "error" });
    expect(serverStateLabel("connecting")).toEqual({ label: "Connecting…", tone: "busy" });
    expect(serverStateLabel("discovering").tone).toBe("busy");
    expect(serverStateLabel("authenticating").label).toBe("Needs sign-in");
    // A server waiting for someone to sign in is not polled: the sign-in brings the browser back.
    expect(anySettling(["ready", "authenticating"])).toBe(false);
    expect(anySettling(["ready", "failed"])).toBe(false);
    expect(anySettling(["ready", "connecting"])).toBe(true);
    expect(anySettling([])).toBe(false);
  });

  it("shows a server's host and its tool count", () => {
    expect(urlHost("https://mcp.example.com:8443/mcp")).toBe("mcp.example.com:8443");
    expect(urlHost("not a url")).toBe("not a url");
    expect(toolCountLabel(1)).toBe("1 tool");
    expect(toolCountLabel(0)).toBe("0 tools");
  });
});

describe("the add-server form", () => {
  const filled = { name: " Tracker ", url: " https://mcp.example.com/mcp ", headerName: "", headerValue: "" };

  it("asks for a name and an address, and for both halves of a header or neither", () => {
    expect(validateServerDraft(EMPTY_SERVER_DRAFT)).toEqual({ name: expect.any(String), url: expect.any(String) });
    expect(hasErrors(validateServerDraft(filled))).toBe(false);
    expect(validateServerDraft({ ...filled, headerName: "Authorization" }).header).toMatch(/value/);
    expect(validateServerDraft({ ...filled, headerValue: "Bearer x" }).header).toMatch(/name/);
    // The server's rules (https, private addresses) are the server's to say.
    expect(hasErrors(validateServerDraft({ ...filled, url: "http://127.0.0.1:1/mcp" }))).toBe(false);
  });

  it("sends trimmed fields the shared schema takes, and a header only with its value, as typed", () => {
    const plain = addServerBody(filled);
    expect(plain).toEqual({ name: "Tracker", url: "https://mcp.example.com/mcp" });
    expect(AddMcpServerBody.safeParse(plain).success).toBe(true);
    const withToken = addServerBody({ ...filled, headerName: " Authorization ", headerValue: "Bearer  s3cret " });
    expect(withToken.headers).toEqual({ Authorization: "Bearer  s3cret " });
    expect(AddMcpServerBody.safeParse(withToken).success).toBe(true);
  });
});

describe("an ask-first call in the answer", () => {
  it("reads a room MCP tool's call name, and leaves built-in tools alone", () => {
    expect(mcpCallParts("tool_s0a1b2c3d_create_issue")).toEqual({ serverId: "s0a1b2c3d", tool: "create_issue" });
    // A workspace server's tools, which every room offers, are split the same way.
    expect(mcpCallParts("tool_w0a1b2c3d_lookup_weather")).toEqual({ serverId: "w0a1b2c3d", tool: "lookup_weather" });
    expect(mcpCallParts("search_room_history")).toBeNull();
    expect(mcpCallParts("tool_sXYZ_create")).toBeNull();
  });

  it("says who decided, or that nobody did, from whatever the part holds", () => {
    expect(partApproval(undefined)).toBeUndefined();
    expect(decisionLine(partApproval({ id: "a" }))).toBeNull();
    const byMia = partApproval({ id: "a", approved: true, decidedBy: { name: "Mia" }, decidedAt: 1 });
    expect(byMia).toEqual({ approved: true, reason: undefined, decidedBy: "Mia" });
    expect(decisionLine(byMia)).toBe("Approved by Mia.");
    expect(decisionLine(partApproval({ approved: false, reason: "Denied by Noor." }))).toBe("Denied by Noor.");
    expect(decisionLine(partApproval({ approved: false, decidedBy: null }))).toBe("Denied.");
    expect(partApproval({ approved: "yes", decidedBy: { name: 3 } })).toEqual({
      approved: undefined,
      reason: undefined,
      decidedBy: undefined
    });
  });

  it("shows arguments as indented JSON text, cut short when huge", () => {
    expect(prettyArguments({ title: "<b>x</b>" })).toBe('{\n  "title": "<b>x</b>"\n}');
    expect(prettyArguments(undefined)).toBe("{}");
    expect(prettyArguments({ long: "x".repeat(50) }, 20)).toMatch(/…$/);
  });
});
