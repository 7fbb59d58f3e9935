/**
 * What an edit or a regeneration does to the people in a room, in words.
 * An edit sends a new version of a message; the version it replaces and
 * every message after it stay on the server as an earlier version (‹ 1/2 ›),
 * so nothing is lost, but messages leave the transcript: the editor is told
 * before saving (`editConsequence`), and everyone whose message moved is
 * told after (`MovedMessagesTracker`), with a link to where it went.
 */
import { authorId, authorName } from "@/shared/identity";
import type { RoomMessage } from "./messages";

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

function listNames(names: string[]): string {
  if (names.length <= 1) return names.join("");
  return `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

/** The edit form's note: which version the edit becomes and what stays where. */
export function editConsequence(messages: readonly RoomMessage[], messageId: string, selfId: string): string {
  const index = messages.findIndex((m) => m.id === messageId);
  const version = messages[index]?.metadata?.version ?? 1;
  const after = index < 0 ? [] : messages.slice(index + 1).filter((m) => m.role !== "system");
  const others = [
    ...new Set(
      after
        .filter((m) => m.role === "user" && authorId(m.metadata?.author) !== selfId)
        .map((m) => authorName(m.metadata?.author) || "Someone")
    )
  ];
  const kept =
    after.length === 0
      ? `This version stays as version ${version}`
      : `This version and the ${plural(after.length, "message", "messages")} after it stay as version ${version}`;
  const told = others.length > 0 ? ` ${listNames(others)} will see where theirs went.` : "";
  return `Sends your edit as version ${version + 1}. ${kept}, one click away under ‹ ›.${told}`;
}

/** Someone's messages moved to an earlier version of a message. */
export interface MovedMessages {
  /** The new version that replaced the branch they were on (its ‹ › holds them). */
  messageId: string;
  /** The earlier version they are in now. */
  version: number;
  /** Who made the new version: a person's name, or null for a regenerated answer. */
  by: string | null;
  /** The reader's own messages that moved. */
  mine: RoomMessage[];
}

/**
 * Watches the transcript for the reader's own messages leaving it because
 * an earlier message got a new version. The new version and the departure
 * can arrive in either order (a snapshot of the room, then the streamed
 * answer), so a departed message waits until a new version of a message
 * before it shows up.
 */
export class MovedMessagesTracker {
  private previous: readonly RoomMessage[] = [];
  /** The reader's messages that left, each with the ids of the messages before it then. */
  private departed = new Map<string, { message: RoomMessage; before: Set<string> }>();

  constructor(private readonly selfId: string) {}

  /** Feed each new transcript; returns what moved, when this one completes a move. */
  update(next: readonly RoomMessage[]): MovedMessages | null {
    const nextIds = new Set(next.map((m) => m.id));
    const replacedNow = new Set(next.map((m) => m.metadata?.versionOf).filter((id): id is string => !!id));
    this.previous.forEach((m, index) => {
      if (nextIds.has(m.id) || replacedNow.has(m.id)) return;
      if (m.role !== "user" || authorId(m.metadata?.author) !== this.selfId) return;
      this.departed.set(m.id, { message: m, before: new Set(this.previous.slice(0, index).map((p) => p.id)) });
    });
    this.previous = next;
    for (const id of nextIds) this.departed.delete(id);
    if (this.departed.size === 0) return null;
    for (const message of next) {
      const replaced = message.metadata?.versionOf;
      if (!replaced) continue;
      const mine = [...this.departed.values()].filter((d) => d.before.has(replaced)).map((d) => d.message);
      if (mine.length === 0) continue;
      for (const m of mine) this.departed.delete(m.id);
      // The reader's own edit: its form said what would happen.
      if (message.role === "user" && authorId(message.metadata?.author) === this.selfId) continue;
      const by = message.role === "user" ? authorName(message.metadata?.author) || "Someone" : null;
      return { messageId: message.id, version: (message.metadata?.version ?? 2) - 1, by, mine };
    }
    return null;
  }
}
