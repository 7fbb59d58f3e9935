import { ArrowUp, Square, Users, WifiOff } from "lucide-react";
import {
  forwardRef,
  type KeyboardEvent,
  useEffect,
  useId,
  useImperativeHandle,
  useLayoutEffect,
  useRef,
  useState
} from "react";
import { MAX_MESSAGE_LENGTH } from "../../shared/constants";
import type { PresenceUser } from "../../shared/protocol";
import { useMediaQuery } from "../hooks/use-media-query";
import { cn } from "../lib/cn";
import { insertMention, mentionAt, namesMatching } from "../lib/mention-autocomplete";
import { Spinner } from "./ui/Spinner";

/** Unsent text per room, kept while the tab lives. */
const drafts = new Map<string, string>();

export interface ComposerHandle {
  focus(): void;
}

export interface ComposerProps {
  roomId: string;
  roomName: string;
  /**
   * Why messages cannot leave right now (offline, reconnecting), or null.
   * The composer stays editable: sends wait in the outbox.
   */
  offlineReason: string | null;
  connecting: boolean;
  /** An answer is streaming in the room (anyone's): Stop is offered beside Send. */
  busy: boolean;
  typingUsers: PresenceUser[];
  onSend: (text: string) => void;
  /** Sends the text to every persona of the room as a panel (absent: the room has none). */
  onAskPanel?: (text: string) => void;
  onStop: () => void;
  onTyping: () => void;
  onStopTyping: () => void;
  autoFocus?: boolean;
  /** The room's persona names, offered as you type `@` (an accessible listbox). */
  mentionNames?: readonly string[];
}

function typingLabel(users: PresenceUser[]): string | null {
  const names = [...new Set(users.map((u) => u.name))];
  if (names.length === 0) return null;
  if (names.length === 1) return `${names[0]} is typing…`;
  if (names.length === 2) return `${names[0]} and ${names[1]} are typing…`;
  return `${names[0]}, ${names[1]} and ${names.length - 2} more are typing…`;
}

