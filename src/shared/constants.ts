/**
 * Every limit the app enforces, in one place. The README's "Limits" table
 * mirrors this file; tests import these names rather than repeating numbers.
 */

export const DEFAULT_WORKSPACE = "default";
/** Workspaces are URL segments and Durable Object names. */
export const WORKSPACE_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export const MAX_ROOM_NAME_LENGTH = 80;
export const MAX_SYSTEM_PROMPT_LENGTH = 8_000;
export const MAX_MODEL_NAME_LENGTH = 100;
export const MAX_MESSAGE_LENGTH = 16_000;
export const MAX_AUTHOR_LENGTH = 40;
/** Bodies are JSON; anything bigger than this is refused before parsing. */
export const MAX_REQUEST_BODY_BYTES = 64 * 1024;
/** Rooms per workspace; creating one more is refused with 409. */
export const MAX_ROOMS_PER_WORKSPACE = 2_000;

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

/** Characters of the last message shown in the room list. */
export const PREVIEW_LENGTH = 140;

export const MIN_TEMPERATURE = 0;
export const MAX_TEMPERATURE = 2;

/** A room holds at most this many messages; then it refuses new ones (409). */
export const MAX_MESSAGES_PER_ROOM = 100_000;
/**
 * WebSocket text frames larger than this are refused with an error frame.
 * A chat frame carries the client's recent transcript (JSON inside JSON), so
 * this sits well above the room's hydration window.
 */
export const MAX_WS_FRAME_BYTES = 4 * 1024 * 1024;
/** Messages a chat request may carry (the client sends its recent window). */
export const MAX_MESSAGES_PER_CHAT_REQUEST = 500;

/**
 * Rate limits (token buckets: a burst, then a steady rate), keyed by
 * identity and, separately, by client address (see domain/access/caller.ts), so
 * reconnecting or opening more sockets resets nothing. REST limits are per
 * workspace; socket limits per room; and new rooms, sends, searches and
 * uploads are limited per identity across every workspace too
 * (domain/access/identity-limits.ts). `tokenAttempts` counts wrong access
 * tokens per address, `sessionStarts` new sessions (new identities) per
 * address, `shareViews` share-link viewers' requests per address in a
 * workspace (a viewer has no identity, and a link can be opened by anyone
 * holding it). `RATE_LIMIT_SCALE` in the environment multiplies them
 * all (0 = off).
 */
export const RATE_LIMITS = {
  restRoomCreate: { burst: 30, perMinute: 30 },
  restSend: { burst: 60, perMinute: 60 },
  socketSend: { burst: 10, perMinute: 60 },
  socketTyping: { burst: 20, perMinute: 300 },
  socketCancel: { burst: 20, perMinute: 120 },
  tokenAttempts: { burst: 5, perMinute: 5 },
  sessionStarts: { burst: 10, perMinute: 10 },
  restSearch: { burst: 10, perMinute: 30 },
  shareViews: { burst: 60, perMinute: 120 }
} as const;

/**
 * Searches running at once in one workspace, and for one identity: a search
 * fans out over the rooms on the workspace's one thread, so unbounded
 * parallel searches slow every other request of the workspace.
 */
export const MAX_SEARCHES_PER_WORKSPACE = 8;
export const MAX_SEARCHES_PER_IDENTITY = 3;

/** An address may send this many times an identity's allowance (people behind one NAT). */
export const ADDRESS_LIMIT_FACTOR = 4;

/** The close code of a room socket refused because the room (or its workspace) has no place left. */
export const ROOM_FULL_CODE = 4429;
/** Open sockets one room accepts, and one identity may hold in one room. */
export const MAX_SOCKETS_PER_ROOM = 200;
export const MAX_SOCKETS_PER_IDENTITY = 8;
/**
 * Open sockets one address (an IPv6 /64) may hold in one room, whoever is
 * signed in on them: a quarter of the room, so one client minting
 * identities cannot fill it, while people behind one office NAT still fit.
 */
export const MAX_SOCKETS_PER_ADDRESS = MAX_SOCKETS_PER_ROOM / 4;
/**
 * Of a room's sockets, this many are kept for its members (people who have
 * written in it or were let in) and the workspace's admins: readers, link
 * viewers and the anonymous fill only the rest, so they can never lock the
 * people who talk there out (server/domain/sockets/socket-budget.ts).
 */
export const ROOM_SOCKETS_KEPT_FOR_MEMBERS = MAX_SOCKETS_PER_ROOM / 4;
/**
 * Open room sockets one workspace accepts across all its rooms (they share
 * one overseer's thread), and how many of them are kept for rooms' members.
 */
export const MAX_SOCKETS_PER_WORKSPACE = 2_000;
export const WORKSPACE_SOCKETS_KEPT_FOR_MEMBERS = MAX_SOCKETS_PER_WORKSPACE / 4;
/** Presence frames a room sends at most this often (changes in between are coalesced). */
export const PRESENCE_INTERVAL_MS = 250;

/**
 * Files in rooms (docs/files.md). Each can be changed per deployment:
 * FILES_MAX_BYTES, FILES_ROOM_QUOTA_BYTES, FILES_WORKSPACE_QUOTA_BYTES.
 */
export const DEFAULT_MAX_FILE_BYTES = 25 * 1024 * 1024;
export const DEFAULT_ROOM_FILE_QUOTA_BYTES = 1024 * 1024 * 1024;
export const DEFAULT_WORKSPACE_FILE_QUOTA_BYTES = 10 * 1024 * 1024 * 1024;
/** Files one room holds at most (records and index rows stay small). */
export const MAX_FILES_PER_ROOM = 2_000;
/** Files one message may carry. */
export const MAX_FILES_PER_MESSAGE = 10;
/** Characters of a stored file name (longer names are cut, keeping the extension). */
export const MAX_FILE_NAME_LENGTH = 120;
/** Uploads per identity (and, times ADDRESS_LIMIT_FACTOR, per address): a burst, then a steady rate. */
export const FILE_UPLOAD_RATE = { burst: 20, perMinute: 20 } as const;
