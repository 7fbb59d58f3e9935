/**
 * Which tag names a socket's exact destination in its workspace (pure; the
 * overseer tags and delivers with it in agents/overseer/socket-routes.ts).
 *
 * A room socket's tag is its target below the workspace root, e.g.
 * `to:ChatRoom/<id>`: the platform indexes sockets by tag, so the overseer
 * can ask for one room's sockets instead of walking every socket of the
 * workspace per frame. A room-list socket carries LIST_TAG.
 */

/** One step of an agent path, as the framework spells it (`AgentPathStep`). */
export interface PathStep {
  className: string;
  name: string;
}

/** What the framework's `parseSubAgentPath` answers for a `/sub/<class>/<name>` URL. */
export interface SubAgentMatch {
  childClass: string;
  childName: string;
  remainingPath: string;
}

/** The tag of every room-list socket (a socket that targets the overseer itself). */
export const LIST_TAG = "list";

const ROUTE_PREFIX = "to:";

/**
 * A share link's viewer socket carries its room's tag and this one too, so
 * a frame that names people can be kept from viewers (who get their own
 * copy with aliases, agents/room/viewer-sockets.ts) even before the room
 * knows the socket is a viewer's.
 */
export function viewerTag(route: string): string {
  return `viewer:${route}`;
}

/**
 * Put in a frame's `without` by the room: not to viewer sockets. No
 * connection id holds a NUL (the server chooses them), so it names none.
 */
export const NOT_TO_VIEWERS = "\u0000viewers";
/** The platform's limit on one tag. */
export const MAX_TAG_LENGTH = 256;

/**
 * The tag for sockets whose target is exactly `steps` (the path below the
 * root), or null when no tag can name it: no steps, or a tag longer than
 * the platform allows. Each part is URI-encoded, so no name can make one
 * path's tag equal another's.
 */
export function routeTag(steps: ReadonlyArray<PathStep>): string | null {
  if (steps.length === 0) return null;
  const tag =
    ROUTE_PREFIX + steps.map((s) => `${encodeURIComponent(s.className)}/${encodeURIComponent(s.name)}`).join("/");
  return tag.length <= MAX_TAG_LENGTH ? tag : null;
}

/** The steps of `path` below `root`, or null when `path` does not descend from `root`. */
export function stepsBelow(root: ReadonlyArray<PathStep>, path: ReadonlyArray<PathStep>): PathStep[] | null {
  if (path.length <= root.length) return null;
  for (let i = 0; i < root.length; i++) {
    if (root[i].className !== path[i].className || root[i].name !== path[i].name) return null;
  }
  return path.slice(root.length);
}

/**
 * The target below the root of a socket opened at `outerUrl`, read the way
 * the framework reads it (agents 0.32 `_pathFromOuterUri`): each
 * `/sub/<class>/<name>` in turn, until none is left. Empty for a socket to
 * the root itself; null for a URL that cannot be read.
 */
export function targetSteps(outerUrl: string, parse: (url: string) => SubAgentMatch | null): PathStep[] | null {
  const steps: PathStep[] = [];
  let current = outerUrl;
  try {
    for (let match = parse(current); match; match = parse(current)) {
      steps.push({ className: match.childClass, name: match.childName });
      const rest = new URL(current);
      rest.pathname = match.remainingPath;
      current = rest.toString();
    }
  } catch {
    return null;
  }
  return steps;
}
