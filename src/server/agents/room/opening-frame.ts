/**
 * A room opened in one round trip. A member's socket that asks for it (the
 * `page` parameter on its address: how many messages) gets, as the first
 * frame of ours after the framework's own, the room's newest page of
 * history with its reactions, the room's state and who is here: everything
 * the client needs to render the room. The browser app also asks REST for
 * the page and shows whichever comes first (client/lib/opened-page.ts).
 *
 * By hand because the framework's connect frames carry the state and, for
 * AIChatAgent, the whole in-memory transcript only on resume; a room far
 * larger than any page is read a page at a time (room/history-pages.ts).
 * Share-link viewers are not served here: their pages go through the link's
 * REST route, which writes authors as names (overseer-access.ts).
 */
import type { Connection, ConnectionContext } from "agents";
import { MAX_PAGE_SIZE } from "@/shared/constants";
import type { MessagePage, PresenceUser, RoomServerFrame, RoomState } from "@/shared/protocol";
import { isViewerSocket } from "./socket-access";

/** The socket address's parameter asking for the opening frame. */
const OPENING_PAGE_PARAM = "page";

/** How many messages the socket asked for (1 to MAX_PAGE_SIZE), or null when it did not ask. */
function openingPageSize(url: string): number | null {
  const raw = new URL(url).searchParams.get(OPENING_PAGE_PARAM);
  if (raw === null || !/^\d{1,4}$/.test(raw)) return null;
  const size = Number(raw);
  return size >= 1 ? Math.min(size, MAX_PAGE_SIZE) : null;
}

/** What the frame is made of: the room, as the room's RPC methods already give it. */
export interface OpeningSource {
  newestPage(limit: number): Promise<MessagePage>;
  state(): RoomState;
  presence(): PresenceUser[];
}

/** Sends the opening frame to a member's socket that asked for it; nothing otherwise. */
export async function sendOpeningFrame(
  connection: Connection,
  ctx: ConnectionContext,
  room: OpeningSource
): Promise<void> {
  const size = isViewerSocket(ctx) ? null : openingPageSize(ctx.request.url);
  if (!size) return;
  const page = await room.newestPage(size);
  const frame: RoomServerFrame = { type: "rooms_opened", page, state: room.state(), presence: room.presence() };
  try {
    connection.send(JSON.stringify(frame));
  } catch {
    // The person left while the page was read: nothing to send it to.
  }
}