export const Composer = forwardRef<ComposerHandle, ComposerProps>(function Composer(
  {
    roomId,
    roomName,
    offlineReason,
    connecting,
    busy,
    typingUsers,
    onSend,
    onAskPanel,
    onStop,
    onTyping,
    onStopTyping,
    autoFocus,
    mentionNames = []
  },
  ref
) {
  const [text, setText] = useState(() => drafts.get(roomId) ?? "");
  const textareaRef = useRef<HTMLTextAreaElement>(null);
  const inputId = useId();
  const hintId = useId();
  useImperativeHandle(ref, () => ({ focus: () => textareaRef.current?.focus() }), []);

  useEffect(() => {
    drafts.set(roomId, text);
  }, [roomId, text]);

  useEffect(() => {
    if (autoFocus) textareaRef.current?.focus({ preventScroll: true });
  }, [autoFocus]);

  // Grow with the text, up to a limit, without jumping.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the text is the trigger; the height is read from the DOM
  useEffect(() => {
    const el = textareaRef.current;
    if (!el) return;
    el.style.height = "auto";
    el.style.height = `${Math.min(el.scrollHeight, 240)}px`;
  }, [text]);

  // Soft keyboards have no Shift: on touch screens Enter makes a new line
  // and the Send button sends.
  const coarsePointer = useMediaQuery("(pointer: coarse)");
  const tooLong = text.length > MAX_MESSAGE_LENGTH;
  const canSend = text.trim().length > 0 && !tooLong;

  const submit = (send: (text: string) => void = onSend) => {
    if (!canSend) return;
    send(text);
    onStopTyping();
    setText("");
    drafts.delete(roomId);
  };

  // ── @-mention autocomplete ──
  const [caret, setCaret] = useState(0);
  const [activeOption, setActiveOption] = useState(0);
  /** The mention (by its `@` position) the person closed the list on with Escape. */
  const [dismissedAt, setDismissedAt] = useState<number | null>(null);
  const pendingCaret = useRef<number | null>(null);
  const listboxId = useId();
  const mention = mentionNames.length > 0 ? mentionAt(text, caret) : null;
  const options = mention && mention.start !== dismissedAt ? namesMatching(mentionNames, mention.query) : [];
  const listOpen = options.length > 0;
  const active = Math.min(activeOption, Math.max(0, options.length - 1));
  const optionId = (index: number) => `${listboxId}-${index}`;
  const readCaret = () => setCaret(textareaRef.current?.selectionStart ?? 0);

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
  const listKey = (event: KeyboardEvent<HTMLTextAreaElement>): boolean => {
    if (!listOpen || event.nativeEvent.isComposing) return false;
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

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (listKey(event)) return;
    if (coarsePointer) return;
    if (event.key === "Enter" && !event.shiftKey && !event.altKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      submit();
    }
  };

  const typing = typingLabel(typingUsers);

  return (
    <div className="shrink-0 px-3 pb-3 sm:px-6 sm:pb-4">
      <div className="mx-auto w-full max-w-3xl">
        <div className="flex h-6 items-center px-1 text-xs text-fg-subtle">
          {typing && (
            <span className="flex min-w-0 items-center gap-1.5 animate-fade-in">
              <span className="inline-flex gap-[3px]" aria-hidden="true">
                <span className="typing-dot size-1 rounded-full bg-current" />
                <span className="typing-dot size-1 rounded-full bg-current" />
                <span className="typing-dot size-1 rounded-full bg-current" />
              </span>
              <span className="truncate">{typing}</span>
            </span>
          )}
        </div>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            submit();
          }}
          className={cn(
            "relative flex items-end gap-2 rounded-2xl border border-edge-strong bg-surface p-2 shadow-sm transition-colors focus-within:border-accent-line focus-within:ring-3 focus-within:ring-accent-line/15"
          )}
        >
          {listOpen && (
            <div
              id={listboxId}
              role="listbox"
              aria-label="Mention a persona"
              className="absolute bottom-full left-2 z-20 mb-1 max-h-60 min-w-44 overflow-auto rounded-lg border border-edge-raised bg-surface py-1 text-sm shadow-lg"
            >
              {options.map((name, index) => (
                // biome-ignore lint/a11y/useKeyWithClickEvents: the keyboard works the list from the textarea (aria-activedescendant)
                <div
                  key={name}
                  id={optionId(index)}
                  role="option"
                  tabIndex={-1}
                  aria-selected={index === active}
                  // Keep the focus (and the caret) in the textarea.
                  onMouseDown={(event) => event.preventDefault()}
                  onClick={() => pick(name)}
                  className={cn(
                    "cursor-pointer px-3 py-1.5 text-fg-control",
                    index === active && "bg-accent-bg text-accent-ink"
                  )}
                >
                  @{name}
                </div>
              ))}
            </div>
          )}
          <label htmlFor={inputId} className="sr-only">
            Message {roomName}
          </label>
          <textarea
            id={inputId}
            ref={textareaRef}
            value={text}
            rows={1}
            enterKeyHint={coarsePointer ? "enter" : "send"}
            aria-describedby={hintId}
            aria-invalid={tooLong || undefined}
            placeholder={`Message ${roomName}`}
            onSelect={readCaret}
            {...(listOpen
              ? {
                  "aria-autocomplete": "list" as const,
                  "aria-controls": listboxId,
                  "aria-activedescendant": optionId(active)
                }
              : {})}
            onChange={(event) => {
              setText(event.target.value);
              setCaret(event.target.selectionStart ?? event.target.value.length);
              setActiveOption(0);
              if (event.target.value) onTyping();
              else onStopTyping();
            }}
            onKeyDown={onKeyDown}
            onBlur={onStopTyping}
            className="thin-scrollbar max-h-60 min-h-10 pointer-coarse:min-h-11 flex-1 resize-none bg-transparent px-2 py-2 text-[15px] leading-6 text-fg placeholder:text-fg-muted focus:outline-none"
          />
          {busy && (
            <button
              type="button"
              onClick={onStop}
              aria-label="Stop generating"
              title="Stop generating"
              className="inline-flex size-11 shrink-0 cursor-pointer items-center justify-center rounded-xl bg-fg text-surface transition-colors hover:bg-inverse-hover"
            >
              <Square className="size-3.5 fill-current" aria-hidden="true" />
            </button>
          )}
          <button
            type="submit"
            disabled={!canSend}
            aria-label="Send message"
            title={coarsePointer ? "Send message" : "Send message (Enter)"}
            className="inline-flex size-11 shrink-0 cursor-pointer items-center justify-center rounded-xl bg-accent text-on-fill transition-colors hover:bg-accent-line disabled:cursor-not-allowed disabled:bg-edge disabled:text-fg-muted"
          >
            <ArrowUp className="size-5" aria-hidden="true" />
          </button>
        </form>
        <div id={hintId} className="flex min-h-6 items-center gap-2 px-1 pt-1.5 text-xs text-fg-muted">
          {offlineReason ? (
            <span className="flex items-center gap-1.5 font-medium text-warning">
              {connecting ? (
                <Spinner className="[&_svg]:size-3" />
              ) : (
                <WifiOff className="size-3.5" aria-hidden="true" />
              )}
              {offlineReason}
            </span>
          ) : coarsePointer ? null : (
            <span className="hidden sm:inline">
              <b className="font-medium">Enter</b> to send, <b className="font-medium">Shift + Enter</b> for a new line
            </span>
          )}
          {onAskPanel && (
            <button
              type="button"
              disabled={!canSend}
              onClick={() => submit(onAskPanel)}
              className="ml-auto inline-flex cursor-pointer items-center gap-1 rounded-md px-2 py-0.5 pointer-coarse:min-h-11 font-medium text-accent-fg hover:bg-accent-bg disabled:cursor-not-allowed disabled:opacity-50"
            >
              <Users className="size-3.5" aria-hidden="true" />
              Ask the panel
            </button>
          )}
          {text.length > MAX_MESSAGE_LENGTH * 0.9 && (
            <span className={cn("ml-auto tabular-nums", tooLong && "font-medium text-danger")}>
              {text.length.toLocaleString()} / {MAX_MESSAGE_LENGTH.toLocaleString()}
            </span>
          )}
        </div>
      </div>
    </div>
  );
});
