/**
 * The fetch a room's MCP connections use (the SDK's transports take a
 * `fetch` option). It adds what the SDK leaves to us:
 *
 * - every request's URL passes the room's address rules
 *   (domain/tools/mcp-url.ts), so a redirect hop is checked like the URL
 *   someone typed: redirects are never followed by fetch itself
 *   (`redirect: "manual"`); the transport follows same-origin ones through
 *   this function again, and refuses the rest;
 * - a response body larger than the limit is cut with an error that says
 *   so, before it is read into memory (a server answering 10 MB).
 */
import { checkMcpUrl, type McpUrlPolicy } from "@/server/domain/tools/mcp-url";

export interface McpFetchLimits extends McpUrlPolicy {
  /** Bytes of one response body at most. */
  maxResponseBytes: number;
}

class McpResponseTooLarge extends Error {
  constructor(limit: number) {
    super(`The MCP server's response is larger than ${limit} bytes; it was cut off.`);
    this.name = "McpResponseTooLarge";
  }
}

/** A body that errors once more than `limit` bytes have passed. */
function capped(body: ReadableStream<Uint8Array>, limit: number): ReadableStream<Uint8Array> {
  let seen = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > limit) controller.error(new McpResponseTooLarge(limit));
        else controller.enqueue(chunk);
      }
    })
  );
}

export function guardedMcpFetch(limits: McpFetchLimits, base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    checkMcpUrl(request.url, limits);
    const response = await base(request, { redirect: "manual" });
    const declared = Number(response.headers.get("content-length"));
    if (Number.isFinite(declared) && declared > limits.maxResponseBytes) {
      await response.body?.cancel();
      throw new McpResponseTooLarge(limits.maxResponseBytes);
    }
    if (!response.body) return response;
    return new Response(capped(response.body, limits.maxResponseBytes), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers
    });
  };
}
