/** Editing one's own question in place: Enter saves and sends, Escape cancels. */
import { type KeyboardEvent, useEffect, useId, useRef, useState } from "react";
import { Button } from "@/client/components/ui/Button";
import { MAX_MESSAGE_LENGTH } from "@/shared/constants";

export function EditForm({
  initial,
  onCancel,
  onSave
}: {
  initial: string;
  onCancel: () => void;
  onSave: (text: string) => void;
}) {
  const [text, setText] = useState(initial);
  const ref = useRef<HTMLTextAreaElement>(null);
  const id = useId();
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
        className="block w-full resize-none bg-transparent px-1.5 py-1 text-[15px] leading-7 focus:outline-none"
      />
      <div className="flex items-center justify-end gap-2 pt-1">
        <span className="mr-auto pl-1.5 text-xs text-fg-muted">Sending replaces every message after this one.</span>
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
