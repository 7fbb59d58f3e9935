/**
 * The test tools of tests/support/mcp-server.ts behind OAuth, on a loopback
 * port of the test process: one origin is both the MCP server (the
 * resource) and its authorization server. The MCP SDK's server gives the
 * resource's half: the two metadata documents (`oauthMetadataResponse`) and
 * the bearer check answering 401 with `WWW-Authenticate` pointing at them
 * (`requireBearerAuth`). It has no authorization server, so that half is
 * written here, as small as a client needs: dynamic client registration,
 * an `/authorize` that approves at once (redirects to the client's
 * redirect_uri with a code and the state), and a `/token` that checks the
 * PKCE verifier and hands out an access token.
 */
import { createHash, randomUUID } from "node:crypto";
import {
  getOAuthProtectedResourceMetadataUrl,
  OAuthError,
  OAuthErrorCode,
  oauthMetadataResponse,
  requireBearerAuth
} from "@modelcontextprotocol/server";
import { type McpTestServer, type McpTestServerTexts, serveOnLoopback, testToolsHandler } from "./mcp-server";

export interface McpOAuthTestServer extends McpTestServer {
  /** Every access token handed out (so a test can look for them where they must not be). */
  tokens: string[];
  /** How many sign-ins `/authorize` approved. */
  authorizations: number;
}

interface PendingCode {
  clientId: string;
  redirectUri: string;
  challenge: string;
}

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

export async function startMcpOAuthServer(texts: McpTestServerTexts): Promise<McpOAuthTestServer> {
  const calls: McpTestServer["calls"] = [];
  const tools = testToolsHandler(texts, calls);
  const tokens: string[] = [];
  const codes = new Map<string, PendingCode>();
  const clients = new Set<string>();
  let authorizations = 0;
  // The origin is known once the port is: the handler reads it through this.
  let origin = "";

  const gate = () =>
    requireBearerAuth({
      verifier: {
        async verifyAccessToken(token) {
          if (!tokens.includes(token)) throw new OAuthError(OAuthErrorCode.InvalidToken, "Unknown token.");
          return { token, clientId: "rooms", scopes: [], expiresAt: Math.floor(Date.now() / 1000) + 3600 };
        }
      },
      resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(new URL(`${origin}/mcp`))
    });

  const metadata = () => ({
    oauthMetadata: {
      issuer: origin,
      authorization_endpoint: `${origin}/authorize`,
      token_endpoint: `${origin}/token`,
      registration_endpoint: `${origin}/register`,
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none"]
    },
    resourceServerUrl: new URL(`${origin}/mcp`),
    dangerouslyAllowInsecureIssuerUrl: true
  });

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const documents = oauthMetadataResponse(request, metadata());
    if (documents) return documents;
    if (url.pathname === "/register" && request.method === "POST") {
      const body = (await request.json()) as Record<string, unknown>;
      const clientId = `client-${randomUUID()}`;
      clients.add(clientId);
      return json(
        {
          ...body,
          client_id: clientId,
          client_id_issued_at: Math.floor(Date.now() / 1000),
          token_endpoint_auth_method: "none"
        },
        201
      );
    }
    if (url.pathname === "/authorize" && request.method === "GET") {
      const q = url.searchParams;
      const clientId = q.get("client_id") ?? "";
      const redirectUri = q.get("redirect_uri") ?? "";
      const challenge = q.get("code_challenge") ?? "";
      if (!clients.has(clientId) || !redirectUri || q.get("code_challenge_method") !== "S256" || !challenge) {
        return json({ error: "invalid_request" }, 400);
      }
      const code = randomUUID();
      codes.set(code, { clientId, redirectUri, challenge });
      authorizations++;
      const back = new URL(redirectUri);
      back.searchParams.set("code", code);
      const state = q.get("state");
      if (state) back.searchParams.set("state", state);
      return new Response(null, { status: 302, headers: { location: back.toString() } });
    }
    if (url.pathname === "/token" && request.method === "POST") {
      const form = new URLSearchParams(await request.text());
      const pending = codes.get(form.get("code") ?? "");
      const verifier = form.get("code_verifier") ?? "";
      const challenge = createHash("sha256").update(verifier).digest("base64url");
      if (
        form.get("grant_type") !== "authorization_code" ||
        !pending ||
        pending.challenge !== challenge ||
        pending.redirectUri !== form.get("redirect_uri")
      ) {
        return json({ error: "invalid_grant" }, 400);
      }
      codes.delete(form.get("code") ?? "");
      const token = `tok-${randomUUID()}`;
      tokens.push(token);
      return json({ access_token: token, token_type: "Bearer", expires_in: 3600 });
    }
    if (url.pathname === "/mcp") {
      const auth = await gate()(request);
      if (auth instanceof Response) return auth;
      return tools.fetch(request);
    }
    return json({ error: "not_found" }, 404);
  }

  const served = await serveOnLoopback({ fetch: handle });
  origin = served.origin;
  return {
    url: `${origin}/mcp`,
    calls,
    tokens,
    get authorizations() {
      return authorizations;
    },
    close: served.close
  };
}
