/** The URL is the state: a room lives at /sub/chat-room/<id>. */
export const ROOM_ROUTE = "/sub/chat-room/:roomId";

export function roomPath(id: string): string {
  return `/sub/chat-room/${encodeURIComponent(id)}`;
}

/** An invitation's landing page (members/InvitePage.tsx). */
export const INVITE_ROUTE = "/invite/:token";

/** The workspace's people, roles and API tokens (people/PeoplePage.tsx). */
export const PEOPLE_ROUTE = "/people";

/** A room opened at one message (search results, links to a message). */
export function messagePath(roomId: string, messageId: string): string {
  return `${roomPath(roomId)}?m=${encodeURIComponent(messageId)}`;
}

/** The token of a `/share/<token>` page, or null on every other page. */
export function shareToken(pathname: string): string | null {
  const match = pathname.match(/^\/share\/([^/]+)\/?$/);
  if (!match) return null;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return null;
  }
}
