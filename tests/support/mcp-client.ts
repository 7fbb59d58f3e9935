/**
 * The MCP SDK's own client (Streamable HTTP) on Rooms' `/mcp`, for every
 * layer: the worker layer passes the Worker's fetch, the integration layer
 * the dev server's URL. `call` answers a tool's text block parsed as JSON
 * (every tool of the endpoint answers JSON), or its error text.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

type Fetcher = (request: Request) => Promise<Response>;

interface ToolAnswer {
  isError: boolean;
  /** The text block as sent. */
  text: string;
  /** The text parsed as JSON; undefined for an error's plain sentence. */
  json: any;
}

export interface McpSession {
  client: Client;
  toolNames(): Promise<string[]>;
  call(name: string, args?: Record<string, unknown>): Promise<ToolAnswer>;
  close(): Promise<void>;
}

export async function connectMcp(
  baseUrl: string,
  token: string | null,
  { fetcher, headers = {} }: { fetcher?: Fetcher; headers?: Record<string, string> } = {}
): Promise<McpSession> {
  const transport = new StreamableHTTPClientTransport(new URL("/mcp", baseUrl), {
    requestInit: { headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers } },
    ...(fetcher ? { fetch: (url: string | URL, init?: RequestInit) => fetcher(new Request(url, init)) } : {})
  });
  const client = new Client({ name: "rooms-tests", version: "1.0.0" });
  await client.connect(transport);
  return {
    client,
    async toolNames() {
      return (await client.listTools()).tools.map((tool) => tool.name).sort();
    },
    async call(name, args = {}) {
      const result = await client.callTool({ name, arguments: args });
      const block = (result.content as Array<{ type: string; text?: string }>).find((c) => c.type === "text");
      const text = block?.text ?? "";
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { isError: result.isError === true, text, json };
    },
    close: () => client.close()
  };
}
