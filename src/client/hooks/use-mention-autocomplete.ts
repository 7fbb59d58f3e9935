/**
 * `@`-mention autocomplete for a textarea: the mention under the caret, the
 * names that match it, the active option, and the keys the open list takes
 * (↑/↓ move, Enter or Tab pick, Escape closes it for that mention). The text
 * logic is pure (lib/mention-autocomplete.ts).
 */
import { type KeyboardEvent, type RefObject, useId, useLayoutEffect, useRef, useState } from "react";
import { insertMention, mentionAt, namesMatching } from "@/client/lib/mention-autocomplete";

export function useMentionAutocomplete({
  text,
  setText,
  textareaRef,
  names
}: {
  text: string;
  setText: (text: string) => void;
  textareaRef: RefObject<HTMLTextAreaElement | null>;
  names: readonly string[];
}) {
  const [caret, setCaret] = useState(0);
  const [activeOption, setActiveOption] = useState(0);
  /** The mention (by its `@` position) the person closed the list on with Escape. */
  const [dismissedAt, setDismissedAt] = useState<number | null>(null);
  const pendingCaret = useRef<number | null>(null);
  const listboxId = useId();
  const mention = names.length > 0 ? mentionAt(text, caret) : null;
  const options = mention && mention.start !== dismissedAt ? namesMatching(names, mention.query) : [];
  const open = options.length > 0;
  const active = Math.min(activeOption, Math.max(0, options.length - 1));
  const optionId = (index: number) => `${listboxId}-${index}`;

  useLayoutEffect(() => {
    if (pendingCaret.current === null) return;
    textareaRef.current?.setSelectionRange(pendingCaret.current, pendingCaret.current);
    setCaret(pendingCaret.current);
    pendingCaret.current = null;
  });

  const pick = (name: string) => {
    if (!mention) return;
    const next = insertMention(text, mention, caret, name);
    setText(next.text);
    pendingCaret.current = next.caret;
    setActiveOption(0);
    textareaRef.current?.focus();
  };

  /** Keys the open list takes before anything else. True when taken. */
  const onKey = (event: KeyboardEvent<HTMLTextAreaElement>): boolean => {
    if (!open || event.nativeEvent.isComposing) return false;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      const step = event.key === "ArrowDown" ? 1 : -1;
      setActiveOption((active + step + options.length) % options.length);
    } else if ((event.key === "Enter" && !event.shiftKey) || event.key === "Tab") {
      pick(options[active]);
    } else if (event.key === "Escape") {
      setDismissedAt(mention?.start ?? null);
    } else return false;
    event.preventDefault();
    return true;
  };

  return {
    open,
    options,
    active,
    listboxId,
    optionId,
    pick,
    onKey,
    /** The caret moved (selection or typing). */
    setCaret,
    /** The text changed: start again at the first option. */
    onEdited: () => setActiveOption(0),
    /** ARIA for the textarea while the list is open. */
    inputProps: open
      ? {
          "aria-autocomplete": "list" as const,
          "aria-controls": listboxId,
          "aria-activedescendant": optionId(active)
        }
      : {}
  };
}

export type MentionAutocomplete = ReturnType<typeof useMentionAutocomplete>;
