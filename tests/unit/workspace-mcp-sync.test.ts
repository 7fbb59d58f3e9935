/**
 * A room's copy of the workspace's MCP servers (domain/tools/workspace-mcp-sync.ts):
 * when it asks again, what it connects and drops to match the list, and
 * the default policy of a tool nobody set.
 */
import { describe, expect, it } from "vitest";
import {
  COPY_MAX_AGE_MS,
  copyIsFresh,
  defaultPolicy,
  planSync,
  type WorkspaceMcpServer
} from "@/server/domain/tools/workspace-mcp-sync";

const server = (id: string, generation = 0): WorkspaceMcpServer => ({
  id,
  name: id,
  url: `https://${id}.example.com/mcp`,
  headers: {},
  generation,
  policies: {}
});

describe("a room's copy of the workspace's MCP servers", () => {
  it("is used until it is older than its life, and asked for when missing", () => {
    const learned = 1_000_000;
    expect(copyIsFresh(null, learned)).toBe(false);
    expect(copyIsFresh(learned, learned)).toBe(true);
    expect(copyIsFresh(learned, learned + COPY_MAX_AGE_MS)).toBe(true);
    expect(copyIsFresh(learned, learned + COPY_MAX_AGE_MS + 1)).toBe(false);
    // A clock that went back cannot stretch a copy's life.
    expect(copyIsFresh(learned, learned - 1)).toBe(false);
  });

  it("connects what the room lacks, drops what left the list, and reconnects an older generation", () => {
    expect(planSync(new Map(), [server("wa"), server("wb")])).toEqual({
      connect: [server("wa"), server("wb")],
      drop: []
    });
    expect(
      planSync(
        new Map([
          ["wa", 0],
          ["wb", 0]
        ]),
        [server("wa")]
      )
    ).toEqual({ connect: [], drop: ["wb"] });
    expect(planSync(new Map([["wa", 0]]), [server("wa", 1)])).toEqual({ connect: [server("wa", 1)], drop: [] });
    expect(planSync(new Map([["wa", 2]]), [server("wa", 2)])).toEqual({ connect: [], drop: [] });
    expect(planSync(new Map([["wa", 0]]), [])).toEqual({ connect: [], drop: ["wa"] });
  });

  it("lets a read-only tool run without asking, and asks first for every other", () => {
    expect(defaultPolicy(true)).toBe("allowed");
    expect(defaultPolicy(false)).toBe("ask");
  });
});
