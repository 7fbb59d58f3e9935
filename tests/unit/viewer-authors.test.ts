import { describe, expect, it } from "vitest";
import { forViewer, frameForViewer } from "../../src/server/domain/access/viewer-authors";
import type { MessagePage } from "../../src/shared/protocol";

const ann = { id: "u_ann", name: "Ann" };
const page: MessagePage = {
  messages: [
    { id: "m1", role: "user", parts: [], metadata: { author: ann } },
    { id: "m2", role: "assistant", parts: [], metadata: { stoppedBy: ann } },
    { id: "m3", role: "user", parts: [], metadata: { author: "Old name" as never } }
  ],
  nextCursor: null,
  reactions: { m1: [{ emoji: "👍", by: [ann] }] }
};

describe("what a share link's viewer sees of authors", () => {
  it("keeps names and replaces every identity id with one alias per share", async () => {
    const seen = forViewer(page, "share-1");
    expect(JSON.stringify(seen)).not.toContain("u_ann");
    const alias = seen.messages[0]?.metadata?.author;
    expect(alias?.name).toBe("Ann");
    expect(seen.messages[1]?.metadata?.stoppedBy).toEqual(alias);
    expect(seen.reactions?.m1?.[0]?.by).toEqual([alias]);
    expect(seen.messages[2]?.metadata?.author).toBe("Old name");
    const other = forViewer(page, "share-2");
    expect(other.messages[0]?.metadata?.author?.id).not.toBe(alias?.id);
  });
});

describe("a socket frame as a viewer gets it", () => {
  it("leaves a frame that names nobody as the same string", () => {
    const delta = JSON.stringify({
      type: "cf_agent_use_chat_response",
      id: "r1",
      body: '{"type":"text-delta","delta":"hi"}'
    });
    expect(frameForViewer(delta, "share-1")).toBe(delta);
  });

  it("aliases people in the frame and in a streamed chunk's JSON body, with the REST page's alias", () => {
    const alias = forViewer(page, "share-1").messages[0]?.metadata?.author?.id;
    const messages = JSON.stringify({ type: "cf_agent_chat_messages", messages: page.messages });
    const chunk = JSON.stringify({
      type: "cf_agent_use_chat_response",
      id: "r1",
      body: JSON.stringify({ type: "start", messageMetadata: { author: ann, persona: { id: "p1", name: "Ada" } } })
    });
    for (const frame of [messages, chunk]) {
      const seen = frameForViewer(frame, "share-1");
      expect(seen).not.toContain("u_ann");
      expect(seen).toContain(String(alias));
    }
    // A persona is not a person: its id (the room's own) stays.
    expect(frameForViewer(chunk, "share-1")).toContain("p1");
  });

  it("leaves text that only mentions a name key, and JSON it cannot read, alone", () => {
    const text = JSON.stringify({ type: "x", body: 'the key "name": is in a sentence {' });
    expect(frameForViewer(text, "share-1")).toBe(text);
  });
});
