import { describe, expect, it } from "vitest";
import { candidateNames, firstWord, mentionFragments } from "@/server/domain/notifications/mention-fragments";
import { MAX_MENTIONED_PEOPLE } from "@/shared/notifications";

describe("mention fragments", () => {
  it("takes the text after each @ of a mention, to the line's end, each once", () => {
    expect(mentionFragments("hey @Bob Smith, look\nand @Cid!")).toEqual(["Bob Smith, look", "Cid!"]);
    expect(mentionFragments("@Ann @Ann")).toEqual(["Ann @Ann", "Ann"]);
  });

  it("leaves out e-mail addresses, bare @ and what `skip` names", () => {
    expect(mentionFragments("mail bob@example.com or @ 42 or @1st")).toEqual([]);
    expect(mentionFragments("@Ada and @Bob", (f) => firstWord(f) === "Ada")).toEqual(["Bob"]);
  });

  it("keeps at most MAX_MENTIONED_PEOPLE fragments, each no longer than a name can be", () => {
    const text = Array.from({ length: 50 }, (_, i) => `@P${i}`).join(" ");
    expect(mentionFragments(text)).toHaveLength(MAX_MENTIONED_PEOPLE);
    expect(Array.from(mentionFragments(`@${"a".repeat(200)}`)[0])).toHaveLength(40);
  });

  it("tries a fragment as one to four words, longest first, without trailing punctuation", () => {
    expect(candidateNames("Bob Smith, see this now")).toEqual([
      "Bob Smith, see this",
      "Bob Smith, see",
      "Bob Smith",
      "Bob"
    ]);
    expect(candidateNames("Cid!")).toEqual(["Cid"]);
    expect(firstWord("Ada, what")).toBe("Ada");
  });
});
