/**
 * What a share link's viewer sees of the people in a room: their display
 * names, never their identity ids (an id names a person across every
 * workspace and room). Each id becomes an alias, opaque and stable within
 * one share (the same person has the same alias on every page and every
 * socket frame of it) and different between shares, so two links cannot be
 * joined on it.
 *
 * One walk serves REST pages and socket frames alike: it replaces the id of
 * every `{ id, name }` author found under a key that names a person
 * (`author`, `stoppedBy`, reactions' `by`, …), wherever it sits, so a frame
 * shape added later is covered without a list of frame types to keep up.
 * The alias is a synchronous hash (node:crypto) because a socket frame is
 * rewritten in the broadcast that sends it: an await there would let later
 * frames overtake it.
 */
import { createHash } from "node:crypto";
import type { MessageAuthor } from "@/shared/identity";

const ALIAS_PREFIX = "viewer-alias:";

/** Keys whose value is a person ({ id, name }) or a list of people. */
const PERSON_KEYS = new Set(["author", "stoppedBy", "by", "askedBy", "decidedBy", "addedBy", "createdBy", "updatedBy"]);

/** The framework's streamed chunk travels as JSON text inside the frame's `body`. */
const NESTED_JSON_KEY = "body";

/** An author's id as a viewer of `shareId` sees it. */
function viewerAlias(shareId: string, authorId: string): string {
  if (authorId.startsWith(ALIAS_PREFIX)) return authorId;
  const hex = createHash("sha256").update(`${shareId}\n${authorId}`).digest("hex").slice(0, 24);
  return `${ALIAS_PREFIX}${hex}`;
}

/** Only objects with a string id and name (older messages may hold a bare name: nothing to hide). */
function isAuthor(value: unknown): value is MessageAuthor {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const { id, name } = value as { id?: unknown; name?: unknown };
  return typeof id === "string" && typeof name === "string";
}

/**
 * `value` with every person's id aliased; the same object (===) when there
 * was nothing to change, so a caller can tell cheaply.
 */
function hidePeople(value: unknown, shareId: string, personKey: boolean): unknown {
  if (personKey && isAuthor(value)) return { ...value, id: viewerAlias(shareId, value.id) };
  if (Array.isArray(value)) {
    let changed = false;
    const next = value.map((item) => {
      const hidden = hidePeople(item, shareId, personKey);
      if (hidden !== item) changed = true;
      return hidden;
    });
    return changed ? next : value;
  }
  if (typeof value !== "object" || value === null) return value;
  let changed = false;
  const next: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    let hidden = hidePeople(item, shareId, PERSON_KEYS.has(key));
    if (key === NESTED_JSON_KEY && typeof item === "string" && mayNamePeople(item)) {
      hidden = hideInJson(item, shareId);
    }
    if (hidden !== item) changed = true;
    next[key] = hidden;
  }
  return changed ? next : value;
}

/** A cheap test before parsing: a text (or a frame) with no `"name":` key holds no person. */
export function mayNamePeople(json: string): boolean {
  return json.includes('"name":') || json.includes('\\"name\\":');
}

function hideInJson(json: string, shareId: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return json;
  }
  const hidden = hidePeople(parsed, shareId, false);
  return hidden === parsed ? json : JSON.stringify(hidden);
}

/** A REST answer (a page of history, of files) as a share link's viewer gets it: every person under an alias. */
export function forViewer<T>(answer: T, shareId: string): T {
  return hidePeople(answer, shareId, false) as T;
}

/**
 * A socket frame as a share link's viewer gets it: the same string when it
 * names nobody (a streamed text delta), else the frame with every person's
 * id aliased (the framework's streamed chunks, JSON inside the frame's
 * `body`, included).
 */
export function frameForViewer(frame: string, shareId: string): string {
  if (!mayNamePeople(frame)) return frame;
  return hideInJson(frame, shareId);
}
