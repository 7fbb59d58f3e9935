/** Editing one's own question in place: Enter saves and sends, Escape cancels. */
import { type KeyboardEvent, useEffect, useId, useRef, useState } from "react";
import { Button } from "@/client/components/ui/Button";
import { MAX_MESSAGE_LENGTH } from "@/shared/constants";

/** What saving does, when the transcript cannot say more (a message of an older page). */
const DEFAULT_CONSEQUENCE =
  "Sends your edit as a new version. This version and the messages after it are kept: ‹ › beside the message shows them.";

export function EditForm({
  initial,
  consequence = DEFAULT_CONSEQUENCE,
  onCancel,
  onSave
}: {
  initial: string;
  /** What saving does to this version and the messages after it. */
  consequence?: string;
  onCancel: () => void;
  onSave: (text: string) => void;
}) {
  const [text, setText] = useState(initial);
  const ref = useRef<HTMLTextAreaElement>(null);
  const id = useId();
  const noteId = useId();
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.focus();
    el.setSelectionRange(el.value.length, el.value.length);
  }, []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the text is the trigger; the height is read from the DOM
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.style.height = "auto";
    el.style.height = `${Math.min(el.scrollHeight, 320)}px`;
  }, [text]);
  const trimmed = text.trim();
  const valid = trimmed.length > 0 && text.length <= MAX_MESSAGE_LENGTH;
  const submit = () => valid && onSave(text);
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      submit();
    } else if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      onCancel();
    }
  };
  return (
    <form
      className="mt-1 rounded-xl border border-edge-strong bg-surface p-2 shadow-sm focus-within:border-accent-line focus-within:ring-3 focus-within:ring-accent-line/20"
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <label htmlFor={id} className="sr-only">
        Edit message
      </label>
      <textarea
        id={id}
        ref={ref}
        value={text}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={onKeyDown}
        rows={2}
        aria-describedby={noteId}
        className="block w-full resize-none bg-transparent px-1.5 py-1 text-[15px] leading-7 focus:outline-none"
      />
      <p id={noteId} className="px-1.5 pt-1 text-xs text-fg-muted" data-edit-consequence>
        {consequence}
      </p>
      <div className="flex items-center justify-end gap-2 pt-1">
        <Button size="sm" variant="ghost" onClick={onCancel}>
          Cancel
        </Button>
        <Button size="sm" variant="primary" type="submit" disabled={!valid}>
          Save &amp; send
        </Button>
      </div>
    </form>
  );
}
