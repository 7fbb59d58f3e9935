import { describe, expect, it } from "vitest";
import { chatGptConversations } from "@/server/domain/transfer/chatgpt-import";

const node = (id: string, parent: string | null, role: string, text: string) => ({
  id,
  parent,
  children: [],
  message: { id, author: { role }, content: { content_type: "text", parts: [text] } }
});

describe("ChatGPT's conversations.json", () => {
  it("refuses a current_node that names no node of its own, prototype names included", () => {
    for (const current_node of ["__proto__", "constructor", "toString", "missing"]) {
      expect(() => chatGptConversations([{ title: "x", mapping: {}, current_node }]), current_node).toThrow(
        /current_node does not name a node/
      );
    }
  });

  it("reads nodes whose ids are prototype names as ordinary nodes", () => {
    // JSON.parse makes "__proto__" an own key, as a real export file would.
    const parsed = JSON.parse(
      `{"constructor": ${JSON.stringify(node("constructor", null, "user", "first"))}, "__proto__": ${JSON.stringify(node("__proto__", "constructor", "assistant", "second"))}}`
    );
    const [room] = chatGptConversations([{ title: "Odd ids", mapping: parsed, current_node: "__proto__" }]);
    expect(room.messages.map((m) => [m.role, (m.parts[0] as unknown as { text: string }).text])).toEqual([
      ["user", "first"],
      ["assistant", "second"]
    ]);
  });
});
