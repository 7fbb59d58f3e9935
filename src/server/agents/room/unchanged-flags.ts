/**
 * A room does not rewrite a socket's internal flag to the value it already
 * holds.
 *
 * Why by hand: in agents 0.32 a facet handles every frame from a socket on
 * a fresh view of that connection and stores it again
 * (`DynamicAgentsInternal.storeVirtualConnection`), which writes the
 * connection's tags flag (`_cf_subAgentTags`) whether or not it changed.
 * In a facet that write is a `setState` on the root's socket: an RPC back
 * to the overseer for every frame (a send, a typing ping, a read mark), and
 * every broadcast of the room waits for it to finish (the framework orders
 * broadcasts after pending connection operations). The tags only change
 * when a socket connects, so the write is skipped when the stored value is
 * already the same. If the framework's shape is not what this expects,
 * nothing is patched and every write goes through, as before.
 */

type SetFlag = (connection: unknown, key: string, value: unknown) => void;

interface FlagInternals {
  _unsafe_setConnectionFlag?: SetFlag;
  _dynamicAgents?: { getRawConnectionState?: (connection: unknown) => unknown };
}

/** Whether a flag's stored value is already `value` (flags are JSON: booleans, strings, arrays of strings). */
export function sameFlag(stored: unknown, value: unknown): boolean {
  if (stored === value) return true;
  if (stored === undefined || value === undefined) return false;
  return JSON.stringify(stored) === JSON.stringify(value);
}

export function skipUnchangedFlags(agent: object): boolean {
  const host = agent as FlagInternals;
  const setFlag = host._unsafe_setConnectionFlag;
  const internals = host._dynamicAgents;
  const rawState = internals?.getRawConnectionState;
  if (typeof setFlag !== "function" || typeof rawState !== "function") return false;
  host._unsafe_setConnectionFlag = (connection, key, value) => {
    const stored = rawState.call(internals, connection);
    const current =
      typeof stored === "object" && stored !== null ? (stored as Record<string, unknown>)[key] : undefined;
    if (sameFlag(current, value)) return;
    setFlag.call(agent, connection, key, value);
  };
  return true;
}
