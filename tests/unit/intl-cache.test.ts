import { describe, expect, it } from "vitest";
import { dateFormat, numberFormat } from "../../src/client/lib/intl-cache";
import { countOf, fullDateTime, messageTime, relativeTime } from "../../src/client/lib/time";

const at = new Date(2026, 10, 30, 14, 5).getTime();

describe("reused Intl formatters", () => {
  it("builds one formatter per locale and set of options", () => {
    expect(dateFormat({ dateStyle: "full" })).toBe(dateFormat({ dateStyle: "full" }));
    expect(dateFormat({ dateStyle: "full" })).not.toBe(dateFormat({ dateStyle: "medium" }));
    expect(dateFormat({ dateStyle: "full" }, "de-DE")).not.toBe(dateFormat({ dateStyle: "full" }, "en-GB"));
    expect(numberFormat()).toBe(numberFormat({}));
    expect(numberFormat({ notation: "compact" })).not.toBe(numberFormat());
  });

  it("formats as toLocaleString with the same options does", () => {
    expect(fullDateTime(at)).toBe(new Date(at).toLocaleString(undefined, { dateStyle: "full", timeStyle: "short" }));
    expect(messageTime(at, at)).toBe(
      new Date(at).toLocaleTimeString(undefined, { hour: "numeric", minute: "2-digit" })
    );
    expect(relativeTime(at, at + 30 * 86_400_000)).toBe(
      new Date(at).toLocaleDateString(undefined, { month: "short", day: "numeric" })
    );
    expect(dateFormat({ weekday: "long", day: "numeric", month: "long" }, "en-GB").format(at)).toBe(
      "Monday 30 November"
    );
    expect(countOf(1234, "message")).toBe(`${(1234).toLocaleString()} messages`);
    expect(countOf(1, "message")).toBe("1 message");
  });
});
