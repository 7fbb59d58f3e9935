import { describe, expect, it } from "vitest";
import { insertMention, mentionAt, namesMatching } from "../../src/client/lib/mention-autocomplete";

describe("@-mention autocomplete", () => {
  it("finds the mention being typed before the caret, as the server reads mentions", () => {
    expect(mentionAt("@", 1)).toEqual({ start: 0, query: "" });
    expect(mentionAt("hi @Ad", 6)).toEqual({ start: 3, query: "Ad" });
    expect(mentionAt("(@ad", 4)).toEqual({ start: 1, query: "ad" });
    expect(mentionAt("hi @Ada and", 11)).toBeNull();
    expect(mentionAt("mail ann@ex", 11)).toBeNull();
    expect(mentionAt("@@Ad", 4)).toBeNull();
    // Only up to the caret counts.
    expect(mentionAt("@Ada rest", 2)).toEqual({ start: 0, query: "A" });
  });

  it("offers the names that start with what was typed, ignoring case", () => {
    const names = ["Ada", "Grace", "adam", "Bob"];
    expect(namesMatching(names, "")).toEqual(names);
    expect(namesMatching(names, "AD")).toEqual(["Ada", "adam"]);
    expect(namesMatching(names, "z")).toEqual([]);
    expect(namesMatching(names, "", 2)).toEqual(["Ada", "Grace"]);
  });

  it("puts the picked name in place of the mention, followed by one space", () => {
    expect(insertMention("hi @Ad", { start: 3, query: "Ad" }, 6, "Ada")).toEqual({ text: "hi @Ada ", caret: 8 });
    expect(insertMention("@g what now", { start: 0, query: "g" }, 2, "Grace")).toEqual({
      text: "@Grace what now",
      caret: 6
    });
  });
});
