/**
 * How every REST route reaches its workspace's overseer: the workspace from
 * the path (`/api/workspaces/<ws>/…`, or the default one), checked, and the
 * overseer's RPC surface as the routes use it.
 */
import { getAgentByName } from "agents";
import type { Context } from "hono";
import type { OverseerAgent } from "@/server/agents/overseer-agent";
import { AppError } from "@/server/app-error";
import type { AppEnv } from "@/server/http/access";
import { DEFAULT_WORKSPACE, WORKSPACE_PATTERN } from "@/shared/constants";

type RoomsContext = Context<AppEnv>;

type RestMethods =
  | "listRooms"
  | "createRoom"
  | "getRoom"
  | "updateRoom"
  | "deleteRoom"
  | "listMessages"
  | "messageVersions"
  | "sendMessage"
  | "streamMessage"
  | "listTraces"
  | "getTrace"
  | "search"
  | "describeAgents"
  | "workspaceStatus"
  | "workspaceSettings"
  | "updateWorkspaceSettings";

/**
 * The overseer's RPC surface as REST uses it, derived from the class itself.
 * (workers-types maps stub types recursively, and UIMessage is too deep for
 * that mapping.)
 */
export type OverseerRpc = {
  [K in RestMethods]: (...args: Parameters<OverseerAgent[K]>) => Promise<Awaited<ReturnType<OverseerAgent[K]>>>;
};

export async function overseerFor(c: RoomsContext): Promise<OverseerRpc> {
  const workspace = c.req.param("workspace") ?? DEFAULT_WORKSPACE;
  if (!WORKSPACE_PATTERN.test(workspace)) {
    throw new AppError("bad_request:workspace", 400, "workspace must be 1-64 lowercase letters, digits, _ or -.");
  }
  return (await getAgentByName(c.env.OverseerAgent, workspace)) as unknown as OverseerRpc;
}
