/**
 * The tools of Rooms as an MCP server, for one caller (a named API token)
 * in its workspace. Each tool calls the overseer method its REST route
 * calls, with the same caller, so who may see, read, post and create is
 * decided in one place (agents/overseer/workspace-access.ts, the rules in
 * shared/permissions.ts) and rate-limited the same way: a private room the
 * token's identity is not in is "does not exist" here as on REST, and a
 * viewer's post is refused with REST's sentence.
 *
 * Inputs are checked by the SDK against the zod schemas in
 * shared/mcp-endpoint.ts before a tool runs; a refusal or failure comes
 * back as a tool error (`isError`) with the REST error's text and code.
 */
import { McpServer } from "@modelcontextprotocol/server";
import { AppError, roomNotFound, unwrap } from "@/server/app-error";
import type { Caller } from "@/server/domain/access/caller";
import {
  createdRoomReply,
  type PostOutcome,
  postReply,
  roomListReply,
  roomPageReply,
  searchReply,
  type ToolReply,
  toolError
} from "@/server/domain/mcp-endpoint/endpoint-replies";
import { takeSendEvents } from "@/server/domain/mcp-endpoint/send-events";
import { parseWireError } from "@/shared/errors";
import {
  CreateRoomInput,
  ListRoomsInput,
  type PostMessageInput,
  PostMessageInput as PostMessageSchema,
  ReadRoomInput,
  SearchInput
} from "@/shared/mcp-endpoint";
import type { ChatMessage, SendMessageResult } from "@/shared/protocol";
import type { OverseerRpc } from "./overseer-stub";

/** Who is asking, and the workspace they act in (the token's). */
export interface EndpointSession {
  overseer: OverseerRpc;
  caller: Caller;
}

const SERVER_INFO = { name: "rooms", version: "1.0.0" };

const guarded =
  <A>(run: (args: A) => Promise<ToolReply>) =>
  async (args: A): Promise<ToolReply> => {
    try {
      return await run(args);
    } catch (error) {
      return toolError(error);
    }
  };

/** A fresh server for one request: the factory `createMcpHandler` calls (agents/mcp/server). */
export function endpointServer({ overseer, caller }: EndpointSession): McpServer {
  const server = new McpServer(SERVER_INFO, {
    instructions:
      "Rooms is a multi-room AI chat shared by a team. You act as one named member (this API token). " +
      "list_rooms first; read_room pages a room's history (newest first page, then older with the cursor); " +
      "post_message speaks in a room and can wait for its assistant's answer."
  });
  server.registerTool(
    "list_rooms",
    {
      title: "List rooms",
      description: "The rooms of this workspace you can see, most recently active first, with their ids.",
      inputSchema: ListRoomsInput,
      annotations: { readOnlyHint: true }
    },
    guarded(async () => roomListReply(unwrap(await overseer.listRooms(caller))))
  );
  server.registerTool(
    "read_room",
    {
      title: "Read a room",
      description:
        "One page of a room's messages, oldest first within the page: who wrote what and when. " +
        "The first call answers the newest page; pass its nextCursor as cursor for the page before it.",
      inputSchema: ReadRoomInput,
      annotations: { readOnlyHint: true }
    },
    guarded(async ({ room, cursor, limit }: ReadRoomInput) => {
      const page = unwrap(await overseer.listMessages(room, { limit, ...(cursor ? { before: cursor } : {}) }, caller));
      return roomPageReply(room, page);
    })
  );
  server.registerTool(
    "search",
    {
      title: "Search messages",
      description: "Full-text search across the messages of the rooms you can see (or one room), best matches first.",
      inputSchema: SearchInput,
      annotations: { readOnlyHint: true }
    },
    guarded(async ({ query, room, limit }: SearchInput) => {
      const found = unwrap(await overseer.search({ q: query, limit, ...(room ? { room } : {}) }, caller));
      // As GET /api/search: a room that is not there is an error, not "no matches".
      if (room && found.roomsSearched === 0) throw roomNotFound(room);
      return searchReply(found);
    })
  );
  server.registerTool(
    "post_message",
    {
      title: "Post a message",
      description:
        "Post a message in a room as this token's member, as a person would from the composer. " +
        "With wait (the default) the answer of the room's assistant or personas comes back too, within timeoutSeconds.",
      inputSchema: PostMessageSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false }
    },
    guarded(async (input: PostMessageInput) => postReply(input.room, await postMessage({ overseer, caller }, input)))
  );
  server.registerTool(
    "create_room",
    {
      title: "Create a room",
      description: "Create a room in this workspace; you become its owner.",
      inputSchema: CreateRoomInput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false }
    },
    guarded(async (input: CreateRoomInput) => createdRoomReply(unwrap(await overseer.createRoom(input, caller))))
  );
  return server;
}

/**
 * Posts through the streamed REST send and reads its events until the
 * answer is done or the deadline passes. Stopping to read never stops the
 * answer: the room finishes it for everyone else (agents/room/rest-bridge.ts).
 */
async function postMessage({ overseer, caller }: EndpointSession, input: PostMessageInput): Promise<PostOutcome> {
  const arrival = { traceparent: null, receivedAt: Date.now() };
  const events = unwrap(await overseer.streamMessage(input.room, { text: input.text }, caller, arrival));
  const reader = events.getReader();
  const decoder = new TextDecoder();
  const deadline = arrival.receivedAt + input.timeoutSeconds * 1000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), Math.max(0, deadline - Date.now()));
  });
  let buffer = "";
  let posted: ChatMessage | null = null;
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), timedOut]);
      if (next === "timeout") {
        if (!posted) throw new AppError("upstream:model", 504, "The room did not take the message in time.");
        return { kind: "still_answering", message: posted, waitedSeconds: input.timeoutSeconds };
      }
      if (next.done) break;
      const taken = takeSendEvents(buffer + decoder.decode(next.value, { stream: true }));
      buffer = taken.rest;
      for (const { event, data } of taken.events) {
        if (event === "user-message") {
          posted = data as ChatMessage;
          if (!input.wait) return { kind: "posted", message: posted };
        } else if (event === "done") {
          return { kind: "answered", result: data as SendMessageResult };
        } else if (event === "error") {
          const wire = parseWireError(data);
          throw new AppError(wire?.code ?? "internal:unexpected", 502, wire?.message ?? "The send failed.");
        }
      }
    }
    throw new AppError("internal:unexpected", 502, "The room ended the send without an answer.");
  } finally {
    clearTimeout(timer);
    reader.cancel().catch(() => {});
  }
}
