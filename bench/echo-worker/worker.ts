/**
 * The relay benchmark's baseline: the least a Worker can do to get model
 * chunks to a WebSocket client.
 *
 *   GET /ws (Upgrade: websocket)
 *     text "ping:<anything>"   → sent straight back (echo round trip)
 *     JSON {"relay": "<url>"}  → fetches that OpenAI-style SSE stream and
 *                                sends one frame {"delta": "..."} per
 *                                content chunk, then {"done": true}
 *
 * The app sends one frame per text delta too, so client-side timing is
 * measured the same way for both.
 */
export default {
  async fetch(request: Request): Promise<Response> {
    if (request.headers.get("Upgrade")?.toLowerCase() !== "websocket") {
      return new Response("echo worker: connect a WebSocket to /ws\n");
    }
    const pair = new WebSocketPair();
    const [client, server] = Object.values(pair);
    server.accept();
    server.addEventListener("message", (event) => {
      const data = typeof event.data === "string" ? event.data : "";
      if (data.startsWith("ping:")) {
        server.send(data);
        return;
      }
      let url: string | undefined;
      try {
        url = (JSON.parse(data) as { relay?: string }).relay;
      } catch {
        // not JSON
      }
      if (url) void relay(url, server);
    });
    return new Response(null, { status: 101, webSocket: client });
  }
};

async function relay(url: string, socket: WebSocket): Promise<void> {
  const response = await fetch(url);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += value;
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (!event.startsWith("data: ") || event === "data: [DONE]") continue;
      const chunk = JSON.parse(event.slice(6)) as { choices?: Array<{ delta?: { content?: string } }> };
      const delta = chunk.choices?.[0]?.delta?.content;
      if (delta) socket.send(JSON.stringify({ delta }));
    }
  }
  socket.send(JSON.stringify({ done: true }));
}
