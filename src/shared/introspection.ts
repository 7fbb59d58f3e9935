/**
 * Wire types of introspection: a room's live agent tree
 * (`GET /api/rooms/:id/agents`) and a workspace's status
 * (`GET /api/workspaces/:ws/status`, `GET /api/status`).
 */
import type { TokenUsage } from "./protocol";

/** idle: nothing to do; queued: sends wait for the running turn; failed: the last turn ended in an error. */
export type AgentStatus = "idle" | "queued" | "streaming" | "failed";

export interface AgentNode {
  /** The room's id for the room itself; a persona or task id below it. */
  id: string;
  kind: "room" | "persona" | "task";
  name: string;
  status: AgentStatus;
  /** What it is doing now, e.g. "tool get_current_time"; null when idle. */
  activity: string | null;
  /** Bytes of its own SQLite; null when not known without waking it. */
  storageBytes: number | null;
  messages: number | null;
  /** Tokens the provider reported: today (UTC) and in all. */
  tokens: { today: number; total: TokenUsage } | null;
  lastActiveAt: number | null;
  /** The trace of the turn it is working on now. */
  traceId: string | null;
  children: AgentNode[];
}

/** A daily token budget (0 = unlimited) and the tokens used against it today (UTC). */
export interface BudgetUse {
  daily: number;
  usedToday: number;
}

export interface AgentTree {
  room: AgentNode;
  /** The room's budget, and its workspace's (null when the overseer could not be asked). */
  budget?: { room: BudgetUse; workspace: BudgetUse | null };
}

/** What a room tells its overseer about itself with each activity report. */
export interface RoomLive {
  status: AgentStatus;
  activity: string | null;
  sockets: number;
  storageBytes: number;
  /** UTC day `tokensToday` counts, "YYYY-MM-DD". */
  day: string;
  tokensToday: number;
}

export interface RoomStorage {
  id: string;
  name: string;
  bytes: number;
}

export interface WorkspaceStatus {
  workspace: string;
  rooms: number;
  /** Rooms with an answer streaming now. */
  streaming: number;
  queued: number;
  failed: number;
  /** Open sockets: to rooms (as rooms last reported) and to the room list. */
  sockets: { rooms: number; roomList: number };
  storageBytes: number;
  /** Largest first. */
  storage: RoomStorage[];
  day: string;
  tokensToday: number;
  /** Daily token budget of the workspace (0 = unlimited). */
  dailyTokenBudget: number;
}
