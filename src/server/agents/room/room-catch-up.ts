/**
 * Catch me up, room side: the messages after where a person stopped
 * reading (the first unread one their page showed, or as many of the
 * newest as their read mark leaves unread, counted here: the room list's
 * count arrives in a report after the turn), at most MAX_CATCH_UP_MESSAGES,
 * summed up by the room's summariser (room/summary-model.ts: the room's
 * model, or an extract offline) and answered to the caller only: nothing is
 * written to the room. Its tokens count against the room's day.
 */
import type { Session } from "agents/sessions";
import type { UIMessage } from "ai";
import { speakerOf } from "@/server/domain/personas/persona-context";
import { messagePreview } from "@/server/domain/rooms/room-rows";
import { type CatchUp, type CatchUpSince, MAX_CATCH_UP_MESSAGES } from "@/shared/catch-up";
import type { ChatMessage, TokenUsage } from "@/shared/protocol";
import { pageBefore } from "./history-pages";
import type { SummariseInput, WrittenSummary } from "./summary-writer";

interface CatchUpHost {
  session(): Session;
  /** The room's own count of the messages people see, exact now (the overseer's copy lags a turn's report). */
  visibleCount(): number;
  summarise(input: SummariseInput): Promise<WrittenSummary>;
  charge(usage: TokenUsage): void;
}

export class RoomCatchUp {
  constructor(private readonly host: CatchUpHost) {}

  async since({ from, readCount }: CatchUpSince): Promise<CatchUp> {
    const unread = Math.max(0, this.host.visibleCount() - readCount);
    const page = await pageBefore(this.host.session(), undefined, MAX_CATCH_UP_MESSAGES);
    const at = from ? page.messages.findIndex((m) => m.id === from) : -1;
    const wanted = at >= 0 ? page.messages.length - at : Math.min(unread, MAX_CATCH_UP_MESSAGES);
    const messages = wanted > 0 ? page.messages.slice(-wanted) : [];
    const partial = at < 0 && (from !== null ? page.nextCursor !== null : unread > MAX_CATCH_UP_MESSAGES);
    if (messages.length === 0) return { summary: null, model: null, messages: [], partial: false };
    const written = await this.host.summarise({ kind: "span", messages: messages as UIMessage[] });
    if (written.usage) this.host.charge(written.usage);
    return { summary: written.text, model: written.model, messages: messages.map(toLink), partial };
  }
}

function toLink(message: ChatMessage) {
  return {
    id: message.id,
    author: speakerOf(message as UIMessage),
    preview: messagePreview(message.parts) ?? "",
    createdAt: typeof message.metadata?.createdAt === "number" ? message.metadata.createdAt : null
  };
}
