/**
 * The live room list: one socket to the workspace's OverseerAgent, which
 * sends the whole list on connect and then upserts/deletes as they happen.
 */
import { useAgent } from "agents/react";
import {
  createContext,
  createElement,
  type ReactNode,
  type RefObject,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState
} from "react";
import { api } from "@/client/lib/api";
import { earlyRoomList } from "@/client/lib/early-room-list";
import { RECONNECT_OPTIONS, reconnectOnReturn } from "@/client/lib/reconnect";
import { DEFAULT_WORKSPACE } from "@/shared/constants";
import type { Notification } from "@/shared/notifications";
import { OverseerFrameSchema, type RoomSummary } from "@/shared/protocol";
import type { ReadMark } from "@/shared/unread";

export type ConnectionStatus = "connecting" | "open" | "reconnecting" | "closed";

export interface RoomListValue {
  /** null until the first list arrives. */
  rooms: RoomSummary[] | null;
  status: ConnectionStatus;
  /** Rooms deleted while this page was open (to tell "deleted" from "not found"). */
  deletedIds: ReadonlySet<string>;
  /** Rooms I lost access to while this page was open (removed, or made private), until I am let in again. */
  revokedIds: ReadonlySet<string>;
  /**
   * How far I have read each room (my own marks only, kept by the server):
   * null until the socket sends them, so no unread count is guessed before.
   */
  readMarks: ReadonlyMap<string, ReadMark> | null;
  /** My unread notifications (null until the server says), and the newest that arrived while this page was open. */
  notifications: LiveNotifications;
  upsert(room: RoomSummary): void;
  /** Gone from my list: deleted, or (`"access"`) no longer mine to see. */
  remove(id: string, reason?: "access"): void;
}

export interface LiveNotifications {
  unread: number | null;
  latest: Notification | null;
}

const RoomListContext = createContext<RoomListValue | null>(null);

function byActivity(a: RoomSummary, b: RoomSummary): number {
  return b.lastActiveAt - a.lastActiveAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

function withoutId(set: ReadonlySet<string>, id: string): ReadonlySet<string> {
  const next = new Set(set);
  next.delete(id);
  return next;
}

function toSummary(room: RoomSummary): RoomSummary {
  const { id, name, createdAt, lastActiveAt, messageCount, lastMessagePreview, visibility } = room;
  return { id, name, createdAt, lastActiveAt, messageCount, lastMessagePreview, visibility };
}

/**
 * Before the socket's first frame: the list requested with the page
 * (lib/early-room-list.ts), or, if that failed, asked for again after a while.
 */
function useEarlyRoomList(setRooms: (rooms: Map<string, RoomSummary>) => void, gotFrame: RefObject<boolean>) {
  // The list requested with the page shows until the socket's first frame.
  useEffect(() => {
    let live = true;
    void earlyRoomList.then((list) => {
      if (live && list && !gotFrame.current) setRooms(new Map(list.map((r) => [r.id, toSummary(r)])));
    });
    return () => {
      live = false;
    };
  }, [setRooms, gotFrame]);

  // If neither has arrived after a while (the early request failed), ask again.
  useEffect(() => {
    const timer = setTimeout(() => {
      if (gotFrame.current) return;
      api
        .listRooms()
        .then(({ rooms: list }) => {
          if (!gotFrame.current) setRooms(new Map(list.map((r) => [r.id, r])));
        })
        .catch(() => {
          // The socket will deliver the list once it connects.
        });
    }, 2_500);
    return () => clearTimeout(timer);
  }, [setRooms, gotFrame]);
}

/** The frame's JSON, or undefined when it is not JSON (the schema then refuses it). */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function RoomListProvider({ children }: { children: ReactNode }) {
  const [rooms, setRooms] = useState<Map<string, RoomSummary> | null>(null);
  const [status, setStatus] = useState<ConnectionStatus>("connecting");
  const [deletedIds, setDeletedIds] = useState<ReadonlySet<string>>(() => new Set());
  const [revokedIds, setRevokedIds] = useState<ReadonlySet<string>>(() => new Set());
  const gotFrame = useRef(false);
  const [readMarks, setReadMarks] = useState<ReadonlyMap<string, ReadMark> | null>(null);
  const [notifications, setNotifications] = useState<LiveNotifications>({ unread: null, latest: null });

  const upsert = useCallback((room: RoomSummary) => {
    setRooms((prev) => {
      const next = new Map(prev ?? []);
      const existing = next.get(room.id);
      // Never let an older snapshot (e.g. a REST answer) roll back live activity.
      if (existing && existing.lastActiveAt > room.lastActiveAt) {
        next.set(room.id, { ...existing, name: room.name });
      } else {
        next.set(room.id, toSummary(room));
      }
      return next;
    });
    // Let in again (an invitation accepted): it is mine to open once more.
    setRevokedIds((prev) => (prev.has(room.id) ? withoutId(prev, room.id) : prev));
  }, []);

  const remove = useCallback((id: string, reason?: "access") => {
    setRooms((prev) => {
      if (!prev?.has(id)) return prev;
      const next = new Map(prev);
      next.delete(id);
      return next;
    });
    if (reason === "access") setRevokedIds((prev) => new Set(prev).add(id));
    else setDeletedIds((prev) => new Set(prev).add(id));
  }, []);

  const list = useAgent({
    agent: "OverseerAgent",
    name: DEFAULT_WORKSPACE,
    ...RECONNECT_OPTIONS,
    onOpen: () => setStatus("open"),
    onClose: () => setStatus("reconnecting"),
    onConnectionError: () => setStatus("closed"),
    onMessage: (event: MessageEvent) => {
      if (typeof event.data !== "string") return;
      const parsed = OverseerFrameSchema.safeParse(parseJson(event.data));
      if (!parsed.success) return; // the SDK's own cf_agent_* frames
      const frame = parsed.data;
      gotFrame.current = true;
      switch (frame.type) {
        case "rooms":
          setRooms(new Map(frame.rooms.map((r) => [r.id, r])));
          break;
        case "room_upserted":
          upsert(frame.room);
          break;
        case "room_deleted":
          remove(frame.id, frame.reason);
          break;
        case "read_marks":
          setReadMarks((prev) => {
            const next = new Map(frame.replace ? [] : (prev ?? []));
            // The server's word: a mark moves back when an edit shortens a room.
            for (const mark of frame.marks) next.set(mark.roomId, mark);
            return next;
          });
          break;
        case "notifications":
          setNotifications((prev) => ({ unread: frame.unread, latest: frame.added ?? prev.latest }));
          break;
        case "error":
          console.warn("[rooms] overseer error:", frame.message);
          break;
      }
    }
  });

  useEarlyRoomList(setRooms, gotFrame);
  const statusRef = useRef(status);
  statusRef.current = status;
  useEffect(
    () =>
      reconnectOnReturn(
        () => statusRef.current !== "open",
        () => list.reconnect()
      ),
    [list]
  );

  const sorted = useMemo(() => (rooms ? [...rooms.values()].sort(byActivity) : null), [rooms]);
  const value = useMemo<RoomListValue>(
    () => ({ rooms: sorted, status, deletedIds, revokedIds, readMarks, notifications, upsert, remove }),
    [sorted, status, deletedIds, revokedIds, readMarks, notifications, upsert, remove]
  );
  return createElement(RoomListContext.Provider, { value }, children);
}

export function useRoomList(): RoomListValue {
  const value = useContext(RoomListContext);
  if (!value) throw new Error("useRoomList must be used inside <RoomListProvider>");
  return value;
}
