import { describe, expect, it } from "vitest";
import { sameFlag, skipUnchangedFlags } from "@/server/agents/room/unchanged-flags";

/** An agent shaped like agents 0.32's: flags written into a connection's raw state, each write counted. */
function agentWith(raw: Record<string, unknown> | null) {
  const connection = { raw };
  const writes: Array<[string, unknown]> = [];
  const agent = {
    _unsafe_setConnectionFlag(conn: typeof connection, key: string, value: unknown) {
      writes.push([key, value]);
      conn.raw = { ...(conn.raw ?? {}), [key]: value };
    },
    _dynamicAgents: {
      getRawConnectionState: (conn: typeof connection) => conn.raw
    }
  };
  return { agent, connection, writes };
}

describe("a socket's unchanged flags are not written again", () => {
  it("skips a write of the tags the socket already holds, and makes one that changes them", () => {
    const { agent, connection, writes } = agentWith({ _cf_subAgentTags: ["c1", "room"] });
    expect(skipUnchangedFlags(agent)).toBe(true);
    agent._unsafe_setConnectionFlag(connection, "_cf_subAgentTags", ["c1", "room"]);
    expect(writes).toEqual([]);
    agent._unsafe_setConnectionFlag(connection, "_cf_subAgentTags", ["c1", "room", "viewer"]);
    expect(writes).toEqual([["_cf_subAgentTags", ["c1", "room", "viewer"]]]);
  });

  it("writes a flag the socket does not hold yet, and a removal of one it holds", () => {
    const { agent, connection, writes } = agentWith(null);
    skipUnchangedFlags(agent);
    agent._unsafe_setConnectionFlag(connection, "_cf_readonly", true);
    agent._unsafe_setConnectionFlag(connection, "_cf_readonly", true);
    agent._unsafe_setConnectionFlag(connection, "_cf_readonly", undefined);
    expect(writes).toEqual([
      ["_cf_readonly", true],
      ["_cf_readonly", undefined]
    ]);
  });

  it("leaves an agent of another shape alone", () => {
    const agent = { _unsafe_setConnectionFlag: () => {} };
    expect(skipUnchangedFlags(agent)).toBe(false);
  });

  it("compares flags by value", () => {
    expect(sameFlag(["a", "b"], ["a", "b"])).toBe(true);
    expect(sameFlag(["a", "b"], ["b", "a"])).toBe(false);
    expect(sameFlag(undefined, undefined)).toBe(true);
    expect(sameFlag(undefined, null)).toBe(false);
    expect(sameFlag(true, undefined)).toBe(false);
  });
});
