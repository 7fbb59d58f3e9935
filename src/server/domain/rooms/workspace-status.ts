/**
 * Introspection, pure: the UTC day tokens are counted by, and a workspace's
 * status summed from what its rooms last reported (so answering it never
 * wakes a room).
 */
import type { AgentStatus, RoomStorage, WorkspaceStatus } from "@/shared/introspection";

/** Rooms listed in a workspace status's storage table. */
const STATUS_STORAGE_ROWS = 50;

const DAY_MS = 86_400_000;
/**
 * Days already formatted, by day number: a turn asks for today several times
 * (budget check, ledger, live report) and the ledger for a week ago, and
 * formatting a date costs far more than the lookup. A handful of entries.
 */
const formattedDays = new Map<number, string>();

export function utcDay(now = Date.now()): string {
  const index = Math.floor(now / DAY_MS);
  const known = formattedDays.get(index);
  if (known !== undefined) return known;
  const day = new Date(now).toISOString().slice(0, 10);
  if (formattedDays.size >= 8) formattedDays.clear();
  formattedDays.set(index, day);
  return day;
}

/** One registry row joined with the room's last live report (nulls: never reported). */
export type LiveRow = {
  id: string;
  name: string;
  status: AgentStatus | null;
  sockets: number | null;
  storage_bytes: number | null;
  tokens_day: string | null;
  tokens_today: number | null;
};

export function summarizeWorkspace(
  workspace: string,
  rows: readonly LiveRow[],
  opts: { today: string; roomListSockets: number; dailyTokenBudget: number }
): WorkspaceStatus {
  const count = (status: AgentStatus) => rows.filter((r) => r.status === status).length;
  const storage: RoomStorage[] = rows
    .map((r) => ({ id: r.id, name: r.name, bytes: r.storage_bytes ?? 0 }))
    .sort((a, b) => b.bytes - a.bytes || a.id.localeCompare(b.id));
  return {
    workspace,
    rooms: rows.length,
    streaming: count("streaming"),
    queued: count("queued"),
    failed: count("failed"),
    sockets: { rooms: rows.reduce((n, r) => n + (r.sockets ?? 0), 0), roomList: opts.roomListSockets },
    storageBytes: storage.reduce((n, r) => n + r.bytes, 0),
    storage: storage.slice(0, STATUS_STORAGE_ROWS),
    day: opts.today,
    tokensToday: rows.reduce((n, r) => n + (r.tokens_day === opts.today ? (r.tokens_today ?? 0) : 0), 0),
    dailyTokenBudget: opts.dailyTokenBudget
  };
}
