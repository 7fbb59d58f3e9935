/** Which question an answer replies to, then its parts in order: Markdown text, reasoning (folded), tool calls (an "ask first" one as an approval card) and delegated tasks. */

import { MessageText } from "@/client/components/MessageText";
import { ToolPart } from "@/client/components/ToolPart";
import { TaskCard } from "@/client/components/tasks/TaskCard";
import { ApprovalCard, isApprovalCard } from "@/client/components/tools/ApprovalCard";
import { TypingDots } from "@/client/components/ui/Spinner";
import { asToolPart, type RoomMessage } from "@/client/lib/messages";
import { ReplyChip } from "./ReplyChip";

export function AssistantBody({ message, streaming }: { message: RoomMessage; streaming: boolean }) {
  const parts = message.parts;
  let lastTextIndex = -1;
  parts.forEach((p, i) => {
    if (p.type === "text") lastTextIndex = i;
  });
  const hasVisible = parts.some((p) => (p.type === "text" && p.text) || asToolPart(p) || p.type === "reasoning");
  return (
    <div className="min-w-0 text-[15px] leading-7">
      <ReplyChip answerId={message.id} questionId={message.metadata?.answers} />
      {parts.map((part, index) => {
        if (part.type === "text") {
          if (!part.text) return null;
          return (
            // biome-ignore lint/suspicious/noArrayIndexKey: parts have no ids, and a message's parts are only ever appended
            <MessageText key={index} text={part.text} streaming={streaming && index === lastTextIndex} />
          );
        }
        if (part.type === "reasoning") {
          if (!part.text) return null;
          return (
            // biome-ignore lint/suspicious/noArrayIndexKey: parts have no ids, and a message's parts are only ever appended
            <details key={index} className="my-2 text-sm text-fg-muted">
              <summary className="cursor-pointer select-none hover:text-fg-3">Reasoning</summary>
              <div className="mt-1 border-l-2 border-edge-raised pl-3 whitespace-pre-wrap">{part.text}</div>
            </details>
          );
        }
        const tool = asToolPart(part);
        if (tool?.name === "delegate") return <TaskCard key={tool.toolCallId || index} tool={tool} />;
        if (tool && isApprovalCard(tool)) return <ApprovalCard key={tool.toolCallId || index} tool={tool} />;
        if (tool) return <ToolPart key={tool.toolCallId || index} tool={tool} />;
        return null;
      })}
      {streaming && !hasVisible && (
        <div role="status" className="flex h-7 items-center text-fg-muted" aria-label="Assistant is thinking">
          <TypingDots />
        </div>
      )}
    </div>
  );
}
