/**
 * A room's one stub to its overseer, resolved once and reused by every call
 * (activity reports, read marks, budget questions).
 *
 * Why not `getAgentByName` (or `parentAgent`, which calls it) per call:
 * each one makes an extra RPC (`__unsafe_ensureInitialized`) before the
 * call itself, on the workspace's one thread. The overseer is the facet's
 * host, so it is up and initialised while the room runs; once resolved, the
 * stub stays good. A call that fails drops the stub, and the next call
 * resolves a fresh one (a stub can break when its object is reset).
 */
import { getAgentByName } from "agents";
import type { OverseerRoomApi } from "@/server/contracts/overseer-api";
import type { Remote } from "@/server/contracts/remote";
import type { Env } from "@/server/env";

/** The overseer as its rooms call it (contracts/overseer-api.ts), never typed by its class. */
type OverseerStub = Remote<OverseerRoomApi>;

export class OverseerLink {
  #stub: Promise<OverseerStub> | null = null;

  constructor(
    private readonly env: Env,
    /** The overseer's instance name, or undefined when the room is not a facet. */
    private readonly overseerName: () => string | undefined
  ) {}

  /** Whether the room has an overseer to call (tests run rooms outside one). */
  get present(): boolean {
    return this.overseerName() !== undefined;
  }

  /** Runs `use` on the overseer; throws what the call threw. Undefined when the room is not a facet. */
  async call<T>(use: (overseer: OverseerStub) => Promise<T>): Promise<T | undefined> {
    const name = this.overseerName();
    if (name === undefined) return undefined;
    // The one cast between the binding and the rooms' contract, which the
    // OverseerAgent behind the binding implements (see Remote for why).
    this.#stub ??= getAgentByName(this.env.OverseerAgent, name) as unknown as Promise<OverseerStub>;
    const stub = this.#stub;
    try {
      return await use(await stub);
    } catch (error) {
      if (this.#stub === stub) this.#stub = null;
      throw error;
    }
  }
}
