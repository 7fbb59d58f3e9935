/**
 * A room's MCP OAuth callback address (src/server/domain/tools/mcp-oauth.ts):
 * the URL a room registers, the one path the Worker and the overseer's gate
 * let through without a session, the server id an SDK state names, and
 * where the browser goes back to afterwards.
 */
import { describe, expect, it } from "vitest";
import {
  afterSignInPath,
  isMcpCallbackPath,
  mcpCallbackUrl,
  roomIdOfCallbackPath,
  serverIdOfState
} from "@/server/domain/tools/mcp-oauth";

describe("a room's MCP OAuth callback", () => {
  it("is the room's path under its workspace's overseer, on the app's origin", () => {
    const url = mcpCallbackUrl("https://rooms.example.com", "team-a", "r1");
    expect(url).toBe("https://rooms.example.com/agents/overseer-agent/team-a/sub/chat-room/r1/mcp-callback");
    expect(isMcpCallbackPath(new URL(url).pathname)).toBe(true);
    expect(roomIdOfCallbackPath(new URL(url).pathname)).toBe("r1");
    // An id that needs escaping comes back as it was.
    expect(roomIdOfCallbackPath(new URL(mcpCallbackUrl("http://localhost:5173", "default", "a b")).pathname)).toBe(
      "a b"
    );
  });

  it("is that exact path and nothing near it", () => {
    for (const path of [
      "/agents/overseer-agent/ws/sub/chat-room/r1",
      "/agents/overseer-agent/ws/sub/chat-room/r1/mcp-callback/",
      "/agents/overseer-agent/ws/sub/chat-room/r1/mcp-callback/more",
      "/agents/overseer-agent/ws/sub/chat-room/r1/sub/x/y/mcp-callback",
      "/agents/overseer-agent/ws/sub/persona-agent/p1/mcp-callback",
      "/agents/other-agent/ws/sub/chat-room/r1/mcp-callback",
      "/api/rooms/r1/mcp-callback",
      "/mcp-callback"
    ]) {
      expect(isMcpCallbackPath(path), path).toBe(false);
      expect(roomIdOfCallbackPath(path), path).toBeNull();
    }
    expect(roomIdOfCallbackPath("/agents/overseer-agent/ws/sub/chat-room/%E0%A4%A/mcp-callback")).toBeNull();
  });

  it("reads the server id from a state the SDK issued (<nonce>.<serverId>) and nothing else", () => {
    expect(serverIdOfState("n0nce.s1234abcd")).toBe("s1234abcd");
    for (const state of [null, "", "no-dot", "a.b.c", ".s1", "n."])
      expect(serverIdOfState(state), String(state)).toBeNull();
  });

  it("sends the browser back to the room's page, saying why when the sign-in failed", () => {
    expect(afterSignInPath("r1", { signedIn: true, error: null })).toBe("/sub/chat-room/r1");
    const failed = new URL(afterSignInPath("r 1", { signedIn: false, error: "Invalid state" }), "http://x");
    expect(failed.pathname).toBe("/sub/chat-room/r%201");
    expect(failed.searchParams.get("mcp_error")).toBe("Invalid state");
    const long = new URL(afterSignInPath("r1", { signedIn: false, error: "x".repeat(1_000) }), "http://x");
    expect(long.searchParams.get("mcp_error")).toHaveLength(300);
    expect(
      new URL(afterSignInPath("r1", { signedIn: false, error: null }), "http://x").searchParams.get("mcp_error")
    ).toBe("The sign-in failed.");
  });
});
