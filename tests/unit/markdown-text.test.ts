import { describe, expect, it } from "vitest";
import { markdownInline, markdownText } from "@/server/domain/transfer/markdown-text";
import { renderMarkdownMessage } from "@/server/domain/transfer/room-export";

describe("text in the Markdown export", () => {
  it("escapes raw HTML outside code and keeps it inside code", () => {
    expect(markdownText('<img src=x onerror="alert(1)"> & <b>bold</b>')).toBe(
      '&lt;img src=x onerror="alert(1)"&gt; &amp; &lt;b&gt;bold&lt;/b&gt;'
    );
    expect(markdownText("use `a < b && c` here <x>")).toBe("use `a < b && c` here &lt;x&gt;");
    expect(markdownText("```html\n<script>alert(1)</script>\n```\nafter <i>")).toBe(
      "```html\n<script>alert(1)</script>\n```\nafter &lt;i&gt;"
    );
  });

  it("keeps headings and rules as text", () => {
    expect(markdownText("# Not a heading\n---\n## nor this")).toBe("\\# Not a heading\n\\---\n\\## nor this");
    // Inside a fence they are code already.
    expect(markdownText("~~~\n# comment\n~~~")).toBe("~~~\n# comment\n~~~");
  });

  it("closes a fence the text leaves open, so it cannot swallow what follows", () => {
    expect(markdownText("look:\n```js\nconst a = 1;")).toBe("look:\n```js\nconst a = 1;\n```");
    // A shorter or different fence inside does not close a longer one.
    expect(markdownText("````\n```\n~~~\n")).toBe("````\n```\n~~~\n\n````");
  });

  it("keeps names on one line, with HTML and emphasis escaped", () => {
    expect(markdownInline("Eve <script>\n# x")).toBe("Eve &lt;script&gt; # x");
    expect(markdownInline("snake_case *star*")).toBe("snake\\_case \\*star\\*");
  });

  it("a message's unclosed fence ends with the message", () => {
    const rendered = renderMarkdownMessage({
      id: "m",
      role: "user",
      parts: [{ type: "text", text: "```\nnever closed" }],
      metadata: { author: { id: "u", name: "Ann <b>" } }
    });
    expect(rendered).toContain("### Ann &lt;b&gt;");
    expect(rendered).toContain("```\nnever closed\n```");
  });
});
