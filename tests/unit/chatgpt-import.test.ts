import { describe, expect, it } from "vitest";
import { PERSIST_LIMITS } from "@/server/domain/messages/persisted-message";
import { chatGptConversations } from "@/server/domain/transfer/chatgpt-import";
import { capMessageTexts } from "@/server/domain/transfer/imported-room";
import { MAX_MESSAGE_LENGTH } from "@/shared/constants";

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

  it("cuts a turn longer than a message may be, and names it with its place and lengths", () => {
    const mapping = {
      a: { ...node("a", null, "user", "u".repeat(MAX_MESSAGE_LENGTH + 1)), children: ["b"] },
      b: node("b", "a", "assistant", "fine")
    };
    const [room] = chatGptConversations([{ title: "Long", mapping, current_node: "b" }]);
    expect(room.truncated).toEqual([
      {
        messageId: room.messages[0].id,
        position: 1,
        role: "user",
        originalLength: MAX_MESSAGE_LENGTH + 1,
        keptLength: MAX_MESSAGE_LENGTH
      }
    ]);
    expect((room.messages[0].parts[0] as unknown as { text: string }).text).toHaveLength(MAX_MESSAGE_LENGTH);
    const [whole] = chatGptConversations([{ title: "Short", mapping: { b: node("b", null, "user", "hi") } }]);
    expect(whole.truncated).toEqual([]);
  });
});

describe("capping imported texts", () => {
  const message = (role: "user" | "assistant", ...texts: string[]) => ({
    id: `m-${role}`,
    role,
    parts: texts.map((text) => ({ type: "text", text })),
    metadata: {}
  });

  it("cuts answers at the stored part cap, counting every text part, and never splits a surrogate pair", () => {
    const max = PERSIST_LIMITS.maxPartTextLength;
    const { messages, truncated } = capMessageTexts([
      message("user", "hi"),
      message("assistant", "a".repeat(max + 10), "tail")
    ]);
    expect(truncated).toEqual([
      { messageId: "m-assistant", position: 2, role: "assistant", originalLength: max + 14, keptLength: max + 4 }
    ]);
    expect(messages[0]).toEqual(message("user", "hi"));
    const emoji = `${"x".repeat(MAX_MESSAGE_LENGTH - 1)}😀`;
    const cut = capMessageTexts([message("user", emoji)]);
    expect(cut.truncated[0].keptLength).toBe(MAX_MESSAGE_LENGTH - 1);
    expect((cut.messages[0].parts[0] as unknown as { text: string }).text.endsWith("x")).toBe(true);
  });
});
