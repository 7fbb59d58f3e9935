import { type FormEvent, useState } from "react";
import { normalizeDisplayName, useDisplayName } from "@/client/hooks/use-display-name";
import { usePendingAction } from "@/client/hooks/use-pending-action";
import { MAX_AUTHOR_LENGTH } from "@/shared/constants";
import { useAuth } from "./AuthGate";
import { Avatar } from "./ui/Avatar";
import { Dialog, DialogActions } from "./ui/Dialog";
import { Field, inputClass, Kbd } from "./ui/Field";

export function DisplayNameDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { user } = useAuth();
  const fixed = user.kind !== "user";
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title="Your display name"
      description={
        fixed
          ? "Your name comes from how you reached this server (Cloudflare Access or the API token)."
          : "Shown on your messages and in the list of people in a room."
      }
    >
      <DisplayNameForm fixed={fixed} onClose={onClose} />
    </Dialog>
  );
}

/** Mounted each time the dialog opens (see Dialog), so the draft starts from the current name. */
function DisplayNameForm({ fixed, onClose }: { fixed: boolean; onClose: () => void }) {
  const [name, setName] = useDisplayName();
  const [draft, setDraft] = useState(name);
  const { pending, error, run } = usePendingAction();
  const normalized = normalizeDisplayName(draft);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!normalized || fixed) return;
    await run(async () => {
      await setName(normalized);
      onClose();
    });
  };
  return (
    <form onSubmit={submit} noValidate>
      <div className="flex items-end gap-3 px-5 py-4">
        <Avatar name={normalized || "?"} className="mb-1 size-9 text-sm" />
        <Field
          label="Display name"
          className="flex-1"
          error={draft && !normalized ? "Use at least one letter." : error}
        >
          {(props) => (
            <input
              {...props}
              data-autofocus
              onFocus={(e) => e.currentTarget.select()}
              value={draft}
              readOnly={fixed}
              maxLength={MAX_AUTHOR_LENGTH}
              onChange={(e) => setDraft(e.target.value)}
              className={inputClass}
              autoComplete="nickname"
            />
          )}
        </Field>
      </div>
      <DialogActions label="Save" onCancel={onClose} pending={pending} disabled={!normalized || fixed} />
    </form>
  );
}

const isMac = typeof navigator !== "undefined" && /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);
export const MOD = isMac ? "⌘" : "Ctrl";
const ALT = isMac ? "⌥" : "Alt";

const SHORTCUTS: Array<{ keys: string[][]; label: string }> = [
  {
    keys: [
      [ALT, "N"],
      ["Ctrl", "Shift", "O"]
    ],
    label: "New room"
  },
  { keys: [[MOD, "K"], ["/"]], label: "Search rooms and messages" },
  {
    keys: [
      [ALT, "↑"],
      [ALT, "↓"]
    ],
    label: "Previous / next room"
  },
  { keys: [["Shift", "Esc"]], label: "Focus the message box" },
  { keys: [["↑"], ["↓"]], label: "Previous / next message (in the conversation)" },
  { keys: [["Home"], ["End"]], label: "First / last loaded message" },
  { keys: [["→"], ["Enter"]], label: "A message's actions (← → between them, Esc back)" },
  { keys: [["Esc"]], label: "Stop the answer to your question" },
  { keys: [["Enter"]], label: "Send message" },
  { keys: [["Shift", "Enter"]], label: "New line in a message" },
  { keys: [["Esc"]], label: "Close dialog or menu" },
  { keys: [["?"]], label: "Show keyboard shortcuts" }
];

export function ShortcutsDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <Dialog open={open} onClose={onClose} title="Keyboard shortcuts">
      <ul className="divide-y divide-surface-2 px-5 py-2">
        {SHORTCUTS.map((shortcut) => (
          <li key={shortcut.label} className="flex items-center justify-between gap-4 py-2.5 text-sm">
            <span className="text-fg-3">{shortcut.label}</span>
            <span className="flex flex-wrap items-center justify-end gap-1.5">
              {shortcut.keys.map((combo, i) => (
                <span key={combo.join("+")} className="flex items-center gap-1">
                  {i > 0 && <span className="px-0.5 text-xs text-fg-muted">or</span>}
                  {combo.map((key) => (
                    <Kbd key={key}>{key}</Kbd>
                  ))}
                </span>
              ))}
            </span>
          </li>
        ))}
      </ul>
    </Dialog>
  );
}
