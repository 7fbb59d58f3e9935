/** The `@`-mention options above the composer; the keyboard works them from the textarea. */
import type { MentionAutocomplete } from "@/client/hooks/use-mention-autocomplete";
import { cn } from "@/client/lib/cn";

export function MentionList({ mentions }: { mentions: MentionAutocomplete }) {
  if (!mentions.open) return null;
  return (
    <div
      id={mentions.listboxId}
      role="listbox"
      aria-label="Mention someone"
      className="absolute bottom-full left-2 z-20 mb-1 max-h-60 min-w-44 overflow-auto rounded-lg border border-edge-raised bg-surface py-1 text-sm shadow-lg"
    >
      {mentions.options.map((name, index) => (
        // biome-ignore lint/a11y/useKeyWithClickEvents: the keyboard works the list from the textarea (aria-activedescendant)
        <div
          key={name}
          id={mentions.optionId(index)}
          role="option"
          tabIndex={-1}
          aria-selected={index === mentions.active}
          // Keep the focus (and the caret) in the textarea.
          onMouseDown={(event) => event.preventDefault()}
          onClick={() => mentions.pick(name)}
          className={cn(
            "cursor-pointer px-3 py-1.5 text-fg-control",
            index === mentions.active && "bg-accent-bg text-accent-ink"
          )}
        >
          @{name}
        </div>
      ))}
    </div>
  );
}
