/**
 * The AI's queue above the composer, while it answers: "Next: Bob's
 * question, then yours", with a Withdraw button for each of your own
 * questions that still waits (POST …/messages/:id/withdraw). A withdrawn
 * question stays in the transcript, marked, and is never answered.
 */
import { ListOrdered } from "lucide-react";
import { useState } from "react";
import { Button } from "@/client/components/ui/Button";
import { queuedQuestions, queueLine } from "@/client/lib/ai-queue";
import { api, errorMessage } from "@/client/lib/api";
import type { RoomMessage } from "@/client/lib/messages";

export function QueueChip({
  roomId,
  messages,
  busy,
  selfId
}: {
  roomId: string;
  messages: readonly RoomMessage[];
  busy: boolean;
  selfId: string;
}) {
  const [error, setError] = useState<string | null>(null);
  const [withdrawing, setWithdrawing] = useState<string | null>(null);
  const queue = queuedQuestions(messages, busy, selfId);
  if (queue.length === 0) return null;
  const withdraw = async (id: string) => {
    setWithdrawing(id);
    setError(null);
    try {
      await api.withdrawQuestion(roomId, id);
    } catch (e) {
      setError(`Could not withdraw: ${errorMessage(e)}`);
    } finally {
      setWithdrawing(null);
    }
  };
  return (
    <div className="shrink-0 px-3 sm:px-6">
      <section
        aria-label="The AI's queue"
        className="mx-auto flex w-full max-w-3xl flex-wrap items-center gap-x-2 gap-y-1 pt-2 text-xs text-fg-muted"
      >
        {queue.length > 0 && (
          <p className="flex items-center gap-1.5" data-ai-queue>
            <ListOrdered className="size-3.5 shrink-0" aria-hidden="true" />
            {queueLine(queue)}
          </p>
        )}
        {queue
          .filter((q) => q.mine)
          .map((q) => (
            <Button
              key={q.id}
              size="sm"
              variant="ghost"
              disabled={withdrawing === q.id}
              onClick={() => void withdraw(q.id)}
              aria-label={`Withdraw your question "${q.preview}"`}
              title={q.preview}
            >
              Withdraw{queue.filter((x) => x.mine).length > 1 ? ` "${q.preview.slice(0, 20)}…"` : ""}
            </Button>
          ))}
        {error && (
          <span role="alert" className="text-danger-strong">
            {error}
          </span>
        )}
      </section>
    </div>
  );
}
