/**
 * `/mcp`: the workspace as an MCP server (Streamable HTTP) for MCP clients
 * such as Claude Code, Cursor or the MCP inspector; the tools are in
 * mcp-endpoint-tools.ts, the reference in docs/tools.md.
 *
 * Only a named API token opens it (http/access.ts `identifyApiToken`), and
 * it acts in the token's own workspace as the token's identity.
 *
 * The framework serves the protocol: `createMcpHandler` (agents/mcp/server)
 * is stateless, a fresh `McpServer` per request, so no Durable Object and
 * no session sits behind the endpoint. It is made per request rather than
 * once per isolate because its factory closes over the request's caller:
 * the SDK's own per-request input (`authInfo`) is shaped for OAuth, and
 * the caller never travels in it.
 */
import { createMcpHandler } from "agents/mcp/server";
import { Hono } from "hono";
import { AppError } from "@/server/app-error";
import { type AppEnv, identifyApiToken, requireCaller } from "@/server/http/access";
import { endpointServer } from "./mcp-endpoint-tools";
import { overseerOf } from "./overseer-stub";

export const MCP_PATH = "/mcp";

/**
 * A browser client (the MCP inspector) asks first, without credentials:
 * the handler answers its CORS preflight without ever making a server.
 */
const preflight = createMcpHandler(
  () => {
    throw new Error("a CORS preflight makes no MCP server");
  },
  { route: MCP_PATH }
);

export const mcpEndpointRoutes = new Hono<AppEnv>()
  .options("/", (c) => preflight.fetch(c.req.raw))
  .use(identifyApiToken)
  .all("/", async (c) => {
    const caller = requireCaller(c);
    const workspace = caller.tokenWorkspace;
    if (!workspace) throw new AppError("unauthorized:token", 401, "The MCP endpoint needs a personal API token.");
    const overseer = await overseerOf(c.env, workspace);
    const handler = createMcpHandler(() => endpointServer({ overseer, caller }), { route: MCP_PATH });
    return handler.fetch(c.req.raw);
  });
