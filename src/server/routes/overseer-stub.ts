/**
 * How every REST route reaches its workspace's overseer: the workspace from
 * the path (`/api/workspaces/<ws>/…`, or the default one), checked, and the
 * overseer typed once, by the contract the routes call
 * (contracts/overseer-api.ts), never by its class.
 */
import { getAgentByName } from "agents";
import type { Context } from "hono";
import { AppError } from "@/server/app-error";
import type { OverseerRestApi } from "@/server/contracts/overseer-api";
import type { Remote } from "@/server/contracts/remote";
import type { Env } from "@/server/env";
import type { AppEnv } from "@/server/http/access";
import { DEFAULT_WORKSPACE, WORKSPACE_PATTERN } from "@/shared/constants";

/** The overseer's RPC surface as REST uses it. */
export type OverseerRpc = Remote<OverseerRestApi>;

/**
 * A workspace's overseer, by a name already checked (a share token's, or
 * the path's through `overseerFor`). The one cast between the binding and
 * its contract: the stub is the OverseerAgent the binding names, which
 * implements the contract; its own stub type cannot be computed (see Remote).
 */
export async function overseerOf(env: Env, workspace: string): Promise<OverseerRpc> {
  return (await getAgentByName(env.OverseerAgent, workspace)) as unknown as OverseerRpc;
}

export async function overseerFor(c: Context<AppEnv>): Promise<OverseerRpc> {
  const workspace = c.req.param("workspace") ?? DEFAULT_WORKSPACE;
  if (!WORKSPACE_PATTERN.test(workspace)) {
    throw new AppError("bad_request:workspace", 400, "workspace must be 1-64 lowercase letters, digits, _ or -.");
  }
  return overseerOf(c.env, workspace);
}
