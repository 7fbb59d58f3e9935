/**
 * The room's newest page as its socket's opening frame brings it (server:
 * agents/room/opening-frame.ts), for the first read of the room's history.
 * The client asks REST for the same page at the same time and shows
 * whichever comes first (`firstPage`): on loopback a GET is quicker than a
 * WebSocket's upgrade, over a real network the socket may be, and the
 * socket's frame brings the room's state and presence with it. Taken once;
 * a page that has not come by the time the socket closed, or within the
 * wait, counts as not coming, so opening never hangs on it.
 *
 * Held per room for the tab, not in the component: React throws away a
 * first render that suspends (the room's history does), with its state,
 * while the socket that render opened lives on and reports to it.
 */
import type { MessagePage } from "@/shared/protocol";

/** How long the first read of a room's history counts on the socket's page (REST is asked at the same time). */
const OPENED_PAGE_WAIT_MS = 5_000;

export class OpenedPage {
  #resolve: (page: MessagePage | null) => void = () => {};
  readonly #page = new Promise<MessagePage | null>((resolve) => {
    this.#resolve = resolve;
  });
  #taken = false;

  /** The opening frame came (a reconnect's later one changes nothing). */
  arrived(page: MessagePage) {
    this.#resolve(page);
  }

  /** The socket closed or failed before its opening frame: whoever waits reads REST. */
  failed() {
    this.#resolve(null);
  }

  /** The page, once; null when it will not come in time (and for every later take). */
  take(waitMs = OPENED_PAGE_WAIT_MS): Promise<MessagePage | null> {
    if (this.#taken) return Promise.resolve(null);
    this.#taken = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), waitMs);
    });
    return Promise.race([this.#page, late]).finally(() => clearTimeout(timer));
  }
}

/**
 * One opening of a room lasts seconds: an entry older than this is left
 * over from an earlier visit (a frame that came in after the room was left,
 * or the close that followed), and is dropped rather than shown.
 */
const OPENING_FRESH_MS = 10_000;

/** The opening pages of the rooms open in a tab, by room (`now`: the clock, for tests). */
export function openedPageRegistry(now = () => Date.now()) {
  const rooms = new Map<string, { page: OpenedPage; at: number }>();
  const of = (roomId: string) => {
    let entry = rooms.get(roomId);
    if (!entry || now() - entry.at >= OPENING_FRESH_MS) {
      entry = { page: new OpenedPage(), at: now() };
      rooms.set(roomId, entry);
    }
    return entry.page;
  };
  return {
    arrived: (roomId: string, page: MessagePage) => of(roomId).arrived(page),
    failed: (roomId: string) => of(roomId).failed(),
    take: (roomId: string) => of(roomId).take(),
    /** The room was left: its next opening starts afresh. */
    forget: (roomId: string) => {
      rooms.delete(roomId);
    }
  };
}

export const openedPages = openedPageRegistry();

/**
 * The first page to arrive of the socket's (null: it will not come) and
 * REST's. A REST failure is the answer only when the socket has none.
 */
export function firstPage(socket: Promise<MessagePage | null>, rest: Promise<MessagePage>): Promise<MessagePage> {
  return new Promise((resolve, reject) => {
    let restError: { error: unknown } | null = null;
    let socketDone = false;
    socket.then((page) => {
      socketDone = true;
      if (page) resolve(page);
      else if (restError) reject(restError.error);
    });
    rest.then(resolve, (error: unknown) => {
      restError = { error };
      if (socketDone) reject(error);
    });
  });
}
