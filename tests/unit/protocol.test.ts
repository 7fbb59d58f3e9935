import { describe, expect, it } from "vitest";
import { DEFAULT_PAGE_SIZE, MAX_MESSAGE_LENGTH, MAX_PAGE_SIZE } from "../../src/shared/constants";
import {
  CreateRoomBody,
  MessagesQuery,
  OverseerFrameSchema,
  RoomClientFrame,
  SendMessageBody,
  UpdateRoomBody
} from "../../src/shared/protocol";

describe("room bodies", () => {
  it("trim names and default nothing else", () => {
    expect(CreateRoomBody.parse({ name: "  Plans " })).toEqual({ name: "Plans" });
  });

  it.each([
    [{ name: "" }, "name must not be empty"],
    [{ name: "a\tb" }, "control characters"],
    [{ name: "ok", model: "gpt 4" }, "model may contain"],
    [{ name: "ok", temperature: -1 }, "temperature must be at least"],
    [{ name: "ok", surprise: 1 }, "Unrecognized key"]
  ])("refuse %o with a message naming the problem", (body, message) => {
    const result = CreateRoomBody.safeParse(body);
    expect(result.success).toBe(false);
    expect(JSON.stringify(result.error?.issues)).toContain(message);
  });

  it("need at least one field to update, and accept null to reset model settings", () => {
    expect(UpdateRoomBody.safeParse({}).success).toBe(false);
    expect(UpdateRoomBody.parse({ model: null, temperature: null })).toEqual({ model: null, temperature: null });
  });
});

describe("message bodies and pages", () => {
  it("bound the text and refuse blank messages", () => {
    expect(SendMessageBody.safeParse({ text: "   " }).success).toBe(false);
    expect(SendMessageBody.safeParse({ text: "x".repeat(MAX_MESSAGE_LENGTH + 1) }).success).toBe(false);
    expect(SendMessageBody.parse({ text: " hi ", author: " Ann " })).toEqual({ text: " hi ", author: "Ann" });
  });

  it("coerce the page size from the query string within bounds", () => {
    expect(MessagesQuery.parse({})).toEqual({ limit: DEFAULT_PAGE_SIZE });
    expect(MessagesQuery.parse({ limit: "7", before: "m1" })).toEqual({ limit: 7, before: "m1" });
    expect(MessagesQuery.safeParse({ limit: String(MAX_PAGE_SIZE + 1) }).success).toBe(false);
    expect(MessagesQuery.safeParse({ limit: "1.5" }).success).toBe(false);
  });
});

describe("socket frames", () => {
  it("accept the room list frames and nothing else", () => {
    expect(OverseerFrameSchema.safeParse({ type: "room_deleted", id: "x" }).success).toBe(true);
    expect(OverseerFrameSchema.safeParse({ type: "cf_agent_state", state: {} }).success).toBe(false);
  });

  it("accept hello and typing from clients, strictly", () => {
    expect(RoomClientFrame.safeParse({ type: "rooms_hello", name: "Ann" }).success).toBe(true);
    expect(RoomClientFrame.safeParse({ type: "rooms_typing", typing: "yes" }).success).toBe(false);
    expect(RoomClientFrame.safeParse({ type: "rooms_hello", name: "Ann", admin: true }).success).toBe(false);
  });
});
