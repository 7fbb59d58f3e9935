/**
 * Reads the server-sent events of a streamed send (`user-message`, `chunk`…,
 * then `done` or `error`: agents/room/rest-bridge.ts) as they arrive, so
 * `post_message` on the MCP endpoint can stop waiting at its deadline
 * without stopping the answer: the streamed send is the one REST send
 * that hands back the posted message before the turn ends.
 */

export interface SendEvent {
  event: string;
  data: unknown;
}

/** Splits complete events off `buffer`; `rest` is an event still arriving. */
export function takeSendEvents(buffer: string): { events: SendEvent[]; rest: string } {
  const blocks = buffer.split("\n\n");
  const rest = blocks.pop() ?? "";
  const events: SendEvent[] = [];
  for (const block of blocks) {
    let event = "message";
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
    }
    if (data.length === 0) continue;
    try {
      events.push({ event, data: JSON.parse(data.join("\n")) });
    } catch {
      events.push({ event, data: data.join("\n") });
    }
  }
  return { events, rest };
}
