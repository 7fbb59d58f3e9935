import { describe, expect, it } from "vitest";
import type { RoomMessage } from "@/client/lib/messages";
import { editConsequence, MovedMessagesTracker } from "@/client/lib/version-moves";

const ann = { id: "ann", name: "Ann" };
const ben = { id: "ben", name: "Ben" };
const question = (id: string, author: typeof ann, extra: Record<string, unknown> = {}): RoomMessage => ({
  id,
  role: "user",
  parts: [{ type: "text", text: id }],
  metadata: { author, createdAt: 1, ...extra }
});
const answer = (id: string, extra: Record<string, unknown> = {}): RoomMessage => ({
  id,
  role: "assistant",
  parts: [{ type: "text", text: `Echo: ${id}` }],
  metadata: { createdAt: 2, ...extra }
});

describe("editConsequence", () => {
  const room = [question("q1", ann), answer("a1"), question("q2", ben), answer("a2")];

  it("says which version the edit becomes, what stays and who is told", () => {
    expect(editConsequence(room, "q1", "ann")).toBe(
      "Sends your edit as version 2. This version and the 3 messages after it stay as version 1, one click away under ‹ ›. Ben will see where theirs went."
    );
  });

  it("counts from the message's own version, and names nobody when only answers follow", () => {
    const edited = [question("q1", ann, { version: 2 }), answer("a1")];
    expect(editConsequence(edited, "q1", "ann")).toBe(
      "Sends your edit as version 3. This version and the 1 message after it stay as version 2, one click away under ‹ ›."
    );
    expect(editConsequence([question("q1", ann)], "q1", "ann")).toBe(
      "Sends your edit as version 2. This version stays as version 1, one click away under ‹ ›."
    );
  });
});

describe("MovedMessagesTracker", () => {
  const before = [question("q1", ann), answer("a1"), question("q2", ben), answer("a2")];
  const edited = [question("q1b", ann, { versionOf: "q1", version: 2 }), answer("a1b")];

  it("tells Ben his message moved to version 1 when Ann edits the question before it", () => {
    const tracker = new MovedMessagesTracker("ben");
    expect(tracker.update(before)).toBeNull();
    const moved = tracker.update(edited);
    expect(moved).toMatchObject({ messageId: "q1b", version: 1, by: "Ann" });
    expect(moved?.mine.map((m) => m.id)).toEqual(["q2"]);
    // Told once.
    expect(tracker.update([...edited, answer("later")])).toBeNull();
  });

  it("waits for the new version when the branch leaves first", () => {
    const tracker = new MovedMessagesTracker("ben");
    tracker.update(before);
    expect(tracker.update([question("q1", ann), answer("a1")].slice(0, 0))).toBeNull();
    expect(tracker.update(edited)?.mine.map((m) => m.id)).toEqual(["q2"]);
  });

  it("says nothing to the editor, nor to someone whose messages stayed", () => {
    const annTracker = new MovedMessagesTracker("ann");
    annTracker.update([...before, question("q3", ann)]);
    expect(annTracker.update(edited)).toBeNull();
    const benTracker = new MovedMessagesTracker("ben");
    benTracker.update([question("q0", ben), answer("a0"), ...before.slice(0, 2)]);
    expect(
      benTracker.update([question("q0", ben), answer("a0"), question("q1b", ann, { versionOf: "q1", version: 2 })])
    ).toBeNull();
  });

  it("names no one for a regenerated answer", () => {
    const tracker = new MovedMessagesTracker("ben");
    tracker.update(before);
    const moved = tracker.update([question("q1", ann), answer("a1b", { versionOf: "a1", version: 2 })]);
    expect(moved).toMatchObject({ messageId: "a1b", version: 1, by: null });
  });
});
