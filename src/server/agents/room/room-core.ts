/**
 * The room as its jobs see it: the framework's chat agent, plus the exact
 * message count the class answers from its activity log and its pages of
 * history. Jobs take this
 * (or a smaller slice of it), never the ChatRoom class, so no job imports
 * the class back.
 */
import type { AIChatAgent } from "@cloudflare/ai-chat";
import type { Env } from "@/server/env";
import type { MessagePage, RoomState } from "@/shared/protocol";

export type RoomCore = AIChatAgent<Env, RoomState> & {
  messageCount(): number;
  /** A page of history before a cursor (the newest without one), with its reactions. */
  listMessages(query: { before?: string; limit: number }): Promise<MessagePage>;
};
