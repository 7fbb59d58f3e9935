import { describe, expect, it } from "vitest";
import { pageForViewer } from "../../src/server/domain/access/viewer-authors";
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
    const seen = await pageForViewer(page, "share-1");
    expect(JSON.stringify(seen)).not.toContain("u_ann");
    const alias = seen.messages[0]?.metadata?.author;
    expect(alias?.name).toBe("Ann");
    expect(seen.messages[1]?.metadata?.stoppedBy).toEqual(alias);
    expect(seen.reactions?.m1?.[0]?.by).toEqual([alias]);
    expect(seen.messages[2]?.metadata?.author).toBe("Old name");
    const other = await pageForViewer(page, "share-2");
    expect(other.messages[0]?.metadata?.author?.id).not.toBe(alias?.id);
  });
});
