/**
 * Every limit the app enforces, in one place. The README's "Limits" table
 * mirrors this file; tests import these names rather than repeating numbers.
 */

export const DEFAULT_WORKSPACE = "default";
/** Workspaces are URL segments and Durable Object names. */
export const WORKSPACE_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;
/** Room ids are generated server-side; the pattern only guards URLs. */
export const ROOM_ID_PATTERN = /^[A-Za-z0-9_-]{8,64}$/;

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
