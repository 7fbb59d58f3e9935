/**
 * The tools of Rooms as an MCP server (`/mcp`, routes/mcp-endpoint-routes.ts): their
 * input schemas, checked by the MCP SDK before a tool runs, and their
 * limits. Each schema reuses the REST body's own field where there is one,
 * so a tool accepts exactly what the matching REST route accepts.
 */
import { z } from "zod";
import { CreateRoomBody, PageCursor, SendMessageBody } from "./protocol";
import { SearchQuery } from "./search";

/** Messages one `read_room` page holds at most: a page, never a whole room. */
export const MCP_MAX_PAGE = 50;
const MCP_DEFAULT_PAGE = 20;
/** Results one `search` answers at most. */
const MCP_MAX_SEARCH = 50;
const MCP_DEFAULT_SEARCH = 10;
/** How long `post_message` waits for the answer at most, and by default. */
export const MCP_MAX_WAIT_SECONDS = 120;
const MCP_DEFAULT_WAIT_SECONDS = 60;

const RoomRef = z
  .string({ error: "room must be a string: a room id from list_rooms" })
  .trim()
  .min(1, "room must not be empty")
  .max(128, "room must be at most 128 characters")
  .describe("The room's id, as list_rooms answers it.");

const bounded = (what: string, max: number, fallback: number) =>
  z
    .number({ error: `${what} must be a number` })
    .int(`${what} must be a whole number`)
    .min(1, `${what} must be at least 1`)
    .max(max, `${what} must be at most ${max}`)
    .default(fallback);

export const ListRoomsInput = z.strictObject({});

export const ReadRoomInput = z.strictObject({
  room: RoomRef,
  cursor: PageCursor.optional().describe(
    "Where to continue: the nextCursor of the previous page (older messages). Leave out for the newest page."
  ),
  limit: bounded("limit", MCP_MAX_PAGE, MCP_DEFAULT_PAGE).describe(
    `Messages in this page (1-${MCP_MAX_PAGE}, default ${MCP_DEFAULT_PAGE}).`
  )
});
export type ReadRoomInput = z.infer<typeof ReadRoomInput>;

export const SearchInput = z.strictObject({
  query: SearchQuery.shape.q.describe("Words to find in the messages of the rooms you can see."),
  room: RoomRef.optional().describe("Search this room only (its id)."),
  limit: bounded("limit", MCP_MAX_SEARCH, MCP_DEFAULT_SEARCH).describe(
    `Results at most (1-${MCP_MAX_SEARCH}, default ${MCP_DEFAULT_SEARCH}).`
  )
});
export type SearchInput = z.infer<typeof SearchInput>;

export const PostMessageInput = z.strictObject({
  room: RoomRef,
  text: SendMessageBody.shape.text.describe("The message, as you would type it in the room (Markdown)."),
  wait: z
    .boolean({ error: "wait must be true or false" })
    .default(true)
    .describe("Wait for the room's answer (default) or return as soon as the message is posted."),
  timeoutSeconds: bounded("timeoutSeconds", MCP_MAX_WAIT_SECONDS, MCP_DEFAULT_WAIT_SECONDS).describe(
    `How long to wait for the answer (1-${MCP_MAX_WAIT_SECONDS} s, default ${MCP_DEFAULT_WAIT_SECONDS}); the room goes on answering after that, read it with read_room.`
  )
});
export type PostMessageInput = z.infer<typeof PostMessageInput>;

export const CreateRoomInput = z.strictObject({
  name: CreateRoomBody.shape.name.describe("The room's name."),
  visibility: CreateRoomBody.shape.visibility.describe(
    "workspace (default): everyone in the workspace sees it; private: its members only."
  ),
  systemPrompt: CreateRoomBody.shape.systemPrompt.describe("Instructions for the room's assistant.")
});
export type CreateRoomInput = z.infer<typeof CreateRoomInput>;
