/**
 * Pure room logic: ids, previews, registry rows and activity fencing.
 * No storage, no env: unit-tested in Node.
 */
import { PREVIEW_LENGTH } from "@/shared/constants";
import type { IdentityKind } from "@/shared/identity";
import type { RoomLive } from "@/shared/introspection";
import type { RoomVisibility } from "@/shared/permissions";
import type { RoomDetail, RoomState, RoomSummary } from "@/shared/protocol";

/** 16 url-safe characters from 96 random bits. */
export function generateRoomId(
  random: (bytes: Uint8Array<ArrayBuffer>) => Uint8Array = (b) => crypto.getRandomValues(b)
): string {
  const bytes = random(new Uint8Array(12));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_");
}

type PartLike = { type: string; text?: unknown };

/** The text of a message's text parts, whitespace folded, cut for a list row. */
export function messagePreview(parts: readonly PartLike[], max = PREVIEW_LENGTH): string | null {
  const text = parts
    .filter((part) => part.type === "text" && typeof part.text === "string")
    .map((part) => part.text as string)
    .join(" ")
    .replace(/\s+/g, " ")
    .trim();
  if (!text) return null;
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join("")}…`;
}

/** A row of the overseer's rooms table (a type, not an interface, so SQL cursors can be typed with it). */
export type RoomRow = {
  id: string;
  name: string;
  created_at: number;
  last_active_at: number;
  message_count: number;
  last_preview: string | null;
  activity_seq: number;
};

export function toRoomSummary(row: RoomRow, visibility: RoomVisibility): RoomSummary {
  return {
    id: row.id,
    name: row.name,
    createdAt: row.created_at,
    lastActiveAt: row.last_active_at,
    messageCount: row.message_count,
    lastMessagePreview: row.last_preview,
    visibility
  };
}

/** A registry row with what the room itself holds (settings, usage, model): what REST answers for one room. */
export function toRoomDetail(
  row: RoomRow,
  state: Pick<RoomState, "settings" | "usage" | "activeModel" | "offline">,
  visibility: RoomVisibility
): RoomDetail {
  return {
    ...toRoomSummary(row, visibility),
    settings: state.settings,
    usage: state.usage,
    activeModel: state.activeModel,
    offline: state.offline
  };
}

/** What a room reports to the overseer after its transcript changes. */
export interface RoomActivity {
  /** Strictly increasing per room, so a late report never overwrites a newer one. */
  seq: number;
  messageCount: number;
  lastMessagePreview: string | null;
  lastActiveAt: number;
  /** Status, sockets, storage and tokens today (the overseer keeps them apart, in room_live). */
  live?: RoomLive;
  /**
   * People who wrote in the room over its socket since its last report,
   * each once per waking: the overseer makes them members
   * (overseer/workspace-access.ts `joinOnTalk`).
   */
  talkers?: Talker[];
}

/** Someone who wrote in a room, as the room's socket knew them. */
export interface Talker {
  id: string;
  name: string;
  kind: IdentityKind;
}

/** Applies a report to a registry row, or null when the report is stale. */
export function applyActivity(row: RoomRow, activity: RoomActivity): RoomRow | null {
  if (activity.seq <= row.activity_seq) return null;
  return {
    ...row,
    message_count: activity.messageCount,
    last_preview: activity.lastMessagePreview,
    last_active_at: Math.max(row.last_active_at, activity.lastActiveAt),
    activity_seq: activity.seq
  };
}
