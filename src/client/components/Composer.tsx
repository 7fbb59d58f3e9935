/**
 * The message box: Enter sends (on touch screens the Send button does),
 * Stop beside Send while an answer streams, `@` offers the room's personas,
 * and the unsent text survives leaving the room while the tab lives.
 */
import {
  forwardRef,
  type KeyboardEvent,
  memo,
  type RefObject,
  useEffect,
  useId,
  useImperativeHandle,
  useRef,
  useState
} from "react";
import type { FileUploads } from "@/client/hooks/use-file-uploads";
import { useMediaQuery } from "@/client/hooks/use-media-query";
import { useMentionAutocomplete } from "@/client/hooks/use-mention-autocomplete";
import { MAX_MESSAGE_LENGTH } from "@/shared/constants";
import type { PresenceUser } from "@/shared/protocol";
import { AttachButton, AttachmentTray } from "./composer/AttachmentTray";
import { ComposerHint, SendButtons, TypingLine } from "./composer/ComposerParts";
import { MentionList } from "./composer/MentionList";

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
  /** "Reconnect now", while the connection is lost. */
  onReconnect?: () => void;
  /** An answer is streaming in the room (anyone's): Stop is offered beside Send. */
  busy: boolean;
  typingUsers: PresenceUser[];
  onSend: (text: string) => void;
  /** Files attached to the next message (absent: no attaching, e.g. a read-only viewer). */
  uploads?: FileUploads;
  /** Sends the text to every persona of the room as a panel (absent: the room has none). */
  onAskPanel?: (text: string) => void;
  onStop: () => void;
  onTyping: () => void;
  onStopTyping: () => void;
  autoFocus?: boolean;
  /** The room's persona names, offered as you type `@` (an accessible listbox). */
  mentionNames?: readonly string[];
}

/** The text, kept per room, and the textarea growing with it. */
function useDraft(roomId: string, textareaRef: RefObject<HTMLTextAreaElement | null>) {
  const [text, setText] = useState(() => drafts.get(roomId) ?? "");
  useEffect(() => {
    drafts.set(roomId, text);
  }, [roomId, text]);
  // Grow with the text, up to a limit, without jumping.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the text is the trigger; the height is read from the DOM
  useEffect(() => {
    const el = textareaRef.current;
    if (!el) return;
    el.style.height = "auto";
    el.style.height = `${Math.min(el.scrollHeight, 240)}px`;
  }, [text]);
  const clear = () => {
    setText("");
    drafts.delete(roomId);
  };
  return { text, setText, clear };
}

/**
 * Memoised: the room re-renders for every streamed chunk, and the composer
 * (its text, mentions, attachments) has nothing to redraw for one.
 */
export const Composer = memo(
  forwardRef<ComposerHandle, ComposerProps>(function Composer(props, ref) {
    const { roomId, roomName, busy, onSend, onAskPanel, onStop, onTyping, onStopTyping, autoFocus } = props;
    const textareaRef = useRef<HTMLTextAreaElement>(null);
    const inputId = useId();
    const hintId = useId();
    useImperativeHandle(ref, () => ({ focus: () => textareaRef.current?.focus() }), []);
    const { text, setText, clear } = useDraft(roomId, textareaRef);
    const mentions = useMentionAutocomplete({ text, setText, textareaRef, names: props.mentionNames ?? [] });

    useEffect(() => {
      if (autoFocus) textareaRef.current?.focus({ preventScroll: true });
    }, [autoFocus]);

    // Soft keyboards have no Shift: on touch screens Enter makes a new line
    // and the Send button sends.
    const coarsePointer = useMediaQuery("(pointer: coarse)");
    const tooLong = text.length > MAX_MESSAGE_LENGTH;
    const uploads = props.uploads;
    // Files may go alone; nothing goes while one is still uploading (it would be left behind).
    const canSend = (text.trim().length > 0 || Boolean(uploads?.ready)) && !tooLong && !uploads?.uploading;
    const [dragging, setDragging] = useState(false);

    const submit = (send: (text: string) => void = onSend) => {
      if (!canSend) return;
      send(text);
      onStopTyping();
      clear();
    };

    const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
      if (mentions.onKey(event)) return;
      if (coarsePointer) return;
      if (event.key === "Enter" && !event.shiftKey && !event.altKey && !event.nativeEvent.isComposing) {
        event.preventDefault();
        submit();
      }
    };

    return (
      <div className="shrink-0 px-3 pb-3 sm:px-6 sm:pb-4">
        <div className="mx-auto w-full max-w-3xl">
          <TypingLine users={props.typingUsers} />
          {uploads && <AttachmentTray uploads={uploads} />}
          <form
            onSubmit={(event) => {
              event.preventDefault();
              submit();
            }}
            onDragOver={(event) => {
              if (!uploads || !event.dataTransfer.types.includes("Files")) return;
              event.preventDefault();
              setDragging(true);
            }}
            onDragLeave={() => setDragging(false)}
            onDrop={(event) => {
              setDragging(false);
              if (!uploads || event.dataTransfer.files.length === 0) return;
              event.preventDefault();
              uploads.add(event.dataTransfer.files);
            }}
            onPaste={(event) => {
              if (!uploads || event.clipboardData.files.length === 0) return;
              event.preventDefault();
              uploads.add(event.clipboardData.files);
            }}
            data-dragging={dragging || undefined}
            className="relative flex items-end gap-2 rounded-2xl border border-edge-strong bg-surface p-2 shadow-sm transition-colors focus-within:border-accent-line focus-within:ring-3 focus-within:ring-accent-line/15 data-[dragging]:border-accent-line data-[dragging]:ring-3 data-[dragging]:ring-accent-line/30"
          >
            <MentionList mentions={mentions} />
            {uploads && <AttachButton onFiles={(files) => uploads.add(files)} />}
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
              onSelect={() => mentions.setCaret(textareaRef.current?.selectionStart ?? 0)}
              {...mentions.inputProps}
              onChange={(event) => {
                setText(event.target.value);
                mentions.setCaret(event.target.selectionStart ?? event.target.value.length);
                mentions.onEdited();
                if (event.target.value) onTyping();
                else onStopTyping();
              }}
              onKeyDown={onKeyDown}
              onBlur={onStopTyping}
              className="thin-scrollbar max-h-60 min-h-10 pointer-coarse:min-h-11 flex-1 resize-none bg-transparent px-2 py-2 text-[15px] leading-6 text-fg placeholder:text-fg-muted focus:outline-none"
            />
            <SendButtons busy={busy} onStop={onStop} canSend={canSend} coarsePointer={coarsePointer} />
          </form>
          <ComposerHint
            id={hintId}
            offlineReason={props.offlineReason}
            onReconnect={props.onReconnect}
            connecting={props.connecting}
            coarsePointer={coarsePointer}
            length={text.length}
            canSend={canSend}
            onAskPanel={onAskPanel && (() => submit(onAskPanel))}
          />
        </div>
      </div>
    );
  })
);
