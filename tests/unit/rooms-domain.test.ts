import { describe, expect, it } from "vitest";
import {
  applyActivity,
  generateRoomId,
  messagePreview,
  type RoomRow,
  toRoomSummary
} from "@/server/domain/rooms/room-rows";
import { PREVIEW_LENGTH } from "@/shared/constants";

const row: RoomRow = {
  id: "abc",
  name: "Room",
  created_at: 1,
  last_active_at: 10,
  message_count: 2,
  last_preview: "old",
  activity_seq: 5
};

describe("room ids", () => {
  it("are 16 url-safe characters", () => {
    const ids = new Set(Array.from({ length: 1000 }, () => generateRoomId()));
    expect(ids.size).toBe(1000);
    for (const id of ids) {
      expect(id).toMatch(/^[A-Za-z0-9_-]{16}$/);
    }
  });

  it("come from the random source they are given", () => {
    expect(generateRoomId((bytes) => bytes.fill(255))).toBe("________________");
  });
});

describe("message previews", () => {
  it("join the text parts with whitespace folded", () => {
    expect(
      messagePreview([
        { type: "text", text: " hello\n\n  world " },
        { type: "tool-x" },
        { type: "text", text: "again" }
      ])
    ).toBe("hello world again");
  });

  it("are cut with an ellipsis without splitting a character", () => {
    const preview = messagePreview([{ type: "text", text: "😀".repeat(PREVIEW_LENGTH + 10) }])!;
    expect(Array.from(preview)).toHaveLength(PREVIEW_LENGTH);
    expect(preview.endsWith("…")).toBe(true);
    expect(preview).not.toMatch(/\uFFFD/);
  });

  it("are null for a message without text", () => {
    expect(messagePreview([{ type: "step-start" }])).toBeNull();
  });
});

describe("activity reports", () => {
  it("update the registry row", () => {
    const next = applyActivity(row, { seq: 6, messageCount: 4, lastMessagePreview: "new", lastActiveAt: 20 });
    expect(next).toMatchObject({ message_count: 4, last_preview: "new", last_active_at: 20, activity_seq: 6 });
  });

  it("are dropped when they arrive out of order", () => {
    expect(applyActivity(row, { seq: 5, messageCount: 1, lastMessagePreview: "stale", lastActiveAt: 30 })).toBeNull();
    expect(applyActivity(row, { seq: 4, messageCount: 1, lastMessagePreview: "stale", lastActiveAt: 30 })).toBeNull();
  });

  it("never move the last activity backwards", () => {
    expect(
      applyActivity(row, { seq: 7, messageCount: 3, lastMessagePreview: null, lastActiveAt: 3 })!.last_active_at
    ).toBe(10);
  });

  it("map to the summary clients see", () => {
    expect(toRoomSummary(row, "private")).toEqual({
      id: "abc",
      name: "Room",
      createdAt: 1,
      lastActiveAt: 10,
      messageCount: 2,
      lastMessagePreview: "old",
      visibility: "private"
    });
  });
});
