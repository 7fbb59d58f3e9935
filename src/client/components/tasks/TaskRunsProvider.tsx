/**
 * The room's delegated task runs, for its task cards, listened to beside the
 * room's socket (components/RoomView.tsx) and not inside the transcript: the
 * transcript suspends until the room's first page, and the runs the room
 * replays as the socket joins come in meanwhile. A run whose start was
 * missed is never shown (the framework's reducer drops its later events).
 * Its own component, so a streamed run re-renders only the task cards that
 * read it, not the room around them.
 */
import type { ReactNode } from "react";
import type { RoomSocket } from "@/client/hooks/use-room-socket";
import { TaskRunsContext, useTaskRunsSource } from "@/client/hooks/use-task-runs";

export function TaskRunsProvider({ socket, children }: { socket: RoomSocket; children: ReactNode }) {
  const taskRuns = useTaskRunsSource(socket);
  return <TaskRunsContext.Provider value={taskRuns}>{children}</TaskRunsContext.Provider>;
}
