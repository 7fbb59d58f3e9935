/**
 * A person's calls on the room's messages, dispatched to the job that does
 * each: reactions, withdrawing a queued question, private asides. One RPC
 * for them all keeps the room's surface (and the overseer's) small; the
 * overseer has checked who may make each call before it arrives here.
 */
import type { MessageCall, MessageCallResults } from "@/server/contracts/room-api";
import type { MessageAuthor } from "@/shared/identity";
import type { RoomAsides } from "./room-asides";
import type { QuestionQueue } from "./room-queue";
import type { RoomReactions } from "./room-reactions";

export interface MessageCallJobs {
  reactions: Pick<RoomReactions, "toggle">;
  queue: Pick<QuestionQueue, "withdraw">;
  asides: Pick<RoomAsides, "list" | "ask" | "share" | "delete">;
}

export async function runMessageCall(
  jobs: MessageCallJobs,
  call: MessageCall,
  who: MessageAuthor
): Promise<MessageCallResults[MessageCall["op"]]> {
  switch (call.op) {
    case "react":
      return jobs.reactions.toggle(call.messageId, call.emoji, who);
    case "withdraw":
      return jobs.queue.withdraw(call.messageId, who);
    case "asides":
      return { asides: jobs.asides.list(who) };
    case "ask":
      return jobs.asides.ask(call.text, who);
    case "shareAside":
      return jobs.asides.share(call.asideId, who);
    case "deleteAside":
      jobs.asides.delete(call.asideId, who);
      return null;
  }
}
