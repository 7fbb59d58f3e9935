import { describe, expect, it } from "vitest";
import { readMcpConfig } from "@/server/domain/tools/mcp-config";
import { checkMcpUrl, displayUrl, isPrivateHost } from "@/server/domain/tools/mcp-url";

const strict = { allowPrivate: false };
const dev = { allowPrivate: true };

describe("MCP server addresses", () => {
  it("refuses private, loopback and link-local hosts as written", () => {
    for (const host of [
      "localhost",
      "api.localhost",
      "127.0.0.1",
      "127.9.9.9",
      "0.0.0.0",
      "10.1.2.3",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.0.10",
      "169.254.169.254",
      "100.64.0.1",
      "224.0.0.1",
      "[::1]",
      "[::]",
      "[fe80::1]",
      "[fd12:3456::1]",
      "[::ffff:7f00:1]",
      "printer.local",
      "db.internal"
    ]) {
      expect(isPrivateHost(new URL(`https://${host}/`).hostname), host).toBe(true);
    }
    for (const host of ["mcp.example.com", "8.8.8.8", "172.32.0.1", "[2606:4700::1111]", "192.169.0.1"]) {
      expect(isPrivateHost(new URL(`https://${host}/`).hostname), host).toBe(false);
    }
  });

  it("takes https only, unless private addresses are allowed (development), and never credentials in the url", () => {
    expect(checkMcpUrl("https://mcp.example.com/mcp", strict).hostname).toBe("mcp.example.com");
    expect(() => checkMcpUrl("http://mcp.example.com/mcp", strict)).toThrow(/https/);
    expect(() => checkMcpUrl("https://127.0.0.1:9000/mcp", strict)).toThrow(/MCP_ALLOW_PRIVATE/);
    expect(checkMcpUrl("http://127.0.0.1:9000/mcp", dev).port).toBe("9000");
    expect(() => checkMcpUrl("https://a:b@mcp.example.com/", dev)).toThrow(/headers/);
    expect(() => checkMcpUrl("file:///etc/passwd", dev)).toThrow(/https/);
    expect(() => checkMcpUrl("mcp.example.com", strict)).toThrow(/valid/);
  });

  it("shows an address without its query", () => {
    expect(displayUrl("https://mcp.example.com/mcp?key=secret#x")).toBe("https://mcp.example.com/mcp");
  });
});

describe("MCP limits", () => {
  it("reads the variables, with defaults for unset or nonsense values", () => {
    expect(readMcpConfig({})).toMatchObject({
      allowPrivate: false,
      toolTimeoutMs: 30_000,
      maxResponseBytes: 1024 * 1024,
      approvalTimeoutMs: 600_000
    });
    const set = readMcpConfig({
      MCP_ALLOW_PRIVATE: "true",
      MCP_TOOL_TIMEOUT_MS: "1500",
      MCP_APPROVAL_TIMEOUT_MS: "-4"
    });
    expect(set).toMatchObject({ allowPrivate: true, toolTimeoutMs: 1500, approvalTimeoutMs: 600_000 });
    expect(set.maxResultBytes).toBeLessThan(64 * 1024);
  });
});
