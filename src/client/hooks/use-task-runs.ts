/**
 * Live runs of delegated tasks in the open room, for the task cards.
 *
 * The framework's agent tools stream every child run to the room's sockets
 * as `agent-tool-event` frames; `useAgentToolEvents` folds them into run
 * states (status, the child's message parts) keyed by the tool call that
 * started them. We only add Stop: a `rooms_task_stop` frame the room turns
 * into `cancelAgentTool` (agents/room/delegation.ts).
 */
import { useAgentToolEvents } from "agents/react";
import type { UIMessage } from "ai";
import { createContext, useCallback, useContext, useMemo } from "react";
import type { RoomClientFrame } from "@/shared/protocol";
import type { RoomSocket } from "./use-room-socket";

export type TaskRunPart = UIMessage["parts"][number];

export interface TaskRun {
  runId: string;
  status: "running" | "completed" | "error" | "aborted" | "interrupted";
  parts: TaskRunPart[];
  summary?: string;
  error?: string;
}

interface TaskRuns {
  runsFor(toolCallId: string): TaskRun[];
  stop(runId: string): void;
}

const NO_RUNS: TaskRuns = { runsFor: () => [], stop: () => {} };

export const TaskRunsContext = createContext<TaskRuns>(NO_RUNS);

export function useTaskRunsSource(socket: RoomSocket): TaskRuns {
  const events = useAgentToolEvents<TaskRunPart>({ agent: socket.agent });
  const { sendFrame } = socket;
  const stop = useCallback(
    (runId: string) => sendFrame(JSON.stringify({ type: "rooms_task_stop", runId } satisfies RoomClientFrame)),
    [sendFrame]
  );
  const byToolCall = events.runsByToolCallId;
  return useMemo(() => ({ runsFor: (toolCallId: string) => byToolCall[toolCallId] ?? [], stop }), [byToolCall, stop]);
}

export function useTaskRuns(): TaskRuns {
  return useContext(TaskRunsContext);
}
