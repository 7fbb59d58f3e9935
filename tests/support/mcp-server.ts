/**
 * A real MCP server for the integration and browser layers: the MCP SDK's
 * server over Streamable HTTP (stateless, a fresh server per request) on a
 * loopback port of the test process. The app reaches it only when it runs
 * with MCP_ALLOW_PRIVATE=true. Its four tools record every call in `calls`:
 * `lookup_weather` (read-only) answers `weather` and the city,
 * `delete_everything` answers `deleted`, `hang` never answers and `huge`
 * answers 10 MB.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";

export interface McpTestServer {
  /** The server's Streamable HTTP endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  /** Every tool call the server received, in order. */
  calls: Array<{ tool: string; args: unknown }>;
  close(): Promise<void>;
}

export interface McpTestServerTexts {
  /** What `lookup_weather` answers, followed by ` in <city>`. */
  weather: string;
  /** What `delete_everything` answers. */
  deleted: string;
}

/** The test tools as a web-standard handler, recording each call in `calls`. */
export function testToolsHandler(
  { weather, deleted }: McpTestServerTexts,
  calls: McpTestServer["calls"]
): { fetch(request: Request): Promise<Response> } {
  return createMcpHandler(() => {
    const server = new McpServer({ name: "test-tools", version: "1.0.0" });
    server.registerTool(
      "lookup_weather",
      {
        description: "The weather in a city.",
        inputSchema: z.object({ city: z.string() }),
        annotations: { readOnlyHint: true }
      },
      async ({ city }) => {
        calls.push({ tool: "lookup_weather", args: { city } });
        return { content: [{ type: "text", text: `${weather} in ${city}` }] };
      }
    );
    server.registerTool(
      "delete_everything",
      { description: "Deletes every record.", inputSchema: z.object({ confirm: z.boolean() }) },
      async ({ confirm }) => {
        calls.push({ tool: "delete_everything", args: { confirm } });
        return { content: [{ type: "text", text: deleted }] };
      }
    );
    server.registerTool("hang", { description: "Never answers.", inputSchema: z.object({}) }, async () => {
      calls.push({ tool: "hang", args: {} });
      return new Promise<never>(() => {});
    });
    server.registerTool("huge", { description: "Answers 10 MB.", inputSchema: z.object({}) }, async () => {
      calls.push({ tool: "huge", args: {} });
      return { content: [{ type: "text", text: "x".repeat(10 * 1024 * 1024) }] };
    });
    return server;
  });
}

/** A web-standard handler served on a loopback port of this process; `origin` is `http://127.0.0.1:<port>`. */
export async function serveOnLoopback(handler: {
  fetch(request: Request): Promise<Response>;
}): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer(async (req, res) => {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (value === undefined || ["connection", "content-length", "transfer-encoding"].includes(name)) continue;
        headers.set(name, Array.isArray(value) ? value.join(", ") : value);
      }
      const hasBody = req.method !== "GET" && req.method !== "HEAD" && chunks.length > 0;
      const response = await handler.fetch(
        new Request(`http://${req.headers.host}${req.url}`, {
          method: req.method,
          headers,
          ...(hasBody ? { body: Buffer.concat(chunks) } : {})
        })
      );
      res.writeHead(response.status, Object.fromEntries(response.headers));
      const reader = response.body?.getReader();
      while (reader) {
        const { done, value } = await reader.read();
        if (done) break;
        res.write(value);
      }
      res.end();
    } catch (error) {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  };
}

export async function startMcpServer(texts: McpTestServerTexts): Promise<McpTestServer> {
  const calls: McpTestServer["calls"] = [];
  const served = await serveOnLoopback(testToolsHandler(texts, calls));
  return { url: `${served.origin}/mcp`, calls, close: served.close };
}
